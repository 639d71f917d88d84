import Foundation
import MixIO
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
        /// The quality or bitrate it was encoded at (a lossy format).
        var quality: Double? = nil
        var bitrateKbps: Int? = nil
        /// Its rate and channels (an output's own, converted from the render's, or the render's); nil in a result
        /// stored before they were.
        var sampleRate: Int? = nil
        var channels: Int? = nil
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
    /// The voices heard, in the order first heard, for an app's credits (the API's `VoiceCredit`); nil in a result
    /// stored before they were.
    var voices: [VoiceCredit]?

    /// The result of render `id`, whose report lists its outputs (the first is the render's `format`), each written in
    /// the result's folder as `fileName(format)`.
    init(id: String, report: RenderReport, render: PresetRender, fileName: (OutputFileFormat) -> String, warnings: [String]) {
        func rounded(_ value: Double) -> Double? { value.isFinite ? (value * 100).rounded() / 100 : nil }
        outputs = report.outputs.map { output in
            let format = output.result.output.settings.format
            let loudness = output.result.outputLoudness   // what the file holds (decoded, for a lossy one)
            let settings = output.result.output.settings
            let lossy = !format.isPCM && format != .flac
            return Output(format: format.fileExtension, id: output.fileKey ?? report.key.audio, file: fileName(format),
                          bytes: Int(output.result.outputBytes ?? 0), sha256: output.sha256, contentType: Self.contentType(of: format),
                          integratedLoudness: rounded(loudness.integrated), truePeakDb: rounded(loudness.truePeak),
                          url: RenderLinks.base(of: id) + "/audio/" + format.fileExtension,
                          quality: lossy && settings.bitrateKbps == nil && format != .m4a ? settings.vorbisQuality : nil,
                          bitrateKbps: lossy ? settings.bitrateKbps : nil,
                          sampleRate: settings.sampleRate, channels: settings.channelCount)
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
        voices = report.job.plan.timeline.voices.map(VoiceCredit.init)
    }

    /// The file of the output in `format` (its extension): the first output's for a result stored before outputs were.
    func output(format: String) -> Output? {
        guard let outputs else {
            // Stored before outputs were: its one file is `audio.<format>`.
            guard file == "audio." + format else { return nil }
            return Output(format: format, id: "", file: file, bytes: bytes, sha256: sha256, contentType: contentType,
                          integratedLoudness: integratedLoudness, truePeakDb: truePeakDb, url: "")
        }
        return outputs.first { $0.format == format }
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
    /// `render.<state>`, sent when the render finishes.
    static func document(for job: JobRecord, at time: Date) -> JSONValue {
        document(type: "render.\(job.state.rawValue)", for: job, uploads: nil, at: time)
    }

    /// Sent when the last of an owner's uploads settles: `render.delivered` when each was delivered, else
    /// `render.delivery_failed`; `data.deliveries` says what became of each.
    static func document(for job: JobRecord, uploads: [FileUpload], at time: Date) -> JSONValue {
        let type = uploads.allSatisfy { $0.state == .delivered } ? "render.delivered" : "render.delivery_failed"
        return document(type: type, for: job, uploads: uploads, at: time)
    }

    /// An upload as the status and the webhook show it (a `DeliveryStatus`): the URL without its query (a pre-signed URL's credentials).
    static func members(of upload: FileUpload) -> [JSONValue.Member] {
        var members: [JSONValue.Member] = [
            .init("output", .string(upload.destination.output)), .init("url", .string(upload.destination.shownURL)),
            .init("method", .string(upload.destination.method)), .init("state", .string(upload.state.rawValue)),
            .init("attempts", .number(Double(upload.attempts))),
        ]
        if let status = upload.lastStatus { members.append(.init("status", .number(Double(status)))) }
        if let error = upload.lastError { members.append(.init("error", .string(error))) }
        if let next = upload.nextAttemptAt, upload.state == .pending {
            members.append(.init("nextAttemptAt", .string(ISO8601DateFormatter().string(from: next))))
        }
        if let finished = upload.finishedAt { members.append(.init("finishedAt", .string(ISO8601DateFormatter().string(from: finished)))) }
        return members
    }

    private static func document(type: String, for job: JobRecord, uploads: [FileUpload]?, at time: Date) -> JSONValue {
        var data: [JSONValue.Member] = [.init("id", .string(job.id)), .init("state", .string(job.state.rawValue)),
                                        .init("format", .string(job.format)), .init("name", .string(job.name))]
        if let problem = job.problem, let value = try? JSONValue.parse(problem) { data.append(.init("error", value)) }
        if let result = job.result, let value = try? JSONValue.parse(result) { data.append(.init("result", value)) }
        if let uploads { data.append(.init("deliveries", .array(uploads.map { .object(JSONObject(members(of: $0))) }))) }
        data.append(.init("links", .object(JSONObject(RenderLinks(id: job.id, streams: RenderSpec.streams(storedRequest: job.request)).members))))
        return .object(JSONObject([
            .init("type", .string(type)),
            .init("timestamp", .string(ISO8601DateFormatter().string(from: time))),
            .init("data", .object(JSONObject(data))),
        ]))
    }
}

/// Where a render's parts are, relative to the server's root: the API's `links` and the webhook's.
struct RenderLinks: Sendable {
    var id: String
    /// Whether the render is also written as HLS (its request's `stream`).
    var streams: Bool
    var base: String { Self.base(of: id) }
    /// Where render `id` is, relative to the server.
    static func base(of id: String) -> String { "/v1/renders/\(id)" }
    var stream: String? { streams ? base + "/stream/index.m3u8" : nil }
    var schema: Components.Schemas.Links {
        .init(stream: stream, _self: base, events: base + "/events", audio: base + "/audio",
              waveform: base + "/waveform", timeline: base + "/timeline", report: base + "/report")
    }
    var members: [JSONValue.Member] {
        [.init("self", .string(base)), .init("events", .string(base + "/events")), .init("audio", .string(base + "/audio")),
         .init("waveform", .string(base + "/waveform")), .init("timeline", .string(base + "/timeline")),
         .init("report", .string(base + "/report"))] + (stream.map { [.init("stream", .string($0))] } ?? [])
    }
}
