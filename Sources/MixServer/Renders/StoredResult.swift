import Foundation
import MixRender

/// What a finished render made, as the API's `Result` gives it and the store keeps it (`result.json` beside the
/// audio, and the job's `result`): the file's name, size, SHA-256 and content type, its loudness, its chapters,
/// what planning warned. One type writes it and reads it back.
struct StoredResult: Codable, Sendable {
    struct Chapter: Codable, Sendable {
        var name: String
        var startSeconds: Double
    }

    /// One file of a render with several outputs (the API's `OutputFile`): its format (the extension), its file key,
    /// the file's name in the result's folder, and what the API gives of it.
    struct Output: Codable, Sendable {
        var format: String
        var id: String
        var file: String
        var bytes: Int
        var sha256: String
        var contentType: String
        var integratedLoudness: Double?
        var truePeakDb: Double?
        var url: String
    }

    var file: String
    var bytes: Int
    var sha256: String
    var contentType: String
    var integratedLoudness: Double?
    var truePeakDb: Double?
    var chapters: [Chapter]
    var warnings: [String]
    /// Every file the render wrote, the first being the one above; nil in a result stored before outputs were.
    var outputs: [Output]?

    /// The result of render `id`, whose report lists its outputs (the first is the render's `format`), each written in
    /// the result's folder as `fileName(format)`.
    init(id: String, report: RenderReport, render: PresetRender, fileName: (OutputFileFormat) -> String, warnings: [String]) {
        func rounded(_ value: Double) -> Double? { value.isFinite ? (value * 100).rounded() / 100 : nil }
        outputs = report.outputs.map { output in
            let format = output.result.output.settings.format
            let loudness = output.result.outputLoudness   // what the file holds (decoded, for a lossy one)
            return Output(format: format.fileExtension, id: output.fileKey ?? report.key.audio, file: fileName(format),
                          bytes: Int(output.result.outputBytes ?? 0), sha256: output.sha256, contentType: Self.contentType(of: format),
                          integratedLoudness: rounded(loudness.integrated), truePeakDb: rounded(loudness.truePeak),
                          url: RenderLinks(id: id).base + "/audio/" + format.fileExtension)
        }
        let first = outputs![0]
        file = first.file
        bytes = first.bytes
        sha256 = first.sha256
        contentType = first.contentType
        integratedLoudness = first.integratedLoudness
        truePeakDb = first.truePeakDb
        chapters = render.chapters.map { mark in
            Chapter(name: mark.name, startSeconds: (Double(mark.frame) / Double(mark.sampleRate) * 1000).rounded() / 1000)
        }
        self.warnings = warnings
    }

    /// The file of the output in `format` (its extension): the first output's for a result stored before outputs were.
    func output(format: String) -> Output? {
        outputs?.first { $0.format == format }
    }

    /// The document as the store keeps it.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The MIME type of a file in `format` (what `GET .../audio` answers as `Content-Type`).
    static func contentType(of format: OutputFileFormat) -> String {
        switch format {
        case .m4a: return "audio/mp4"
        case .oggVorbis: return "audio/ogg"
        case .opus: return "audio/ogg; codecs=opus"
        case .mp3: return "audio/mpeg"
        case .flac: return "audio/flac"
        case .wav: return "audio/wav"
        case .caf: return "audio/x-caf"
        case .aiff: return "audio/aiff"
        }
    }
}

/// The body of a webhook call (Standard Webhooks' shape: `type`, `timestamp`, `data`): the render's id, its
/// final state, and its error or result, as `GET /v1/renders/{id}` gives them.
enum WebhookPayload {
    static func document(for job: JobRecord, at time: Date) -> JSONValue {
        var data: [JSONValue.Member] = [.init("id", .string(job.id)), .init("state", .string(job.state.rawValue)),
                                        .init("format", .string(job.format)), .init("name", .string(job.name))]
        if let problem = job.problem, let value = try? JSONValue.parse(problem) { data.append(.init("error", value)) }
        if let result = job.result, let value = try? JSONValue.parse(result) { data.append(.init("result", value)) }
        data.append(.init("links", .object(JSONObject(RenderLinks(id: job.id).members))))
        return .object(JSONObject([
            .init("type", .string("render.\(job.state.rawValue)")),
            .init("timestamp", .string(ISO8601DateFormatter().string(from: time))),
            .init("data", .object(JSONObject(data))),
        ]))
    }
}

/// Where a render's parts are, relative to the server's root: the API's `links` and the webhook's.
struct RenderLinks: Sendable {
    var id: String
    var base: String { "/v1/renders/\(id)" }
    var schema: Components.Schemas.Links {
        .init(_self: base, events: base + "/events", audio: base + "/audio", waveform: base + "/waveform",
              timeline: base + "/timeline", report: base + "/report")
    }
    var members: [JSONValue.Member] {
        [.init("self", .string(base)), .init("events", .string(base + "/events")), .init("audio", .string(base + "/audio")),
         .init("waveform", .string(base + "/waveform")), .init("timeline", .string(base + "/timeline")),
         .init("report", .string(base + "/report"))]
    }
}
