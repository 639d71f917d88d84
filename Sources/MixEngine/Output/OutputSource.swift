import MixIO

/// What an output is written from: the facts of a render that its settings, checks, warnings and finishing steps
/// read, as plain values, so that outputs sit below the job that runs them (`RenderJob.outputSource`).
/// A value (`Sendable`, safe to share): strings, numbers, the chapter marks and the reads; allocates only those.
public struct OutputSource: Sendable {
    /// The preset's path, which errors and warnings name.
    public var presetPath: String
    /// The preset's name (the output's title tag) and its `output` object: bit depth, quality, bitrate, tags.
    public var title: String?
    public var output: OutputSpec
    /// The render's rate and channels, and how many frames it writes.
    public var sampleRate: Int
    public var channelCount: Int
    public var frameCount: Int64
    /// The chapter marks the output carries (`RenderJob.chapters`), and whether the preset listed them itself
    /// (`chapters`) rather than a session's sections giving them.
    public var chapters: [ChapterMark]
    public var listsChapters: Bool
    /// The loudness the output is normalised to; nil when it is not.
    public var loudness: LoudnessSpec?
    /// The master limiter's ceiling, in dBFS (dBTP with true-peak detection).
    public var limiterCeilingDb: Double
    /// Whether the mix holds binaural beats, which an encoder that merges the channels would lose.
    public var needsSeparateChannels: Bool
    /// Which window of the whole render this is, written into the tags; nil for the whole render.
    public var window: WindowMark?
    /// What the render reads (its preset, beds and sources), which no output may overwrite.
    public var reads: FileAccess

    /// What measures the output's loudness (a lossy file's, once decoded).
    public var measuring: LoudnessMeasuring { LoudnessMeasuring(presetFile: presetPath) }

    /// The settings for writing the render in `format` (not checked against the writer's limits).
    public func settings(format: OutputFileFormat) -> OutputSettings {
        var settings = OutputSettings(format: format, sampleRate: sampleRate, channelCount: channelCount,
                                      sampleFormat: output.sampleFormat, vorbisQuality: output.quality, title: title)
        for field in output.tags.fields { settings.tagFields.set(field.key, field.values) }
        if let window { settings.tagFields.set(WindowMark.tagKey, window.text) }
        settings.bitrateKbps = output.bitrateKbps
        settings.expectedFrameCount = frameCount
        settings.tagsWrittenAfterwards = FileTags.canWrite(format) && !settings.wavNeedsRF64   // see TagWriting
        if settings.tagsWrittenAfterwards {
            settings.tagRoomBytes = TagLimits.room(format: format, fields: settings.tagFields,
                                                   extra: format.carriesVorbisComments ? Chapters.comments(chapters) : [],
                                                   chapterNames: chapters.map(\.name))
        }
        return settings
    }

    /// Refuses writing any of `outputs` (each a path and what it is: `"the output"`, `"\(setting: .timeline)"`)
    /// where the render reads (its preset, a bed, a source, however reached: `..`, a symbolic or hard link) or
    /// where another of them writes (`FileAccess`). Nothing has been written when it throws.
    public func checkWrites(_ outputs: [(path: String, what: EngineReason)]) throws {
        var access = reads
        for output in outputs { access.writes(output.path, as: output.what) }
        try access.check()
    }
}
