import MixIO

/// Everything about a render's output, computed and checked once before anything is rendered: where it goes,
/// the encoder's settings (format, rate, quality or bitrate, the tags, the room reserved for them), the chapter
/// marks, the loudness policy, what the output cannot keep of what the preset asks for (`warnings`), and the
/// finishing steps that run after the block loop (`finishing`).
///
/// Made by `RenderJob.outputPlan(to:)`: a bad extension, a setting the writer refuses, tags past the format's
/// limit, binaural beats in an Opus that would merge the channels, or an output where the render reads are
/// errors there. A value (`Sendable`, safe to share); allocates its arrays and strings.
public struct OutputPlan: Sendable {
    /// Where the encoded bytes go.
    public enum Destination: Sendable, Equatable {
        /// A file, written under a temporary name beside it and renamed into place when complete.
        case file(path: String)
        /// An open file descriptor (standard output), written as the bytes are encoded: never tagged, measured or
        /// rewritten afterwards. `name` is what messages call it. When it is a regular file (`-o - > night.mp3`),
        /// libsndfile still writes an MP3's LAME header and a FLAC's length.
        case stream(descriptor: Int32, format: OutputFileFormat, name: String)

        /// What messages call it: the file's path, or the stream's name.
        public var name: String {
            switch self {
            case .file(let path): path
            case .stream(_, _, let name): name
            }
        }
    }

    public let destination: Destination
    /// The encoder's settings, checked against the writer's limits.
    public let settings: OutputSettings
    /// The chapter marks the output carries (see `RenderJob.chapters`), at the output's rate.
    public let chapters: [ChapterMark]
    /// The output's own rate and channels, converted from the render's; nil: the render's.
    public let conversion: OutputConversion?
    /// The loudness the output is normalised to; nil when it is not.
    public let loudness: LoudnessSpec?
    /// What the output cannot keep of the tags, chapters and ReplayGain asked for, one line each.
    public let warnings: [String]
    /// What happens after the block loop, in order (the encoded loudness corrected, the tags written, the file
    /// renamed into place); none for a stream.
    public let finishing: [any FinishingStep]

    /// The frames the file holds when the render wrote `rendered`: as many, or as many as its conversion makes of them.
    public func fileFrames(rendered: Int64) -> Int64 { conversion?.outputFrames(rendered) ?? rendered }

    /// What messages call the output: its path, or the stream's name.
    public var name: String { destination.name }

    /// The output of `source` to `destination`, checked (see the type's comment).
    /// With `checksum`, a file is hashed before it is renamed into place (`ChecksumStep`).
    init(source: OutputSource, destination: Destination, checksum: Bool = false) throws {
        self.destination = destination
        chapters = source.chapters
        conversion = source.conversion
        loudness = source.loudness
        switch destination {
        case .file(let path):
            guard let format = OutputFileFormat.from(path: path) else {
                throw EngineError.output(path: path, reason: "unknown output extension; use \(OutputFileFormat.extensionList(dotted: true))")
            }
            settings = try Self.checkedSettings(source: source, format: format, name: path)
            try source.checkWrites([(path, "the output")])
            warnings = Self.fileWarnings(source: source, settings: settings)
            finishing = Self.finishingSteps(settings: settings, loudness: loudness, isConverted: conversion != nil, checksum: checksum)
        case .stream(let descriptor, let format, let name):
            if let refusal = format.streamRefusal { throw EngineError.setting(.format, reason: "\(format.fileExtension): \(refusal)") }
            var settings = try Self.checkedSettings(source: source, format: format, name: name)
            settings.tagsWrittenAfterwards = false   // a stream is never tagged afterwards
            settings.tagRoomBytes = 0
            self.settings = settings
            warnings = Self.streamWarnings(source: source, settings: settings, isSeekable: FileSystem.isRegularFile(descriptor: descriptor))
            finishing = []
        }
    }

    /// The finishing steps of a file in `settings`' format: a lossy file, or one converted from the render's rate or
    /// channels (a mono mix measures otherwise than the stereo one), is decoded and measured (and, normalised to a
    /// loudness, perhaps written again); a format with tags gets them; the file is renamed into place last.
    static func finishingSteps(settings: OutputSettings, loudness: LoudnessSpec?, isConverted: Bool = false,
                               checksum: Bool) -> [any FinishingStep] {
        var steps: [any FinishingStep] = []
        if !settings.format.isPCM || isConverted { steps.append(EncodedFileCorrection()) }
        if FileTags.canWrite(settings.format) && !settings.wavNeedsRF64 { steps.append(TagWriting()) }
        if checksum { steps.append(ChecksumStep()) }
        steps.append(CommitStep())
        return steps
    }

    /// The settings for writing `job` in `format`, checked before anything is rendered; `name` is what errors
    /// call the output (its path, or the stream).
    static func checkedSettings(source: OutputSource, format: OutputFileFormat, name: String) throws -> OutputSettings {
        let settings = source.settings(format: format)
        if let problem = AudioFileWriter.validate(settings: settings) {
            throw EngineError.output(path: name, reason: "\(problem)")
        }
        // Each format's own limit on its tags (TagLimits): FLAC's 16 MiB block, CAF's 16 KiB 'info' chunk.
        let extra = settings.format.carriesVorbisComments ? Chapters.comments(source.chapters) : []
        if let (key, reason) = TagLimits.problem(format: settings.format, fields: settings.tagFields, extra: extra) {
            throw EngineError.preset(PresetError(file: source.presetPath, jsonPath: key.map { "output.tags.\($0.lowercased())" } ?? "output.tags",
                                                 message: "\(reason) (writing \(name))"))
        }
        if source.needsSeparateChannels && settings.channelCount < source.channelCount {
            throw EngineError.output(path: name, reason: "the render has binaural beats, which need each ear its own tone, and a mono file mixes both ears' tones into one; keep this output stereo")
        }
        if let least = leastSeparateChannelsBitrateKbps(settings), source.needsSeparateChannels {
            throw EngineError.output(path: name, reason: "the render has binaural beats, which need each ear its own tone, and \(settings.format.displayName) below \(least) kbit/s merges the channels (measured: at 24 kbit/s both ears get both tones); use \(least) kbit/s or more")
        }
        return settings
    }

    /// The least bitrate at which `settings`' encoder keeps the two channels apart, when its settings could go
    /// below it; nil when they cannot. libopus codes stereo below about 28 kbit/s as one channel with a
    /// stereo image (measured on a 250 Hz carrier with a 6 Hz beat: at 24 kbit/s each ear held both tones at
    /// the same level, at 28 and up the other ear's tone was more than 33 dB down); 32 leaves a margin.
    /// LAME (no intensity stereo) and libvorbis (point stereo only at high frequencies, above any carrier)
    /// kept them apart at their lowest settings (`BinauralEncodingTests`).
    static func leastSeparateChannelsBitrateKbps(_ settings: OutputSettings) -> Int? {
        guard settings.format == .opus, settings.channelCount == 2 else { return nil }
        let kbps = settings.bitrateKbps.map(Double.init) ?? 2 * SoundFileWriter.opusBitratePerChannel(quality: settings.vorbisQuality)
        return kbps < 32 ? 32 : nil
    }

    /// What a stream cannot carry of what the preset asks for, one warning line each: tags other than title,
    /// artist and comment, chapter marks and ReplayGain are written into a finished file, which a stream never is.
    static func streamWarnings(source: OutputSource, settings: OutputSettings, isSeekable: Bool) -> [String] {
        var lost: [String] = []
        if !settings.tagFields.fields.map(\.key).filter({ !["TITLE", "ARTIST", "COMMENT", WindowMark.tagKey].contains($0) }).isEmpty { lost.append("tags other than title, artist and comment") }
        if source.window != nil { lost.append("the window mark join checks (\(WindowMark.tagKey))") }
        let chapters = source.chapters
        if !chapters.isEmpty { lost.append("its \(chapters.count) chapter marks") }
        if source.loudness != nil && settings.format != .opus { lost.append("ReplayGain tags (the audio is normalised)") }
        if source.loudness != nil && settings.format == .opus { lost.append("R128_TRACK_GAIN (the audio is normalised)") }
        var warnings = lost.isEmpty ? [] : ["\(source.presetPath): a stream carries only what its encoder writes at its start, not \(lost.joined(separator: ", ")); render to a file to keep them"]
        if settings.format == .mp3 && !isSeekable {
            warnings.append("\(source.presetPath): an MP3 written to a pipe has no LAME header (it is written last, at the start of the file), so players add about 50 ms of silence at each end; render to a file for a gapless MP3")
        }
        return warnings
    }

    /// What a file in `settings` cannot keep of the tags, chapters and ReplayGain asked for, as warnings (one line
    /// each, naming the JSON path): a CAF keeps only the known keys (libsndfile's 'info' chunk), no chapters and
    /// no ReplayGain; an RF64 WAV is not tagged (TagLib reads only RIFF WAVs).
    static func fileWarnings(source: OutputSource, settings: OutputSettings) -> [String] {
        var warnings: [String] = []
        let name = settings.format.displayName, presetPath = source.presetPath, chapters = source.chapters
        if settings.wavNeedsRF64 {
            let lost = settings.tagFields.fields.map(\.key).filter { !["TITLE", "ARTIST", "COMMENT", WindowMark.tagKey].contains($0) }
            if !lost.isEmpty || !chapters.isEmpty || source.loudness != nil {
                warnings.append("\(presetPath): output.tags: a WAV this long is RF64, which the tagger does not write; "
                                + "it keeps only title, artist and comment (libsndfile's), without other tags, chapters or ReplayGain")
            }
            return warnings
        }
        guard settings.format == .caf else { return warnings }
        let dropped = settings.tagFields.freeFormKeys.filter { $0 != WindowMark.tagKey }
        if source.window != nil {
            warnings.append("\(presetPath): \(name) cannot carry the window mark (\(WindowMark.tagKey)) that lets join check its parts; render windows as .flac, .wav or .aiff")
        }
        if !dropped.isEmpty {
            let paths = dropped.map { source.output.tagPaths[$0] ?? "output.tags.\($0)" }
            warnings.append("\(presetPath): \(paths.joined(separator: ", ")): \(name) keeps only "
                            + TagFields.knownKeys.map { $0.lowercased() }.joined(separator: ", ") + "; not written")
        }
        if !chapters.isEmpty {
            warnings.append("\(presetPath): \(source.listsChapters ? "chapters" : "sections"): \(name) has no chapter marks; the \(chapters.count) chapters are not written")
        }
        if source.loudness != nil {
            warnings.append("\(presetPath): output.loudness: \(name) has no ReplayGain tags; the audio is normalised, but no gain tag is written")
        }
        return warnings
    }
}
