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
    /// The output's own rate and channels, converted from the render's (`OutputConversion`); nil: the render's.
    public var conversion: OutputConversion?

    /// This source with `encoding` in place of the preset's quality and bitrate (one output's own, among several),
    /// and its rate and channels where they differ from the render's (a conversion of the mix, with its chapter
    /// marks moved to the new rate).
    public func encoded(_ encoding: OutputEncoding?) -> OutputSource {
        guard let encoding else { return self }
        var source = self
        if let quality = encoding.quality {
            source.output.quality = quality
            source.output.bitrateKbps = nil
        }
        if let bitrate = encoding.bitrateKbps { source.output.bitrateKbps = bitrate }
        var conversion = OutputConversion(fromRate: sampleRate, channels: channelCount,
                                          toRate: encoding.sampleRate ?? sampleRate, channels: encoding.channelCount ?? channelCount)
        if let target = encoding.loudnessLUFS, var spec = loudness, target <= spec.targetLUFS {
            // A quieter file is the render turned down after its limiter (`ownLoudnessRefusal`).
            conversion.gainDb = target - spec.targetLUFS
            spec.targetLUFS = target
            source.loudness = spec
        }
        if !conversion.isIdentity {
            source.conversion = conversion
            source.chapters = chapters.map(conversion.converted)
        }
        return source
    }

    /// Why `encoding`'s own loudness target cannot be, or nil. An output's own target may be the render's or quieter:
    /// the render is normalised to its target through its limiter, and a quieter file is that render turned down by the
    /// difference after it (its loudness lower by exactly as much, its true peak too, with the same limiting). A louder
    /// one would need a limiter of its own: the render is given the loudest target instead.
    public func ownLoudnessRefusal(_ encoding: OutputEncoding?) -> EngineReason? {
        guard let target = encoding?.loudnessLUFS else { return nil }
        guard let spec = loudness else {
            return "a loudness of its own (\(String(format1: target)) LUFS) needs the render normalised; give the render the loudest target (the preset's output.loudness, or \(setting: .loudness)) and each quieter file its own"
        }
        guard target <= spec.targetLUFS else {
            return "its loudness \(String(format1: target)) LUFS is louder than the render's \(String(format1: spec.targetLUFS)) LUFS; give the render the loudest target and each quieter file its own"
        }
        return nil
    }

    /// What measures the output's loudness (a lossy file's, once decoded).
    public var measuring: LoudnessMeasuring { LoudnessMeasuring(presetFile: presetPath) }

    /// The settings for writing the render in `format` (not checked against the writer's limits).
    public func settings(format: OutputFileFormat) -> OutputSettings {
        var settings = OutputSettings(format: format, sampleRate: conversion?.outputRate ?? sampleRate,
                                      channelCount: conversion?.outputChannels ?? channelCount,
                                      sampleFormat: output.sampleFormat, vorbisQuality: output.quality, title: title)
        for field in output.tags.fields { settings.tagFields.set(field.key, field.values) }
        if let window { settings.tagFields.set(WindowMark.tagKey, window.text) }
        settings.bitrateKbps = output.bitrateKbps
        settings.expectedFrameCount = conversion?.outputFrames(frameCount) ?? frameCount
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

/// One output's own encoding among several outputs of a render (a smaller stream beside the download): a quality or a
/// bitrate in place of the preset's, and a rate and channel count of its own, for that file alone. Checked against the
/// format as the preset's would be. Its rate and channels are a conversion of the mix (`OutputConversion`).
public struct OutputEncoding: Sendable, Equatable, Hashable {
    /// Ogg Vorbis, MP3 and Opus quality, 0 to 1.
    public var quality: Double?
    /// MP3 constant bitrate or Opus target, in kbit/s.
    public var bitrateKbps: Int?
    /// The file's sample rate, converted from the render's; nil: the render's.
    public var sampleRate: Int?
    /// The file's channels (1 or 2), mixed down or up from the render's; nil: the render's.
    public var channelCount: Int?
    /// The file's integrated loudness, in LUFS, at most the render's target (`OutputSource.ownLoudnessRefusal`); nil:
    /// the render's.
    public var loudnessLUFS: Double?

    public init(quality: Double? = nil, bitrateKbps: Int? = nil, sampleRate: Int? = nil, channelCount: Int? = nil,
                loudnessLUFS: Double? = nil) {
        self.quality = quality
        self.bitrateKbps = bitrateKbps
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.loudnessLUFS = loudnessLUFS
    }

    /// Why this encoding cannot be, or nil: a quality from 0 to 1, a bitrate in `OutputSpec.bitrates`, not both; a
    /// rate in `OutputSpec.sampleRates`; one or two channels. (Whether the format takes the rate is the writer's check.)
    public var refusal: String? {
        if quality != nil && bitrateKbps != nil { return "give a quality or a bitrate, not both" }
        if let rate = sampleRate, !OutputSpec.sampleRates.contains(rate) {
            return "sample rate \(rate) Hz is not from \(OutputSpec.sampleRates.lowerBound) to \(OutputSpec.sampleRates.upperBound)"
        }
        if let channels = channelCount, !(1...2).contains(channels) { return "channels \(channels) is not 1 or 2" }
        if let target = loudnessLUFS, !(target.isFinite && LoudnessSpec.targets.contains(target)) {
            return "loudness \(target) LUFS is not from \(String(format1: LoudnessSpec.targets.lowerBound)) to \(String(format1: LoudnessSpec.targets.upperBound))"
        }
        if let quality, !(quality.isFinite && (0...1).contains(quality)) { return "quality \(quality) is not from 0 to 1" }
        if let bitrate = bitrateKbps, !OutputSpec.bitrates.contains(bitrate) {
            return "bitrate \(bitrate) kbit/s is not from \(OutputSpec.bitrates.lowerBound) to \(OutputSpec.bitrates.upperBound)"
        }
        return nil
    }
}
