import Foundation
import MixDSP
import MixIO

/// Settings given on the command line that take precedence over the preset.
/// A value of optional numbers and a quality; allocates nothing. `Sendable`, safe to share.
public struct RenderOverrides: Sendable {
    public var durationSeconds: Double?
    public var sampleRate: Int?
    public var quality: Double?
    public var resampler: ResamplerQuality?
    /// Render only this part of the timeline, in seconds: `[start, end)`.
    public var startSeconds: Double?
    public var endSeconds: Double?
    public init(durationSeconds: Double? = nil, sampleRate: Int? = nil, quality: Double? = nil, resampler: ResamplerQuality? = nil) {
        self.durationSeconds = durationSeconds; self.sampleRate = sampleRate
        self.quality = quality; self.resampler = resampler
    }
}

/// What `mixrender render` produced.
/// A value: the summary, the output's path and its size; allocates only the path. `Sendable`, safe to share.
public struct RenderResult: Sendable {
    public var summary: RenderSummary
    public var outputPath: String
    public var outputBytes: Int64
}

/// A preset loaded, checked and planned: everything that can be wrong with it has been found.
///
/// A value (`Sendable`, safe to share): the preset's path, the `Preset`, the `RenderPlan` and the range.
/// `init` allocates them (reading the preset, opening every source file once); each `render` builds its
/// own state (see `Renderer`), so renders of one job to different paths may run on several threads.
public struct RenderJob: Sendable {
    public let presetPath: String
    public let preset: Preset
    public let plan: RenderPlan

    /// Loads the preset, applies the overrides and plans it, opening every source file. Overrides are
    /// checked by the same rules as the preset's own values (an `EngineError.setting` naming the setting).
    public init(presetPath: String, overrides: RenderOverrides = RenderOverrides()) throws {
        try Self.check(overrides)
        // The length is checked with the preset (fades that fit, tracks that start in time), as if written there.
        var preset = try PresetLoader.load(path: presetPath, durationSeconds: overrides.durationSeconds)
        if let r = overrides.sampleRate { preset.output.sampleRate = r }
        if let q = overrides.quality { preset.output.quality = q }
        if let r = overrides.resampler { preset.output.resampler = r }
        self.presetPath = presetPath
        self.preset = preset
        self.plan = try Planner(presetFile: presetPath).plan(preset)
        let rate = Double(plan.sampleRate)
        let first = Int64(((overrides.startSeconds ?? 0) * rate).rounded())
        let last = overrides.endSeconds.map { Int64(($0 * rate).rounded()) } ?? plan.frameCount
        guard first < plan.frameCount else {
            throw EngineError.setting(.start, reason: "\(overrides.startSeconds ?? 0) s is not before the end of the render (\(plan.durationSeconds) s)")
        }
        guard last > first else { throw EngineError.setting(.end, reason: "must be after \(setting: .start)") }
        self.range = first..<min(last, plan.frameCount)
    }

    /// The overrides' own limits, as the preset reader applies them to the same values.
    static func check(_ o: RenderOverrides) throws {
        let t = TimeParser.string(fromSeconds:)
        let limit = "longer than 100h, the longest time mixrender takes"
        if let d = o.durationSeconds {
            guard d.isFinite && d > 0 else { throw EngineError.setting(.duration, reason: "must be longer than 0") }
            guard d <= TimeParser.maximumSeconds else { throw EngineError.setting(.duration, reason: "\(t(d)) is \(limit)") }
        }
        for (setting, seconds) in [(EngineSetting.start, o.startSeconds), (.end, o.endSeconds)] {
            guard let seconds else { continue }
            guard seconds.isFinite && seconds >= 0 else { throw EngineError.setting(setting, reason: "must not be negative") }
            guard seconds <= TimeParser.maximumSeconds else { throw EngineError.setting(setting, reason: "\(t(seconds)) is \(limit)") }
        }
        if let rate = o.sampleRate, !OutputSpec.sampleRates.contains(rate) {
            throw EngineError.setting(.sampleRate, reason: "must be between \(OutputSpec.sampleRates.lowerBound) and \(OutputSpec.sampleRates.upperBound) Hz")
        }
        if let quality = o.quality, !(quality.isFinite && OutputSpec.qualities.contains(quality)) {
            throw EngineError.setting(.quality, reason: "must be between 0 and 1")
        }
    }

    /// The file format and settings for writing to `path`, checked before anything is rendered.
    public func outputSettings(for path: String) throws -> OutputSettings {
        guard let format = OutputFileFormat.from(path: path) else {
            throw EngineError.output(path: path, reason: "unknown output extension; use .ogg, .flac, .wav or .mp3")
        }
        let tags = preset.output.tags
        var settings = OutputSettings(format: format, sampleRate: plan.sampleRate, channelCount: plan.channelCount,
                                      sampleFormat: preset.output.sampleFormat, vorbisQuality: preset.output.quality,
                                      title: tags.title ?? preset.name, artist: tags.artist, comment: tags.comment)
        settings.expectedFrameCount = Int64(range.count)
        if let problem = SoundFileWriter.validate(settings: settings) {
            throw EngineError.output(path: path, reason: "\(problem)")
        }
        try checkNotAnInput(path)
        return settings
    }

    /// Refuses an output that is one of the render's inputs (a source file or the preset), however it is
    /// reached: the same path, through `..`, a symbolic link or a hard link (the same device and inode).
    /// Writing there would replace the input with the render. A path that does not exist yet is fine.
    public func checkNotAnInput(_ path: String) throws {
        guard let output = FileSystem.identity(of: path) else { return }
        if let preset = FileSystem.identity(of: presetPath), preset.isSameFile(as: output) {
            throw EngineError.output(path: path, reason: "it is the preset being rendered")
        }
        for (source, info) in plan.sourceFiles.sorted(by: { $0.key < $1.key }) {
            if let identity = info.identity, identity.isSameFile(as: output) {
                throw EngineError.output(path: path, reason: "it is one of the render's sources ('\(source)'); writing there would destroy it")
            }
        }
    }

    /// The frames to render: all of them, or the part the overrides ask for.
    public let range: Range<Int64>

    /// The chapter marks the output carries: a session's sections that fall in the rendered range, each
    /// from its start (or the range's) relative to the range's start.
    public var chapters: [Chapters.Mark] {
        plan.timeline.sections.compactMap { section in
            guard section.end > range.lowerBound && section.start < range.upperBound else { return nil }
            return Chapters.Mark(name: section.name, frame: max(section.start, range.lowerBound) - range.lowerBound, sampleRate: plan.sampleRate)
        }
    }

    /// Renders to `path` through a temporary file beside it, renamed into place when complete.
    /// `extraSinks` receive the same interleaved frames as the file, on the encoder's thread (a waveform
    /// analyser, say); `taps` listen at other points of the master chain. `material` shares decoded
    /// sources with other renders (see `Renderer.render`).
    public func render(to path: String, blockFrames: Int = 4096, extraSinks: [AudioEncoder] = [],
                       taps: [RenderTap] = [], material: PreparedMaterial? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderResult {
        let settings = try outputSettings(for: path)
        let output = try AtomicOutputFile(destination: path)
        do {
            let writer = try SoundFileWriter(path: output.temporaryPath, settings: settings, displayPath: path)
            let sink: AudioEncoder = extraSinks.isEmpty ? writer : TeeEncoder([writer] + extraSinks)
            let summary = try Renderer(plan: plan, blockFrames: blockFrames).render(to: sink, range: range, material: material,
                                                                             taps: taps, progress: progress)
            // Chapter marks and ReplayGain, as Vorbis comments where the format has them.
            let comments = Chapters.comments(chapters) + ReplayGain.comments(summary.loudness)
            if !comments.isEmpty && settings.format.carriesVorbisComments {
                do { try FileTags.write(path: output.temporaryPath, format: settings.format, fields: comments) } catch {
                    throw EngineError.output(path: path, reason: "cannot write its chapters and ReplayGain tags: \(error)")
                }
            }
            try output.commit()
            let size = FileSystem.identity(of: path)?.size ?? 0
            return RenderResult(summary: summary, outputPath: path, outputBytes: size)
        } catch {
            output.discard()
            throw error
        }
    }
}
