import CompressNIO
import HTTPTypes
import Hummingbird
import NIOCore

/// Compresses the server's text answers (JSON, the waveform's SVG, the page, the document) with gzip for a client that
/// accepts it (`Accept-Encoding`, RFC 9110 §12.5.3: `gzip` or `*` with a quality above 0), as a stream: each buffer the
/// handler writes is deflated into a 64 KiB window as it comes, so a waveform of many megabytes is never held whole.
/// Such answers always carry `Vary: Accept-Encoding`, compressed or not, so a cache keeps the two apart.
///
/// Left as they are: answers under `minimumBytes` (when their length is known), answers other than 200, `HEAD`,
/// answers already encoded, ranges, audio and PNG (compressed already), and server-sent events (`text/event-stream`),
/// whose events must reach the client as they are written, not when a deflate window fills. An `ETag` becomes the
/// compressed representation's (`"…-gzip"`).
///
/// A value with no state; each compressed answer has its own compressor and window (zlib's state, about 256 KiB).
struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Smaller answers gain less than gzip's header and the client's work cost.
    static var minimumBytes: Int { 1024 }

    /// The content types compressed: text the server writes.
    static func isCompressible(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/json" || type == "application/problem+json" || type == "image/svg+xml"
            || type == "application/yaml" || type == "application/schema+json" || type == "text/html"
            || type == "text/css" || type == "text/javascript" || type == "application/javascript" || type == "text/plain"
    }

    /// Whether `Accept-Encoding` takes gzip: `gzip` (or `x-gzip`), or else `*`, with a quality above 0.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var gzip: Double?, any: Double?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first?.lowercased(), !coding.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if coding == "gzip" || coding == "x-gzip" { gzip = max(gzip ?? 0, quality) }
            if coding == "*" { any = quality }
        }
        return (gzip ?? any ?? 0) > 0
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard let type = response.headers[.contentType], Self.isCompressible(type) else { return response }
        if !response.headers[values: .vary].contains(where: { $0.lowercased().contains("accept-encoding") }) {
            response.headers.append(HTTPField(name: .vary, value: "Accept-Encoding"))
        }
        guard request.method == .get, response.status == .ok, response.headers[.contentEncoding] == nil,
              response.headers[.contentRange] == nil, Self.acceptsGzip(request.headers[.acceptEncoding]),
              (response.body.contentLength ?? Int.max) >= Self.minimumBytes else { return response }
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = nil
        if let tag = response.headers[.eTag], tag.hasSuffix("\"") {
            response.headers[.eTag] = String(tag.dropLast()) + "-gzip\""
        }
        let body = response.body
        response.body = ResponseBody { writer in
            let compressor = CompressionAlgorithm.gzip().compressor
            compressor.window = ByteBufferAllocator().buffer(capacity: 64 * 1024)
            try compressor.startStream()
            try await body.write(GzipBodyWriter(inner: writer, compressor: compressor))
        }
        return response
    }
}

/// A response body writer that deflates what it is given into its compressor's window and writes each full window
/// (and at the end what is left, with gzip's trailer) to the writer it wraps. Used by one response's task only.
struct GzipBodyWriter: ResponseBodyWriter {
    var inner: any ResponseBodyWriter
    let compressor: NIOCompressor

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        try await buffer.compressStream(with: compressor, flush: .no) { try await inner.write($0) }
    }

    mutating func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { try await write(buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        var inner = self.inner
        var end = ByteBuffer()
        try await end.compressStream(with: compressor, flush: .finish) { try await inner.write($0) }
        try compressor.finishStream()
        try await inner.finish(trailingHeaders)
    }
}
