import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import MixServer

/// Answers compressed with gzip for clients that accept it (issue 56: the waveform JSON of a 10-minute render was
/// 8.3 MB as it went over the wire), streamed, and everything else left as it was.
@Suite struct ResponseCompressionTests {
    /// A JSON document of about 2 MB, written in 64 KiB buffers as a handler streams a file.
    static let document: [UInt8] = {
        var text = "{\"data\": ["
        for i in 0..<200_000 { text += "\(i % 251 - 125)," }
        return Array((text + "0]}").utf8)
    }()

    static func application() -> some ApplicationProtocol {
        let router = Router()
        router.add(middleware: ResponseCompressionMiddleware())
        router.get("/big") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                for start in stride(from: 0, to: document.count, by: 65_536) {
                    try await writer.write(ByteBuffer(bytes: document[start..<min(start + 65_536, document.count)]))
                }
                try await writer.finish(nil)
            })
        }
        router.get("/small") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        router.get("/events") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
        }
        router.get("/audio") { _, _ in
            Response(status: .ok, headers: [.contentType: "audio/mp4"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
        }
        return Application(router: router)
    }

    @Test func aClientThatAcceptsGzipGetsTheSameDocumentCompressed() async throws {
        try await Self.application().test(.live) { client in
            try await client.execute(uri: "/big", method: .get, headers: [.acceptEncoding: "br;q=1.0, gzip;q=0.8"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(response.headers[.contentLength] == nil || Int(response.headers[.contentLength]!) == response.body.readableBytes)
                var body = response.body
                #expect(body.readableBytes < Self.document.count / 3, "\(body.readableBytes) bytes for \(Self.document.count)")
                let plain = try body.decompress(with: .gzip())
                #expect(Array(buffer: plain) == Self.document)
            }
        }
    }

    @Test(arguments: [
        ("/big", nil as String?), ("/big", "identity"), ("/big", "gzip;q=0"), ("/big", "*;q=0, br"),
        ("/small", "gzip"), ("/events", "gzip"), ("/audio", "gzip"),
    ])
    func everythingElseIsLeftAsItWas(path: String, acceptEncoding: String?) async throws {
        try await Self.application().test(.live) { client in
            var headers = HTTPFields()
            if let acceptEncoding { headers[.acceptEncoding] = acceptEncoding }
            try await client.execute(uri: path, method: .get, headers: headers) { response in
                #expect(response.headers[.contentEncoding] == nil, "\(path) \(acceptEncoding ?? "-")")
                #expect(response.body.readableBytes == (path == "/small" ? 2 : Self.document.count))
                #expect((response.headers[.vary] != nil) == (path == "/big" || path == "/small"))
            }
        }
    }

    @Test func acceptEncodingIsReadAsRFC9110Says() {
        let accepts = ResponseCompressionMiddleware<BasicRequestContext>.acceptsGzip
        #expect(accepts("gzip") && accepts("GZIP") && accepts("deflate, gzip;q=0.5") && accepts("*") && accepts("x-gzip"))
        #expect(!accepts(nil) && !accepts("") && !accepts("identity") && !accepts("gzip;q=0") && !accepts("br, *;q=0"))
        #expect(!accepts("gzip;q=0, *"), "gzip refused by name is refused, whatever * says")
    }
}
