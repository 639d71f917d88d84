import MixEngine
import MixIO

/// A preset loaded, checked and planned with its overrides, ready to render: the library's entry point
/// (docs/library.md).
///
/// Making one is `mixrender validate`: the preset is loaded, analysed (its source files probed once, its speech
/// said, its recordings measured) and planned, and everything that can be wrong with it (its JSON, its values, its
/// source files) is found, as an `EngineError` (`.preset` names the JSON path), before any
/// audio is written. Then it renders, as often as asked, to a file (through a temporary file beside it, renamed
/// when complete), to an open file descriptor, or as an `AsyncSequence` of encoded bytes.
///
/// Renders are `async`: each runs on a thread of its own (not Swift's cooperative pool, which it would hold for
/// the render's length), and stops within a block when its task is cancelled, leaving the output as if never
/// started (no file, no temporary file) and throwing `CancellationError`.
///
/// A value (`Sendable`, safe to share): the engine's `RenderJob`. Several renders of one `PresetRender` may run at
/// once, to different outputs.
@available(macOS 15.0, *)
public struct PresetRender: Sendable {
    let job: RenderJob
    /// Frames per block of the render loop (the CLI's hidden `--block-frames`); the output does not depend on it.
    package var blockFrames = 4096
    /// Threads that mix the sounds (the CLI's `--threads`): with more than one, worker threads mix ahead of the
    /// render's own, which runs the master chain and hands the encoder its blocks. The output is the same bit for
    /// bit whatever the count; it costs a few MiB of buffers per thread. Below 1 counts as 1.
    public var threads = 1
    /// Decoded sources shared with other renders in this process (a server's, as a batch shares them); nil: this
    /// render decodes its own.
    package var material: PreparedMaterial? = nil

    /// Loads the preset file at `path` (relative source paths are taken from its folder) with `overrides`.
    /// A template's `variables` fill it (docs/templates.md).
    public init(presetFile path: String, overrides: RenderOverrides = RenderOverrides(), variables: [String: JSONValue]? = nil) throws {
        job = try LibraryError.wrapping(output: nil) { try RenderJob(presetPath: path, overrides: overrides, variables: variables) }
    }

    /// Loads a preset held in memory: `json` is the document's UTF-8 bytes, `name` what errors and warnings call it,
    /// `baseDirectory` the folder its relative source paths are taken from (empty: the current folder).
    public init(json: [UInt8], name: String = "preset", baseDirectory: String = "",
                overrides: RenderOverrides = RenderOverrides()) throws {
        job = try LibraryError.wrapping(output: nil) {
            try RenderJob(presetJSON: json, name: name, baseDirectory: baseDirectory, overrides: overrides)
        }
    }

    /// Loads a preset given as a value: a `JSONValue` a program built (its literals: `["duration": "30m", "tracks":
    /// [["rain": ["intensity": 0.6]]]]`) or changed, read by the same rules as a file, with errors naming the JSON
    /// path; `name` and `baseDirectory` as for `init(json:)`.
    public init(preset: JSONValue, name: String = "preset", baseDirectory: String = "",
                overrides: RenderOverrides = RenderOverrides()) throws {
        job = try LibraryError.wrapping(output: nil) {
            try RenderJob(preset: preset, name: name, baseDirectory: baseDirectory, overrides: overrides)
        }
    }

    /// Loads, analyses and plans the preset file at `path` as `init(presetFile:overrides:)` does, on a thread of its own
    /// (the analysis synthesises speech and decodes recordings, which can take seconds), and cancellably: when the
    /// task is cancelled, the analysis stops before its next request (a file, a text, a recording) and this throws
    /// `CancellationError`; nothing is written.
    public static func prepare(presetFile path: String, overrides: RenderOverrides = RenderOverrides()) async throws -> PresetRender {
        try await prepared { analyzer in try RenderJob(presetPath: path, overrides: overrides, analyzer: analyzer) }
    }

    /// Loads a preset given as a value as `init(preset:name:baseDirectory:overrides:)` does, cancellably, as
    /// `prepare(presetFile:overrides:)` does. `sources`, when given, names the preset's files instead of
    /// `baseDirectory`: a server's sounds, named by hash or within its operator's folders (`SourceResolver`).
    public static func prepare(preset: JSONValue, name: String = "preset", baseDirectory: String = "",
                               overrides: RenderOverrides = RenderOverrides(),
                               sources: SourceResolver? = nil) async throws -> PresetRender {
        try await prepare(preset: preset, name: name, baseDirectory: baseDirectory, overrides: overrides,
                          sources: sources, material: nil)
    }

    /// `prepare(preset:name:baseDirectory:overrides:sources:)` with `material`: what the analysis makes (speech said,
    /// recordings measured) is kept there for the next render, and the returned render takes its sources from there,
    /// as every render given the same material does (a server's renders share one).
    public static func prepare(preset: JSONValue, name: String = "preset", baseDirectory: String = "",
                               overrides: RenderOverrides = RenderOverrides(), sources: SourceResolver? = nil,
                               material: RenderMaterial?) async throws -> PresetRender {
        var render = try await prepared(material: material?.prepared) { analyzer in
            try RenderJob(preset: preset, name: name, baseDirectory: baseDirectory, overrides: overrides,
                          sources: sources, analyzer: analyzer)
        }
        render.material = material?.prepared
        return render
    }

    /// Loads a preset held in memory as `init(json:name:baseDirectory:overrides:)` does, cancellably, as
    /// `prepare(presetFile:overrides:)` does.
    public static func prepare(json: [UInt8], name: String = "preset", baseDirectory: String = "",
                               overrides: RenderOverrides = RenderOverrides()) async throws -> PresetRender {
        try await prepared { analyzer in
            try RenderJob(presetJSON: json, name: name, baseDirectory: baseDirectory, overrides: overrides, analyzer: analyzer)
        }
    }

    /// `make` run on a thread of its own with an analyzer that stops when the task is cancelled: the cancellation
    /// handler sets a flag the analysis reads at each request's boundary, on whichever thread runs it.
    private static func prepared(material: PreparedMaterial? = nil,
                                 _ make: @escaping @Sendable (Analyzer) throws -> RenderJob) async throws -> PresetRender {
        let cancelled = Locked(false)
        let job = try await withTaskCancellationHandler {
            try await RenderThread.run {
                try LibraryError.wrapping(output: nil) {
                    try make(Analyzer(material: material, isCancelled: { cancelled.withLock { $0 } }))
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
        return PresetRender(job: job)
    }

    /// Wraps a job the package's own code (the CLI) planned.
    package init(job: RenderJob) { self.job = job }

    /// The preset's name in errors and warnings: its path, or the name it was given.
    public var name: String { job.presetPath }
    /// What planning found worth saying (one line each, naming the JSON path): a source shorter than its fades,
    /// a master fade left out of a loopable render, ...
    public var warnings: [String] { job.plan.warnings }
    /// The output's sample rate, in Hz.
    public var sampleRate: Int { job.plan.sampleRate }
    /// The output's channels.
    public var channelCount: Int { job.plan.channelCount }
    /// Frames the output will have (the part of the timeline asked for, `RenderOverrides.startSeconds`/`endSeconds`).
    public var frameCount: Int64 { Int64(job.range.count) }
    /// The output's length, in seconds.
    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
    /// The render's timeline, in frames of the whole render.
    public var timeline: Timeline { job.plan.timeline }
    /// The timeline as the CLI's `--timeline` writes it (JSON, seconds from the rendered part's start).
    public var timelineJSON: String { TimelineJSON.document(job.plan.timeline, range: job.range) }

    /// Checks an output file before rendering (its extension picks the format; its settings, tags and the
    /// binaural rule; that it is none of the files the render reads) and returns what it will not keep of what the
    /// preset asks (tags, chapters, ReplayGain), one warning line each. `render(toFile:)` checks the same.
    public func check(outputFile path: String, encoding: OutputEncoding? = nil) throws -> [String] {
        try LibraryError.wrapping(output: path) { try job.outputPlan(to: .file(path: path), encoding: encoding).warnings }
    }

    /// Renders to the file `path`, its format picked by its extension, through a temporary file beside it that
    /// is renamed into place when complete (tags, chapters and ReplayGain written first). On an error or
    /// cancellation nothing is left at `path` (a file that was there stays as it was).
    ///
    /// - Parameter progress: where to yield `RenderProgress` values; finished when the render ends.
    public func render(toFile path: String, progress: AsyncStream<RenderProgress>.Continuation? = nil) async throws -> RenderResult {
        defer { progress?.finish() }
        let job = job, blockFrames = blockFrames, threads = max(1, threads), total = frameCount, rate = sampleRate, material = material
        return try await RenderThread.run {
            try LibraryError.wrapping(output: path) {
                let reporter = ProgressReporter(progress, totalFrames: total, sampleRate: rate)
                return try job.render(to: path, blockFrames: blockFrames, threads: threads, material: material, progress: reporter.callback)
            }
        }
    }

    /// Renders once to every one of `paths` (several files of one render: an `.m4a` to download, an `.opus` to stream,
    /// a `.flac` to keep), each format picked by its extension: the mix is made once and every encoder is fed from it
    /// on a thread of its own, so it takes about the slowest encoder's time on a machine with cores to spare. Each file
    /// is the one `render(toFile:)` writes alone (a lossy file normalised to a loudness is measured and written again
    /// alone if it missed). None is renamed into place until all are done; on an error or cancellation none is left.
    /// Results come in the order of `paths`.
    /// `encodings`, when given, holds each file's own quality or bitrate (nil: the preset's), in the order of `paths`.
    /// `stream`, when given, is also written as it renders: HTTP Live Streaming in its folder (`LiveStream`).
    /// `waveforms`, when given, are waveform files (each format by its extension, `.json`, `.png`, `.svg`, `.dat`)
    /// made from the render's output as it is written (a tap: what `mixrender waveform` of a lossless file would
    /// draw, with no decoding), in one analysis for all of them; they are written once the audio is.
    public func render(toFiles paths: [String], encodings: [OutputEncoding?]? = nil, stream: LiveStream? = nil,
                       waveforms: [String] = [],
                       progress: AsyncStream<RenderProgress>.Continuation? = nil) async throws -> [RenderResult] {
        defer { progress?.finish() }
        let job = job, blockFrames = blockFrames, threads = max(1, threads), total = frameCount, rate = sampleRate, material = material
        return try await RenderThread.run {
            try LibraryError.wrapping(output: paths.first) {
                let outputs = try paths.enumerated().map { index, path in
                    try job.outputPlan(to: .file(path: path), encoding: encodings?[index])
                }
                let recording = WaveformRecording(plans: try waveforms.map { path in
                    try WaveformPlan(output: path, options: WaveformOptions(), sampleRate: job.plan.sampleRate,
                                     channelCount: job.plan.channelCount, frameCount: Int64(job.range.count))
                })
                try job.checkWrites(paths.map { ($0, "the output") } + recording.recorders.flatMap(\.plan.destinations).map { ($0, "a waveform") })
                let channels = job.plan.channelCount
                let taps = try (stream.map { [try $0.tap(job: job, blockFrames: blockFrames)] } ?? [])
                    + (waveforms.isEmpty ? [] : [recording.renderTap(channelCount: channels, blockFrames: blockFrames)])
                let reporter = ProgressReporter(progress, totalFrames: total, sampleRate: rate)
                let results = try job.render(outputs, blockFrames: blockFrames, threads: threads, taps: taps, material: material,
                                             progress: reporter.callback)
                try stream?.finish()
                try recording.writeOutputs()
                return results
            }
        }
    }

    /// Renders to `path` as `render(toFile:progress:)` does, and makes its report: the inputs hashed before the
    /// render, the output after, levels, timings, the cache key (`RenderReport.document` is the JSON of
    /// `mixrender render --report`).
    public func renderWithReport(toFile path: String,
                                 progress: AsyncStream<RenderProgress>.Continuation? = nil) async throws -> RenderReport {
        let job = job
        let inputs = try LibraryError.wrapping(output: path) { try RenderReport.Inputs(job: job, output: path) }
        let result = try await render(toFile: path, progress: progress)
        return try await RenderThread.run {
            try LibraryError.wrapping(output: path) { try RenderReport(job: job, result: result, inputs: inputs) }
        }
    }

    /// Renders once to every one of `paths` as `render(toFiles:progress:)` does, and makes its report: `output` is the
    /// first file, and `outputs` lists each with its SHA-256 and file key.
    public func renderWithReport(toFiles paths: [String], encodings: [OutputEncoding?]? = nil, stream: LiveStream? = nil,
                                 waveforms: [String] = [],
                                 progress: AsyncStream<RenderProgress>.Continuation? = nil) async throws -> RenderReport {
        let job = job
        let inputs = try LibraryError.wrapping(output: paths.first) { try RenderReport.Inputs(job: job, output: paths.first ?? "") }
        let results = try await render(toFiles: paths, encodings: encodings, stream: stream, waveforms: waveforms, progress: progress)
        return try await RenderThread.run {
            try LibraryError.wrapping(output: paths.first) { try RenderReport(job: job, results: results, inputs: inputs) }
        }
    }

    /// Renders into the open file descriptor `descriptor` (a pipe, a socket, a file), encoded as `format`, which
    /// must be one that never seeks back (Ogg Vorbis, Opus, MP3, FLAC: `OutputFileFormat.streamRefusal` says why
    /// not). The descriptor is neither closed nor rewound. A stream carries only what its encoder writes at its
    /// start (`streamWarnings`); on an error or cancellation it is cut short.
    public func render(toFileDescriptor descriptor: Int32, format: OutputFileFormat, name: String = "the stream",
                       progress: AsyncStream<RenderProgress>.Continuation? = nil) async throws -> RenderResult {
        defer { progress?.finish() }
        let job = job, blockFrames = blockFrames, threads = max(1, threads), total = frameCount, rate = sampleRate
        return try await RenderThread.run {
            try LibraryError.wrapping(output: name) {
                let reporter = ProgressReporter(progress, totalFrames: total, sampleRate: rate)
                return try job.render(toStream: descriptor, format: format, name: name, blockFrames: blockFrames,
                                      threads: threads, progress: reporter.callback)
            }
        }
    }

    /// What a stream in `format` will not carry of what the preset asks (tags, chapters, ReplayGain), one warning
    /// line each; throws when the format cannot stream, or its settings cannot work.
    public func streamWarnings(format: OutputFileFormat, name: String = "the stream") throws -> [String] {
        try LibraryError.wrapping(output: name) {
            // No descriptor yet (-1): warned as for a pipe, which is not a regular file.
            try job.outputPlan(to: .stream(descriptor: -1, format: format, name: name)).warnings
        }
    }

    /// The render encoded as `format` (a format that streams, as for `render(toFileDescriptor:)`), as an
    /// `AsyncSequence` of byte chunks; the render starts when iteration does and keeps pace with it. The format
    /// and settings are checked here, before anything renders. See `EncodedAudioBytes`.
    public func encodedBytes(format: OutputFileFormat,
                             progress: AsyncStream<RenderProgress>.Continuation? = nil) throws -> EncodedAudioBytes {
        _ = try streamWarnings(format: format)
        return EncodedAudioBytes(render: self, format: format, progress: progress)
    }

    /// The render's cache key (docs/report.md, "Cache key"; `mixrender key`), its source files hashed now: the audio
    /// key (the same for every output format), or with `format` the file key of an output in that format (the
    /// report's `cacheKey.file`). The same preset, overrides, sources and version give the same key, so a caller can
    /// look a render up before making it.
    public func cacheKey(format: OutputFileFormat? = nil) throws -> String {
        try LibraryError.wrapping(output: nil) {
            let key = try job.cacheKey(inputs: try InputFile.hashAll(job.plan), format: format)
            return key.file ?? key.audio
        }
    }

    /// The file keys of outputs in each of `formats` (as `cacheKey(format:)` gives each), the sources hashed once.
    /// `encodings`: each output's own quality or bitrate (nil: the preset's), in the order of `formats`.
    public func cacheKeys(formats: [OutputFileFormat], encodings: [OutputEncoding?]? = nil) throws -> [String] {
        try LibraryError.wrapping(output: nil) {
            let inputs = try InputFile.hashAll(job.plan)
            return try formats.enumerated().map { index, format in
                let key = try job.cacheKey(inputs: inputs, format: format, encoding: encodings?[index])
                return key.file ?? key.audio
            }
        }
    }

    /// The text the cache key is the SHA-256 of (the audio part, then with `format` the encoding part): the plan,
    /// the sources' digests and the output settings, one fact a line, for a caller finding out why two keys differ.
    public func cacheKeyText(format: OutputFileFormat? = nil) throws -> String {
        try LibraryError.wrapping(output: nil) {
            let digests = Dictionary(try InputFile.hashAll(job.plan).map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
            var text = try CacheKey.audioText(plan: job.plan, range: job.range, digests: digests)
            if let format { text += CacheKey.encodingText(job.outputSettings(format: format), chapters: job.chapters, conversion: nil) }
            return text
        }
    }

    /// The chapter marks the output will carry (the preset's `chapters`, else a session's sections), those in the
    /// rendered part, each from its start relative to the part's.
    public var chapters: [ChapterMark] { job.chapters }

    /// The tracks the render plays, a session's bed's among them.
    public var trackCount: Int { job.preset.tracks.count }
}
