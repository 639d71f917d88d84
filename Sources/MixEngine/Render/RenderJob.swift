import Foundation
import MixDSP
import MixIO

/// Settings given on the command line that take precedence over the preset.
/// A value of optional numbers and a quality; allocates nothing. `Sendable`, safe to share.
public struct RenderOverrides: Sendable, Equatable {
    public var durationSeconds: Double?
    public var sampleRate: Int?
    public var quality: Double?
    /// A bitrate in kbit/s (MP3, Opus) instead of the quality.
    public var bitrateKbps: Int?
    public var resampler: ResamplerChoice?
    /// Normalise to this integrated loudness (LUFS), under this true-peak ceiling (dBTP).
    public var loudnessTarget: Double?
    public var truePeakDb: Double?
    /// Render only this part of the timeline, in seconds: `[start, end)`.
    public var startSeconds: Double?
    public var endSeconds: Double?
    /// Render a file that loops without a seam (the preset's `output.loopable` crossfade, or the default).
    public var loopable = false
    public init(durationSeconds: Double? = nil, sampleRate: Int? = nil, quality: Double? = nil, resampler: ResamplerChoice? = nil) {
        self.durationSeconds = durationSeconds; self.sampleRate = sampleRate
        self.quality = quality; self.resampler = resampler
    }
}

/// What `mixrender render` produced.
/// A value: the summary, the output's path and its size; allocates only the path. `Sendable`, safe to share.
public struct RenderResult: Sendable {
    public var summary: RenderSummary
    /// What normalising to a loudness did, when the preset or the command line asked for it.
    public var normalisation: NormalisationOutcome?
    /// The file written, or the name of the stream (`render(toStream:)`).
    public var outputPath: String
    /// The file's size; nil for a stream, whose bytes went to its reader.
    public var outputBytes: Int64?
    public var isStream: Bool { outputBytes == nil }
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
    /// Whether the loudness target came from the command line (so its errors name `--loudness`).
    public let loudnessIsOverride: Bool
    /// Whether `presetPath` names a file (false for a preset given as JSON bytes, which it only names).
    public let presetIsFile: Bool

    /// Loads the preset, applies the overrides and plans it, opening every source file. Overrides are
    /// checked by the same rules as the preset's own values (an `EngineError.setting` naming the setting).
    /// `store`: where syntheses are kept between processes (a batch's `--cache-dir`), so speech is said once.
    public init(presetPath: String, overrides: RenderOverrides = RenderOverrides(), store: MaterialStore? = nil) throws {
        try self.init(presetPath: presetPath, json: nil, overrides: overrides, store: store)
    }

    /// Loads a preset held in memory (UTF-8 JSON `bytes`, as a library caller has it), as `init(presetPath:)` loads a
    /// file: `name` is what errors and warnings call it, `baseDirectory` the folder its relative paths are taken from
    /// (empty: the current folder). It is not a file this render reads (`recordReads`).
    public init(presetJSON bytes: [UInt8], name: String, baseDirectory: String = "",
                overrides: RenderOverrides = RenderOverrides(), store: MaterialStore? = nil) throws {
        try self.init(presetPath: name, json: (bytes, baseDirectory), overrides: overrides, store: store)
    }

    private init(presetPath: String, json: (bytes: [UInt8], baseDirectory: String)?, overrides: RenderOverrides,
                 store: MaterialStore?) throws {
        try Self.check(overrides)
        // The length is checked with the preset (fades that fit, tracks that start in time), as if written there.
        var preset = try json.map {
            try PresetLoader.parse($0.bytes, file: presetPath, baseDirectory: $0.baseDirectory,
                                   durationSeconds: overrides.durationSeconds, ignoringMasterFadeFit: overrides.loopable)
        } ?? PresetLoader.load(path: presetPath, durationSeconds: overrides.durationSeconds,
                               ignoringMasterFadeFit: overrides.loopable)
        presetIsFile = json == nil
        if let r = overrides.sampleRate { preset.output.sampleRate = r }
        // A quality or a bitrate given here replaces the preset's choice of either.
        if let q = overrides.quality { preset.output.quality = q; preset.output.bitrateKbps = nil }
        if let b = overrides.bitrateKbps { preset.output.bitrateKbps = b }
        if let r = overrides.resampler { preset.output.resampler = r }
        // --loopable makes this output a loop: the preset's master fades (its sleep timer), which a loop cannot
        // have, are left out, with a warning. A preset that asks for a loop and fades itself is an error.
        var dropped: [String] = []
        if overrides.loopable {
            preset.output.loopable = preset.output.loopable ?? OutputSpec.defaultLoopCrossfade
            if preset.session == nil {
                if preset.master.fadeIn != nil { dropped.append("master.fadeIn") }
                if preset.master.fadeOut != nil { dropped.append("master.fadeOut") }
                preset.master.fadeIn = nil
                preset.master.fadeOut = nil
            }
        }
        if let target = overrides.loudnessTarget {
            preset.output.loudness = LoudnessSpec(targetLUFS: target, truePeakDb: preset.output.loudness?.truePeakDb ?? -1,
                                                  maximumGainDb: preset.output.loudness?.maximumGainDb ?? 30)
        }
        if let ceiling = overrides.truePeakDb {
            guard preset.output.loudness != nil else {
                throw EngineError.setting(.truePeak, reason: "is the ceiling of a loudness normalisation; give \(setting: .loudness) too (or output.loudness in the preset)")
            }
            preset.output.loudness!.truePeakDb = ceiling
        }
        self.presetPath = presetPath
        self.preset = preset
        self.loudnessIsOverride = overrides.loudnessTarget != nil
        var plan = try Planner(presetFile: presetPath, store: store).plan(preset)
        if !dropped.isEmpty {
            plan.warnings.insert("\(presetPath): \(dropped.joined(separator: ", ")): left out, since this render was made loopable on the command line: a loop fades nowhere (the player's timer does)", at: 0)
        }
        self.plan = plan
        let rate = Double(plan.sampleRate)
        // A session's length is its voice's and sections': it too must stay within the longest render.
        if preset.session != nil, Double(plan.frameCount) / rate > TimeParser.maximumSeconds {
            let t = TimeParser.string(fromSeconds:)
            throw EngineError.preset(PresetError(file: presetPath, jsonPath: "sections",
                                                 message: "the session lasts \(t(Double(plan.frameCount) / rate)), longer than \(t(TimeParser.maximumSeconds)), the longest time mixrender takes"))
        }
        if plan.loop != nil, let setting = overrides.startSeconds != nil ? EngineSetting.start : overrides.endSeconds != nil ? .end : nil {
            throw EngineError.setting(setting, reason: "cannot take part of a loopable render (output.loopable): its start holds its end")
        }
        let first = Int64(((overrides.startSeconds ?? 0) * rate).rounded())
        let last = overrides.endSeconds.map { Int64(($0 * rate).rounded()) } ?? plan.outputFrameCount
        guard first < plan.outputFrameCount else {
            throw EngineError.setting(.start, reason: "\(overrides.startSeconds ?? 0) s is not before the end of the render (\(plan.durationSeconds) s)")
        }
        guard last > first else { throw EngineError.setting(.end, reason: "must be after \(setting: .start)") }
        self.range = first..<min(last, plan.outputFrameCount)
        // A window of the timeline says which one it is, so that `join` can check its parts (WindowMark).
        if range != 0..<plan.outputFrameCount {
            let digests = Dictionary(try InputFile.hashAll(plan).map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
            let key = try CacheKey(plan: plan, range: 0..<plan.outputFrameCount, digests: digests, output: nil).audio
            window = WindowMark(start: range.lowerBound, end: range.upperBound, total: plan.outputFrameCount,
                                sampleRate: plan.sampleRate, key: key)
        } else {
            window = nil
        }
        // A session's length is known once it is planned: its listed chapters must start before its end.
        let seconds = Double(plan.outputFrameCount) / rate   // a loopable render's file ends before its crossfade
        for (index, chapter) in (preset.chapters ?? []).enumerated() where chapter.seconds >= seconds {
            let t = TimeParser.string(fromSeconds:)
            throw EngineError.preset(PresetError(file: presetPath, jsonPath: "chapters[\(index)].at",
                                                 message: "\(t(chapter.seconds)) is not before the end of the render (\(t(seconds)))"))
        }
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
        if let bitrate = o.bitrateKbps {
            guard o.quality == nil else { throw EngineError.setting(.bitrate, reason: "and \(setting: .quality) cannot be given together; give one") }
            guard OutputSpec.bitrates.contains(bitrate) else {
                throw EngineError.setting(.bitrate, reason: "must be between \(OutputSpec.bitrates.lowerBound) and \(OutputSpec.bitrates.upperBound) kbit/s")
            }
        }
        if let target = o.loudnessTarget, !(target.isFinite && LoudnessSpec.targets.contains(target)) {
            throw EngineError.setting(.loudness, reason: "must be between -70 and 0 LUFS")
        }
        if let ceiling = o.truePeakDb, !(ceiling.isFinite && LoudnessSpec.ceilings.contains(ceiling)) {
            throw EngineError.setting(.truePeak, reason: "must be between -20 and 0 dBTP")
        }
    }

    /// The file format and settings for writing to `path`, checked before anything is rendered.
    public func outputSettings(for path: String) throws -> OutputSettings {
        guard let format = OutputFileFormat.from(path: path) else {
            throw EngineError.output(path: path, reason: "unknown output extension; use \(OutputFileFormat.extensionList(dotted: true))")
        }
        let settings = try checkedSettings(format: format, name: path)
        try checkWrites([(path, "the output")])
        return settings
    }

    /// The settings for writing this job in `format`, checked before anything is rendered; `name` is what errors
    /// call the output (its path, or the stream).
    public func checkedSettings(format: OutputFileFormat, name: String) throws -> OutputSettings {
        let settings = outputSettings(format: format)
        if let problem = AudioFileWriter.validate(settings: settings) {
            throw EngineError.output(path: name, reason: "\(problem)")
        }
        // Each format's own limit on its tags (TagLimits): FLAC's 16 MiB block, CAF's 16 KiB 'info' chunk.
        let extra = settings.format.carriesVorbisComments ? Chapters.comments(chapters) : []
        if let (key, reason) = TagLimits.problem(format: settings.format, fields: settings.tagFields, extra: extra) {
            throw EngineError.preset(PresetError(file: presetPath, jsonPath: key.map { "output.tags.\($0.lowercased())" } ?? "output.tags",
                                                 message: "\(reason) (writing \(name))"))
        }
        if let least = Self.leastBinauralBitrateKbps(settings), hasBinauralBeats {
            throw EngineError.output(path: name, reason: "the render has binaural beats, which need each ear its own tone, and \(settings.format.displayName) below \(least) kbit/s merges the channels (measured: at 24 kbit/s both ears get both tones); use \(least) kbit/s or more")
        }
        return settings
    }

    /// The settings for streaming this job in `format` into a pipe (see `render(toStream:)`), checked: the
    /// format must be one that never seeks back.
    public func streamSettings(format: OutputFileFormat, name: String) throws -> OutputSettings {
        if let refusal = format.streamRefusal { throw EngineError.setting(.format, reason: "\(format.fileExtension): \(refusal)") }
        return try checkedSettings(format: format, name: name)
    }

    /// What a stream cannot carry of what the preset asks for, one warning line each: tags other than title,
    /// artist and comment, chapter marks and ReplayGain are written into a finished file, which a stream never is.
    /// `seekable`: the stream goes into a regular file (`-o - > night.mp3`), where libsndfile still writes
    /// an MP3's LAME header and a FLAC's length.
    public func streamWarnings(for settings: OutputSettings, seekable: Bool) -> [String] {
        var lost: [String] = []
        if !settings.tagFields.fields.map(\.key).filter({ !["TITLE", "ARTIST", "COMMENT", WindowMark.tagKey].contains($0) }).isEmpty { lost.append("tags other than title, artist and comment") }
        if window != nil { lost.append("the window mark join checks (\(WindowMark.tagKey))") }
        if !chapters.isEmpty { lost.append("its \(chapters.count) chapter marks") }
        if plan.loudness != nil && settings.format != .opus { lost.append("ReplayGain tags (the audio is normalised)") }
        if plan.loudness != nil && settings.format == .opus { lost.append("R128_TRACK_GAIN (the audio is normalised)") }
        var warnings = lost.isEmpty ? [] : ["\(presetPath): a stream carries only what its encoder writes at its start, not \(lost.joined(separator: ", ")); render to a file to keep them"]
        if settings.format == .mp3 && !seekable {
            warnings.append("\(presetPath): an MP3 written to a pipe has no LAME header (it is written last, at the start of the file), so players add about 50 ms of silence at each end; render to a file for a gapless MP3")
        }
        return warnings
    }

    /// Renders into the open file descriptor `descriptor` (standard output), encoded as `format`, without a
    /// temporary file: the bytes go out as they are encoded. Normalising measures before encoding, as for a
    /// file, but a lossy stream cannot be measured and written again, nor tagged after the end (see
    /// `streamWarnings`). On an error the stream is cut short; the caller's exit status says so.
    public func render(toStream descriptor: Int32, format: OutputFileFormat, name: String, blockFrames: Int = 4096,
                       extraSinks: [AudioEncoder] = [], taps: [RenderTap] = [], material: PreparedMaterial? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderResult {
        var settings = try streamSettings(format: format, name: name)
        settings.tagsWrittenAfterwards = false   // a stream is never tagged afterwards
        let material = material ?? PreparedMaterial()
        let normalisation = try findNormalisation(material: material, blockFrames: blockFrames)
        let writer = try AudioFileWriter.open(fileDescriptor: descriptor, settings: settings, displayPath: name)
        let sink: AudioEncoder = extraSinks.isEmpty ? writer : TeeEncoder([writer] + extraSinks)
        let summary = try Renderer(plan: plan.withMasterGain(db: normalisation?.gainDb ?? 0), blockFrames: blockFrames)
            .render(to: sink, range: range, material: material, taps: taps, loop: plan.loop, progress: progress)
        return RenderResult(summary: summary, normalisation: normalisation, outputPath: name, outputBytes: nil)
    }

    /// Whether the preset has binaural beats (a `binaural` track), which a lossy encoder must keep in two channels.
    public var hasBinauralBeats: Bool { preset.tracks.contains { $0.source.needsSeparateChannels } }

    /// The least bitrate at which `settings`' encoder keeps the two channels apart, when its settings could go
    /// below it; nil when they cannot. libopus codes stereo below about 28 kbit/s as one channel with a
    /// stereo image (measured on a 250 Hz carrier with a 6 Hz beat: at 24 kbit/s each ear held both tones at
    /// the same level, at 28 and up the other ear's tone was more than 33 dB down); 32 leaves a margin.
    /// LAME (no intensity stereo) and libvorbis (point stereo only at high frequencies, above any carrier)
    /// kept them apart at their lowest settings (`BinauralEncodingTests`).
    static func leastBinauralBitrateKbps(_ settings: OutputSettings) -> Int? {
        guard settings.format == .opus, settings.channelCount == 2 else { return nil }
        let kbps = settings.bitrateKbps.map(Double.init) ?? 2 * SoundFileWriter.opusBitratePerChannel(quality: settings.vorbisQuality)
        return kbps < 32 ? 32 : nil
    }

    /// The settings for writing this job in `format` (not checked against the writer's limits).
    public func outputSettings(format: OutputFileFormat) -> OutputSettings {
        var settings = OutputSettings(format: format, sampleRate: plan.sampleRate, channelCount: plan.channelCount,
                                      sampleFormat: preset.output.sampleFormat, vorbisQuality: preset.output.quality,
                                      title: preset.name)
        for field in preset.output.tags.fields { settings.tagFields.set(field.key, field.values) }
        if let window { settings.tagFields.set(WindowMark.tagKey, window.text) }
        settings.bitrateKbps = preset.output.bitrateKbps
        settings.expectedFrameCount = Int64(range.count)
        settings.tagsWrittenAfterwards = FileTags.canWrite(format) && !settings.wavNeedsRF64   // see writeTags
        if settings.tagsWrittenAfterwards {
            settings.tagRoomBytes = TagLimits.room(format: format, fields: settings.tagFields,
                                                   extra: format.carriesVorbisComments ? Chapters.comments(chapters) : [],
                                                   chapterNames: chapters.map(\.name))
        }
        return settings
    }

    /// Adds what this render reads to `access`: the preset (`preset`: how errors call it, by default "the preset
    /// being rendered") and every file it names, its beds' at any depth included, and every source the plan opened.
    public func recordReads(into access: inout FileAccess, preset: EngineReason = "the preset being rendered") {
        if presetIsFile { access.reads(presetPath, as: preset) }
        access.reads(filesOf: self.preset, by: "the render")
        for source in plan.sourceFiles.keys.sorted() {
            access.reads(source, as: "one of the render's sources")
        }
    }

    /// Refuses writing any of `outputs` (each a path and what it is: `"the output"`, `"\(setting: .timeline)"`)
    /// where this render reads (its preset, a bed, a source, however reached: `..`, a symbolic or hard link) or
    /// where another of them writes (`FileAccess`). Nothing has been written when it throws.
    public func checkWrites(_ outputs: [(path: String, what: EngineReason)]) throws {
        var access = FileAccess()
        recordReads(into: &access)
        for output in outputs { access.writes(output.path, as: output.what) }
        try access.check()
    }

    /// The frames to render: all of them, or the part the overrides ask for.
    public let range: Range<Int64>
    /// Which window of the whole render `range` is, written into the file's tags; nil for the whole render.
    public let window: WindowMark?

    /// The chapter marks the output carries: the preset's `chapters` list (which wins over a session's
    /// sections), else a session's sections; those that fall in the rendered range, each from its start (or the
    /// range's) relative to the range's start. A listed chapter lasts until the next one starts.
    public var chapters: [Chapters.Mark] {
        let spans: [(name: String, start: Int64, end: Int64)]
        if let list = preset.chapters {
            let starts = list.map { Int64(($0.seconds * Double(plan.sampleRate)).rounded()) }
            spans = list.indices.map { (list[$0].name, starts[$0], $0 + 1 < starts.count ? starts[$0 + 1] : plan.frameCount) }
        } else {
            spans = plan.timeline.sections.map { ($0.name, $0.start, $0.end) }
        }
        return spans.compactMap { span in
            guard span.end > range.lowerBound && span.start < range.upperBound else { return nil }
            return Chapters.Mark(name: span.name, frame: max(span.start, range.lowerBound) - range.lowerBound, sampleRate: plan.sampleRate)
        }
    }

    /// What the output cannot keep of the tags, chapters and ReplayGain asked for, as plan warnings (one line
    /// each, naming the JSON path): a CAF keeps only the known keys (libsndfile's 'info' chunk), no chapters and
    /// no ReplayGain; an RF64 WAV is not tagged (TagLib reads only RIFF WAVs).
    public func outputWarnings(for settings: OutputSettings) -> [String] {
        var warnings: [String] = []
        let name = settings.format.displayName
        if settings.wavNeedsRF64 {
            let lost = settings.tagFields.fields.map(\.key).filter { !["TITLE", "ARTIST", "COMMENT", WindowMark.tagKey].contains($0) }
            if !lost.isEmpty || !chapters.isEmpty || plan.loudness != nil {
                warnings.append("\(presetPath): output.tags: a WAV this long is RF64, which the tagger does not write; "
                                + "it keeps only title, artist and comment (libsndfile's), without other tags, chapters or ReplayGain")
            }
            return warnings
        }
        guard settings.format == .caf else { return warnings }
        let dropped = settings.tagFields.freeFormKeys.filter { $0 != WindowMark.tagKey }
        if window != nil {
            warnings.append("\(presetPath): \(name) cannot carry the window mark (\(WindowMark.tagKey)) that lets join check its parts; render windows as .flac, .wav or .aiff")
        }
        if !dropped.isEmpty {
            let paths = dropped.map { preset.output.tagPaths[$0] ?? "output.tags.\($0)" }
            warnings.append("\(presetPath): \(paths.joined(separator: ", ")): \(name) keeps only "
                            + TagFields.knownKeys.map { $0.lowercased() }.joined(separator: ", ") + "; not written")
        }
        if !chapters.isEmpty {
            warnings.append("\(presetPath): \(preset.chapters != nil ? "chapters" : "sections"): \(name) has no chapter marks; the \(chapters.count) chapters are not written")
        }
        if plan.loudness != nil {
            warnings.append("\(presetPath): output.loudness: \(name) has no ReplayGain tags; the audio is normalised, but no gain tag is written")
        }
        return warnings
    }

    /// Writes the tags, the chapter marks and ReplayGain into the finished temporary file, where the format has
    /// them (docs/tags.md): Vorbis comments, or ID3v2 frames (and RIFF INFO in WAV). CAF's tags were written by
    /// libsndfile; an RF64 WAV is left as it is (see `outputWarnings`).
    private func writeTags(into temporaryPath: String, destination: String, settings: OutputSettings,
                           loudness: LoudnessMeasurement) throws {
        guard FileTags.canWrite(settings.format), !settings.wavNeedsRF64 else { return }
        var fields = settings.tagFields.comments + ReplayGain.comments(loudness, format: settings.format)
        var id3Chapters: [FileTags.Chapter]?
        if settings.format.carriesVorbisComments {
            fields += Chapters.comments(chapters)
        } else if settings.format != .m4a {   // an M4A's chapter track is muxed with the audio (`write`)
            id3Chapters = Chapters.id3Chapters(chapters, frameCount: Int64(range.count))
        }
        // A file with room reserved is always tagged: that removes the placeholder (FileTags.roomMarker).
        guard !fields.isEmpty || id3Chapters?.isEmpty == false || settings.tagRoomBytes > 0 else { return }
        do { try FileTags.write(path: temporaryPath, format: settings.format, fields: fields, chapters: id3Chapters) } catch {
            // MixIO's error names the temporary file; the destination is named already.
            let reason = (error as? AudioIOError).map { $0.function.isEmpty ? $0.reason : "\($0.reason) (\($0.function))" } ?? "\(error)"
            throw EngineError.output(path: destination, reason: "cannot write its tags, chapters and ReplayGain: \(reason)")
        }
        // TagLib ignores failed writes: the file must still hold every frame (a header read for libsndfile's
        // formats; an M4A's length would take a decode, and its disk room was reserved all the same).
        if settings.format != .m4a {
            let frames = (try? AudioFileInfo.read(path: temporaryPath))?.frameCount
            if frames != Int64(range.count) {
                throw EngineError.output(path: destination, reason: "writing its tags cut the file short (\(frames.map(String.init) ?? "unreadable") of \(range.count) frames); the disk may be full")
            }
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
        let material = material ?? PreparedMaterial()
        // Normalising: measuring passes find the master gain first (they share the prepared material).
        var normalisation = try findNormalisation(material: material, blockFrames: blockFrames)
        var output = try AtomicOutputFile(destination: path)
        do {
            var summary = try write(plan.withMasterGain(db: normalisation?.gainDb ?? 0), to: output, settings: settings,
                                    blockFrames: blockFrames, extraSinks: extraSinks, taps: taps, material: material, progress: progress)
            // A lossy encoder changes the loudness a little (Vorbis's low-pass takes high frequencies, which
            // K-weighting counts up): the file is decoded and measured, and written again with the difference
            // when it is more than the tolerance (not when other sinks or taps have already been fed).
            if var n = normalisation, !settings.format.isPCM {
                let decoded = try LoudnessMeter.measure(path: output.temporaryPath, truePeak: false).integrated
                n.encodedLUFS = decoded
                let shortfall = n.targetLUFS - decoded
                if decoded.isFinite, abs(shortfall) > Normalisation.toleranceLU, extraSinks.isEmpty, taps.isEmpty,
                   n.gainDb + shortfall <= plan.loudness!.maximumGainDb {
                    output.discard()
                    output = try AtomicOutputFile(destination: path)
                    n.encoderCorrectionDb = shortfall
                    n.gainDb += shortfall
                    summary = try write(plan.withMasterGain(db: n.gainDb), to: output, settings: settings, blockFrames: blockFrames,
                                        extraSinks: [], taps: [], material: material, progress: progress)
                    n.encodedLUFS = try LoudnessMeter.measure(path: output.temporaryPath, truePeak: false).integrated
                }
                normalisation = n
            }
            // Tags, chapter marks and ReplayGain, where the format has them.
            try writeTags(into: output.temporaryPath, destination: path, settings: settings, loudness: summary.loudness)
            try output.commit()
            let size = FileSystem.identity(of: path)?.size ?? 0
            return RenderResult(summary: summary, normalisation: normalisation, outputPath: path, outputBytes: size)
        } catch {
            output.discard()
            throw error
        }
    }

    /// The master gain that brings the render to its loudness target, found by measuring passes before anything
    /// is encoded (they share `material`); nil when the render is not normalised. Errors name `--loudness` or
    /// `output.loudness.target`, whichever set the target.
    private func findNormalisation(material: PreparedMaterial, blockFrames: Int) throws -> NormalisationOutcome? {
        try plan.loudness.map { spec in
            try Normalisation.find(plan: plan, spec: spec, material: material, blockFrames: blockFrames) { reason in
                loudnessIsOverride ? .setting(.loudness, reason: "\(String(format1: spec.targetLUFS)): \(reason)")
                                   : .preset(PresetError(file: presetPath, jsonPath: "output.loudness.target", message: reason))
            }
        }
    }

    /// One render of `plan` into the output's temporary file.
    private func write(_ plan: RenderPlan, to output: AtomicOutputFile, settings: OutputSettings, blockFrames: Int,
                       extraSinks: [AudioEncoder], taps: [RenderTap], material: PreparedMaterial,
                       progress: ((Int64) -> Void)?) throws -> RenderSummary {
        let marks = settings.format == .m4a ? chapters.map { AudioFileWriter.Chapter(name: $0.name, frame: $0.frame) } : []
        let writer = try AudioFileWriter.open(path: output.temporaryPath, settings: settings, displayPath: output.destination, chapters: marks)
        let sink: AudioEncoder = extraSinks.isEmpty ? writer : TeeEncoder([writer] + extraSinks)
        return try Renderer(plan: plan, blockFrames: blockFrames).render(to: sink, range: range, material: material,
                                                                        taps: taps, loop: plan.loop, progress: progress)
    }
}
