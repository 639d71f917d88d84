import MixDSP
import MixIO

/// One thing a voice says, ready to place on the timeline: what plays, how long it is at the output
/// rate, the gain that brings its speech to the preset's voice level, and where in it speech really is.
/// Made once per text (with its settings) or recording by the `Analyzer`, looked up by `TrackPlanning.clip`, and placed
/// as often as it is needed (a breathing cue said at every cycle is synthesised once).
///
/// A value: an existential material (which, for speech, shares its samples), two numbers and an array
/// of ranges; allocates only the array when made. `Sendable`, safe to share.
public struct Utterance: Sendable {
    /// What plays: synthesised samples or a recording, decoded and resampled as it plays.
    public let material: any EventMaterial
    /// Its length at the output rate.
    public let length: Int64
    /// Its speech level as measured (RMS over speech frames only, dBFS); nil when it holds no speech.
    public let levelDb: Double?
    /// Its loudness in LUFS as it plays centred in the output (integrated, or ungated for a clip shorter than
    /// one 400 ms block); nil when silent.
    public let loudness: Double?
    /// Where speech is, in output frames from its start (pauses left out).
    public let speech: [Range<Int64>]
    /// Text for the timeline's captions, or the recording's path.
    public let caption: String
    /// The voice that said it (`hibari:heart`), nil for a recording.
    public var voice: String? = nil
    /// Each sentence, in output frames from its start, when the engine says where they are (the neural voices do).
    public var sentences: [Range<Int64>] = []
    /// The words its voice found in no lexicon and read by rule (`SynthesizedSpeech.guessed`); empty for a recording.
    public var guessed: [String] = []
    /// Each word, in output frames from its start: an English voice's, or a recording's aligned with its transcript.
    public var words: [Timeline.Word] = []
    /// Why a recording's transcript gave no word times (the aligner is not installed, the recording is below 16 kHz,
    /// or the aligner could not follow the transcript through it): a warning where the recording is planned.
    public var alignmentWarning: String? = nil

    /// The gain that brings it to `voice.loudnessLUFS` or `voice.levelDb` (unity for a silent clip), times `extraDb`.
    func gain(for voice: NarrationSpec, extraDb: Double = 0) -> Float {
        let level: Double
        if let target = voice.loudnessLUFS { level = loudness.map { target - $0 } ?? 0 } else { level = levelDb.map { voice.levelDb - $0 } ?? 0 }
        return Float(MixDSP.gain(fromDecibels: level + extraDb))
    }

    /// The clip placed at `start`, at the voice's level, with short fades at its edges.
    func event(at start: Int64, voice spec: NarrationSpec, extraDb: Double = 0, sampleRate: Int) -> PlannedEvent {
        let fade = min(Int64((spec.edgeFadeSeconds * Double(sampleRate)).rounded()), length / 2)
        var envelopes: [Envelope] = []
        if fade > 0 {
            envelopes = [.fadeIn(start: start, length: fade, curve: .sCurve),
                         .fadeOut(end: start + length, length: fade, curve: .sCurve)]
        }
        return PlannedEvent(start: start, end: start + length, material: material,
                            gains: GainStack(constant: gain(for: spec, extraDb: extraDb), envelopes: envelopes))
    }
}

/// Synthesised speech: mono 16-bit samples at the engine's rate, decoded and resampled as they play, like
/// a file. A value (`Sendable`) sharing its samples with every voice that says the same thing.
struct SpokenText: EventMaterial {
    let speech: SynthesizedSpeech
    /// The SHA-256 of the samples (little-endian 16-bit), taken once when synthesised: what the cache key
    /// knows of them (an engine's output for a text and settings is the same in every process, each text
    /// being said by a fresh espeak-ng or a seeded neural voice, and a new engine that speaks differently
    /// changes the key).
    let digest: String

    init(speech: SynthesizedSpeech) {
        self.speech = speech
        var hash = ContentHash()
        speech.samples.map { $0.littleEndian }.withUnsafeBytes { hash.update($0) }
        digest = hash.hex
    }

    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "speech")
        key.field("sampleRate", speech.sampleRate)
        key.field("samples", "sha256:" + digest)
    }

    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        try StreamingSource(decoder: SampleArrayDecoder(samples: speech.samples, sampleRate: speech.sampleRate),
                            outputRate: context.sampleRate, outputChannels: context.channelCount,
                            makeConverter: context.makeConverter)
    }
}

/// A recording decoded once, in the analysis, and played from memory: its file's frames at its own rate, decoded
/// and resampled as it plays through the same pipeline as the file (`FrameArrayDecoder`), so it sounds exactly as
/// the file streamed would. It describes itself, and is shared, as that file (`file`). A value (`Sendable`) sharing
/// its frames with every event that plays it.
struct HeldRecording: EventMaterial {
    let file: StreamedFile
    let frames: [Float]
    let sampleRate: Int
    let channelCount: Int
    /// What the file's header announced.
    let frameCount: Int64

    var streamedFile: String? { file.streamedFile }

    func describe(into key: inout CacheKeyWriter) { file.describe(into: &key) }

    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        try StreamingSource(decoder: FrameArrayDecoder(frames: frames, sampleRate: sampleRate, channelCount: channelCount, frameCount: frameCount),
                            outputRate: context.sampleRate, outputChannels: context.channelCount, makeConverter: context.makeConverter)
    }
}

/// What synthesising a text needs to be done once: the text, whether it is SSML, and the settings.
/// The settings are those with the voice that says the text named (`SpeechSettings.choice(forText:)`: a named voice, or
/// the best installed for the text's language). The voice is chosen once, when the analysis is asked for the text
/// (`AnalysisRequests.speech`); planning finds the request by what was asked (`Asked`, `Analysis.speechRequests`).
struct SpeechRequest: Hashable, Sendable {
    /// A text as a kind or a session asks for it: its settings before a voice is chosen for it.
    struct Asked: Hashable, Sendable {
        let text: String
        let ssml: Bool
        let settings: SpeechSettings
    }

    let text: String
    let ssml: Bool
    let settings: SpeechSettings
    /// Why the voice is worth a warning (a draft for want of a natural one, or a voice of another language), if it is.
    let voiceWarning: String?

    init(text: String, ssml: Bool, settings: SpeechSettings) {
        let choice = settings.choice(forText: text)
        self.text = text; self.ssml = ssml; self.settings = choice.settings; self.voiceWarning = choice.warning
    }
}

extension TrackPlanning {
    /// `text` spoken with `settings`: synthesised once per plan, then measured for its speech level and
    /// where its speech is. A synthesis problem is an error at `key` below the track.
    public func clip(text: String, ssml: Bool, settings: SpeechSettings, key: String) throws -> Utterance {
        try session.clip(SpeechRequest.Asked(text: text, ssml: ssml, settings: settings), jsonPath: "\(jsonPath).\(key)")
    }

    /// The preset's voice settings (its level, fades and speech defaults).
    public var voice: NarrationSpec { session.voice }
}

extension PlanningContext {
    /// The text `asked` for as analysed (its voice chosen, said and measured); a synthesis problem is an error at `jsonPath`.
    func clip(_ asked: SpeechRequest.Asked, jsonPath: String) throws -> Utterance {
        guard let request = analysis.speechRequests[asked], let entry = analysis.speech[request] else {
            preconditionFailure("a text was not analysed: its kind's analysisRequests did not ask for it (\(jsonPath))")
        }
        switch entry {
        case .failure(let failure):
            throw error(jsonPath, failure.message + (request.voiceWarning.map { " (\($0))" } ?? ""))
        case .success(let spoken):
            if warnedSpeech.insert(request).inserted {
                warnings += spoken.warnings
                if let note = request.voiceWarning, warnedVoices.insert(note).inserted { warn(jsonPath, note) }
            }
            voices.append(request.settings.voice)
            if !spoken.utterance.guessed.isEmpty, !guessedWords.contains(where: { $0.path == jsonPath }) {
                guessedWords.append((jsonPath, spoken.utterance.guessed))
            }
            return spoken.utterance
        }
    }

    /// A recording as analysed: its file (opened once per plan) and its measurements; an error at `jsonPath`, and a
    /// warning beside it when its transcript gave no word times.
    func clip(recording request: RecordingRequest, jsonPath: String) throws -> Utterance {
        let path = request.path
        let info = try file(path, jsonPath: jsonPath)
        guard info.frameCount > 0 else { throw error(jsonPath, "'\(path)' holds no audio (0 frames)") }
        guard let entry = analysis.recordings[request] else {
            preconditionFailure("the recording '\(path)' was not analysed (\(jsonPath))")
        }
        let utterance = try entry.mapError { error(jsonPath, $0.message) }.get()
        if let note = utterance.alignmentWarning {
            warn(String(jsonPath.dropLast(".file".count)) + ".transcript", note)
        }
        return utterance
    }
}

extension Utterance {
    /// Synthesised `speech`, measured for its speech level, its loudness and where its speech is (in the
    /// analysis phase, once per text and output format).
    init(spoken speech: SynthesizedSpeech, caption: String, voice: String, format: RenderFormat) {
        let activity = speech.samples.withUnsafeBufferPointer { samples in
            var analyzer = SpeechActivityAnalyzer(sampleRate: speech.sampleRate)
            analyzer.append(int16: samples)
            return analyzer.finish()
        }
        var meter = VoiceLoudness(sampleRate: speech.sampleRate, outputChannels: format.channelCount)
        let floats = speech.samples.map { Float($0) / 32768 }
        floats.withUnsafeBufferPointer { meter.add($0) }
        self.init(material: SpokenText(speech: speech),
                  length: StreamingSource.outputLength(inputFrames: Int64(speech.samples.count),
                                                       inputRate: speech.sampleRate, outputRate: format.sampleRate),
                  levelDb: activity.levelDb, loudness: meter.lufs,
                  speech: activity.regions.map { Self.scale($0, from: speech.sampleRate, to: format.sampleRate) },
                  caption: caption, voice: voice,
                  sentences: speech.sentences.map { Self.scale($0, from: speech.sampleRate, to: format.sampleRate) })
        guessed = speech.guessed
        words = Self.words(speech.words, from: speech.sampleRate, to: format.sampleRate)
    }

    /// Words at `rate` as `Timeline.Word`s in frames at `outputRate`.
    private static func words(_ words: [SpokenWord], from rate: Int, to outputRate: Int) -> [Timeline.Word] {
        words.map {
            let span = scale($0.span, from: rate, to: outputRate)
            return Timeline.Word(text: $0.text, start: span.lowerBound, end: span.upperBound)
        }
    }

    /// The most a recording held in memory between its analysis and its play may take (decoded, at its own rate):
    /// a longer one is decoded to be measured and again as it plays, so memory does not grow with its length.
    static let heldRecordingLimitBytes = 64 << 20

    /// The recording at `path` (`info`, its probe), measured: decoded whole to find its speech level and where its
    /// speech is (frame energies only are kept by the analyzer). A recording within `heldRecordingLimitBytes` is
    /// decoded once: its frames are kept and played from memory (`HeldRecording`); a longer one is streamed
    /// from its file when it plays. With a `transcript`, the same pass feeds the aligner (`WordAligner`), for its words;
    /// any failure there is a warning (`alignmentWarning`), never the recording's failure.
    init(recording path: String, info: AudioFileInfo, format: RenderFormat, transcript: String? = nil) throws {
        let file = try AudioFile.open(path: path)
        let decoder: AudioDecoder, material: any EventMaterial
        if info.frameCount * Int64(info.channelCount) * Int64(MemoryLayout<Float>.size) <= Int64(Self.heldRecordingLimitBytes) {
            let held = try FrameArrayDecoder(frames: Self.decodeWhole(file), sampleRate: file.sampleRate,
                                             channelCount: file.channelCount, frameCount: file.frameCount)
            decoder = held
            material = HeldRecording(file: StreamedFile(path: path), frames: held.frames, sampleRate: held.sampleRate,
                                     channelCount: held.channelCount, frameCount: held.frameCount)
        } else {
            decoder = file
            material = StreamedFile(path: path)
        }
        // Folded to mono by the same pipeline that plays files (at the file's own rate: no resampler).
        let pipeline = try DecodePipeline(decoder: decoder, outputRate: info.sampleRate, outputChannels: 1,
                                          makeConverter: { _, _, _ in preconditionFailure("no resampling at the file's own rate") })
        var analyzer = SpeechActivityAnalyzer(sampleRate: info.sampleRate)
        var meter = VoiceLoudness(sampleRate: info.sampleRate, outputChannels: format.channelCount)
        var aligning = transcript.map { _ in WordAligner() }, alignmentWarning: String? = nil
        func stopAligning(_ error: Error) {
            alignmentWarning = "no word times: \(error)"
            aligning = nil
        }
        if let transcript, let aligner = aligning {
            do { try aligner.begin(transcript: transcript, sampleRate: info.sampleRate) } catch { stopAligning(error) }
        }
        let frames = 8192
        let mono = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { mono.deallocate() }
        while true {
            let n = try pipeline.pull(into: mono, frames: frames)
            if n == 0 { break }
            analyzer.append(UnsafeBufferPointer(start: mono, count: n))
            meter.add(UnsafeBufferPointer(start: mono, count: n))
            if let aligner = aligning {
                do { try aligner.add(UnsafeBufferPointer(start: mono, count: n)) } catch { stopAligning(error) }
            }
        }
        var words: [SpokenWord] = []
        if let aligner = aligning {
            do {
                words = try aligner.finish()
                if words.isEmpty { alignmentWarning = "no word times: the aligner could not follow the transcript through the recording (is it what the recording says, in English?)" }
            } catch { stopAligning(error) }
        }
        let activity = analyzer.finish()
        self.init(material: material,
                  length: StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate, outputRate: format.sampleRate),
                  levelDb: activity.levelDb, loudness: meter.lufs,
                  speech: activity.regions.map { Self.scale($0, from: info.sampleRate, to: format.sampleRate) },
                  caption: path)
        self.words = Self.words(words, from: info.sampleRate, to: format.sampleRate)
        self.alignmentWarning = alignmentWarning
    }

    /// Every frame `decoder` gives, interleaved.
    private static func decodeWhole(_ decoder: AudioDecoder) throws -> [Float] {
        let chunk = 8192, channels = decoder.channelCount
        var frames: [Float] = []
        frames.reserveCapacity(Int(max(0, decoder.frameCount)) * channels)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * channels)
        defer { buffer.deallocate() }
        while true {
            let n = try decoder.read(into: buffer, frames: chunk)
            if n == 0 { break }
            frames.append(contentsOf: UnsafeBufferPointer(start: buffer, count: n * channels))
        }
        return frames
    }

    /// The same utterance playing from its file as it streams: what is kept between renders (`AnalysisCache`),
    /// so a cache holds no recording's frames.
    var streamed: Utterance {
        guard let held = material as? HeldRecording else { return self }
        var streamed = Utterance(material: held.file, length: length, levelDb: levelDb, loudness: loudness, speech: speech, caption: caption)
        streamed.words = words
        streamed.alignmentWarning = alignmentWarning
        return streamed
    }

    /// Sample positions at `rate` as frames at `outputRate`.
    private static func scale(_ range: Range<Int>, from rate: Int, to outputRate: Int) -> Range<Int64> {
        let convert = { (n: Int) in StreamingSource.outputLength(inputFrames: Int64(n), inputRate: rate, outputRate: outputRate) }
        return convert(range.lowerBound)..<convert(range.upperBound)
    }
}

/// A voice clip's loudness (`GatedLoudness` on its mono signal, at its own rate), as it plays centred in an
/// output of `outputChannels`: a mono voice at unity on both sides of stereo reads 3.01 LU louder than alone.
struct VoiceLoudness {
    private let meter: GatedLoudness
    private let block: AudioBlock
    private let channelOffset: Double

    init(sampleRate: Int, outputChannels: Int) {
        meter = GatedLoudness(channelCount: 1, sampleRate: sampleRate)
        block = AudioBlock(channelCount: 1, capacity: 8192)
        channelOffset = 10 * Double.log10(Double(max(1, outputChannels)))
    }

    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        var done = 0
        while done < samples.count {
            let run = min(8192, samples.count - done)
            block.channel(0).baseAddress!.update(from: samples.baseAddress! + done, count: run)
            meter.add(block, offset: 0, count: run)
            done += run
        }
    }

    /// Integrated when the clip holds a 400 ms block, ungated otherwise; nil for silence.
    var lufs: Double? {
        let value = meter.integrated.isFinite ? meter.integrated : meter.ungated
        return value.isFinite ? value + channelOffset : nil
    }
}
