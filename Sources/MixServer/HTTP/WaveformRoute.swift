import Foundation
import HTTPTypes
import Hummingbird
import MixRender
import NIOCore

/// `GET /v1/renders/{id}/waveform`: the render's waveform as JSON (the full resolution, or zoomed with `width` or
/// `pointsPerSecond`), PNG or SVG. The files are streamed from the result's folder as they are (the full JSON of an
/// 8-hour render is hundreds of megabytes: a generated handler would decode it into a value and encode it again), and
/// compressed on the way when the client accepts it (`ResponseCompressionMiddleware`). Written against Hummingbird
/// rather than generated, as `AudioRoute` is; openapi.yaml documents it, and its query parameters are checked here
/// against the document's bounds (unknown ones are refused before, by `QueryParametersMiddleware`).
struct WaveformRoute: Sendable {
    let service: RenderService

    func register<Context: RequestContext>(on router: Router<Context>) {
        router.get("/v1/renders/:id/waveform") { request, context in
            do { return try await self.respond(request, context: context) } catch let error as ServiceError {
                return ProblemResponse.make(HTTPProblem(error))
            }
        }
    }

    /// What the query asks: the format, and at most one zoom.
    struct Query: Equatable {
        enum Format: String, CaseIterable { case json, png, svg }
        var format = Format.json
        var width: Int?
        var pointsPerSecond: Double?

        /// Reads `format`, `width` and `pointsPerSecond` (the first of each), refusing what the document does not allow
        /// with a 400 naming the parameter.
        init(_ parameters: Parameters) throws(ServiceError) {
            if let text = parameters.get("format") {
                guard let format = Format(rawValue: String(text)) else {
                    throw .malformed(jsonPath: "format", reason: "'\(PrintableText.escaped(String(text.prefix(40))))' is not a waveform format; use json, png or svg")
                }
                self.format = format
            }
            if let text = parameters.get("width") {
                guard let width = Int(text), (1...1_000_000).contains(width) else {
                    throw .malformed(jsonPath: "width", reason: "must be a whole number from 1 to 1000000")
                }
                self.width = width
            }
            if let text = parameters.get("pointsPerSecond") {
                guard let points = Double(text), points.isFinite, points > 0, points <= 100_000 else {
                    throw .malformed(jsonPath: "pointsPerSecond", reason: "must be a number above 0 and at most 100000")
                }
                pointsPerSecond = points
            }
            guard width == nil || pointsPerSecond == nil else {
                throw .malformed(jsonPath: "pointsPerSecond", reason: "give width or pointsPerSecond, not both")
            }
            if width != nil || pointsPerSecond != nil, format != .json {
                throw .malformed(jsonPath: width != nil ? "width" : "pointsPerSecond",
                                 reason: "zooms the JSON waveform; the \(format.rawValue) is drawn at its own size")
            }
        }
    }

    func respond<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        guard let token = RequestToken.name else { throw ServiceError.unauthorized("this call needs a token") }
        let query = try Query(request.uri.queryParameters)
        let id = context.parameters.get("id") ?? ""
        let folder = try await service.finished(id: id, token: token).folder
        if query.width != nil || query.pointsPerSecond != nil {
            let bytes: [UInt8]
            do { bytes = try await ResultFiles.read(folder + "/waveform.dat") } catch {
                throw ServiceError.notReady("this render's waveform was made before zoomed waveforms were served; ask without \(query.width != nil ? "width" : "pointsPerSecond"), or render it again")
            }
            let full: WaveformDat
            do { full = try WaveformDat(bytes: bytes) } catch {
                throw ServiceError.internalFault("the render's waveform cannot be read: \(error)")
            }
            let factor = query.width.map(full.factor(forWidth:)) ?? full.factor(forPointsPerSecond: query.pointsPerSecond!)
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: full.zoomed(by: factor).json)))
        }
        let type = switch query.format {
        case .json: "application/json"
        case .png: "image/png"
        case .svg: "image/svg+xml"
        }
        let body = try await FileIO().loadFile(path: folder + "/waveform.\(query.format.rawValue)", context: context)
        return Response(status: .ok, headers: [.contentType: type], body: body)
    }
}
