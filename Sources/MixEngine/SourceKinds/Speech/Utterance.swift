import MixDSP
import MixIO

/// One thing a voice says, ready to place on the timeline: what plays, how long it is at the output
/// rate, the gain that brings its speech to the preset's voice level, and where in it speech really is.
/// Made once per text (with its settings) or recording per plan, by `TrackPlanning.clip`, and placed
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

    /// The gain that brings it to `voice.loudnessLUFS` or `voice.levelDb` (unity for a silent clip), times `extraDb`.
    func gain(for voice: VoiceSpec, extraDb: Double = 0) -> Float {
        let level: Double
        if let target = voice.loudnessLUFS { level = loudness.map { target - $0 } ?? 0 } else { level = levelDb.map { voice.levelDb - $0 } ?? 0 }
        return Float(MixDSP.gain(fromDecibels: level + extraDb))
    }

    /// The clip placed at `start`, at the voice's level, with short fades at its edges.
    func event(at start: Int64, voice spec: VoiceSpec, extraDb: Double = 0, sampleRate: Int) -> PlannedEvent {
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

/// What synthesising a text needs to be done once: the text, whether it is SSML, and the settings.
struct SpeechRequest: Hashable {
    let text: String
    let ssml: Bool
    let settings: SpeechSettings
}

extension TrackPlanning {
    /// `text` spoken with `settings`: synthesised once per plan, then measured for its speech level and
    /// where its speech is. A synthesis problem is an error at `key` below the track.
    public func clip(text: String, ssml: Bool, settings: SpeechSettings, key: String) throws -> Utterance {
        try session.clip(SpeechRequest(text: text, ssml: ssml, settings: settings), jsonPath: "\(jsonPath).\(key)")
    }

    /// The preset's voice settings (its level, fades and speech defaults).
    public var voice: VoiceSpec { session.voice }
}

extension PlanningContext {
    /// `request` synthesised and measured, once per plan.
    func clip(_ request: SpeechRequest, jsonPath: String) throws -> Utterance {
        if let known = spoken[request] { return known }
        let speech: SynthesizedSpeech
        let started = ContinuousClock.now
        do {
            if let stored = storedSpeech(request) {
                speech = stored
            } else {
                speech = try synthesizer.synthesize(request.text, settings: request.settings, ssml: request.ssml)
                keep(speech, for: request)
            }
        } catch {
            throw self.error(jsonPath, "\(error)")
        }
        synthesis.wallSeconds += (ContinuousClock.now - started).seconds
        synthesis.speechSeconds += Double(speech.samples.count) / Double(speech.sampleRate)
        let activity = speech.samples.withUnsafeBufferPointer { samples in
            var analyzer = SpeechActivityAnalyzer(sampleRate: speech.sampleRate)
            analyzer.append(int16: samples)
            return analyzer.finish()
        }
        var meter = VoiceLoudness(sampleRate: speech.sampleRate, outputChannels: channelCount)
        let floats = speech.samples.map { Float($0) / 32768 }
        floats.withUnsafeBufferPointer { meter.add($0) }
        let clip = Utterance(material: SpokenText(speech: speech),
                             length: StreamingSource.outputLength(inputFrames: Int64(speech.samples.count),
                                                                  inputRate: speech.sampleRate, outputRate: sampleRate),
                             levelDb: activity.levelDb, loudness: meter.lufs,
                             speech: activity.regions.map { scale($0, from: speech.sampleRate) },
                             caption: request.text)
        spoken[request] = clip
        return clip
    }

    /// A recording, measured once per plan: decoded whole to find its speech level and where its speech
    /// is (frame energies only are kept, so memory does not grow with its length), and streamed when it plays.
    func clip(recording path: String, jsonPath: String) throws -> Utterance {
        if let known = recordings[path] { return known }
        let info = try file(path, jsonPath: jsonPath)
        guard info.frameCount > 0 else { throw error(jsonPath, "'\(path)' holds no audio (0 frames)") }
        let activity: SpeechActivity
        let loudness: Double?
        do {
            // Folded to mono by the same pipeline that plays files (at the file's own rate: no resampler).
            let pipeline = try DecodePipeline(decoder: AudioFile.open(path: path), outputRate: info.sampleRate, outputChannels: 1,
                                              makeConverter: { _, _, _ in preconditionFailure("no resampling at the file's own rate") })
            var analyzer = SpeechActivityAnalyzer(sampleRate: info.sampleRate)
            var meter = VoiceLoudness(sampleRate: info.sampleRate, outputChannels: channelCount)
            let frames = 8192
            let mono = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            defer { mono.deallocate() }
            while true {
                let n = try pipeline.pull(into: mono, frames: frames)
                if n == 0 { break }
                analyzer.append(UnsafeBufferPointer(start: mono, count: n))
                meter.add(UnsafeBufferPointer(start: mono, count: n))
            }
            activity = analyzer.finish()
            loudness = meter.lufs
        } catch {
            throw self.error(jsonPath, "\(error)")
        }
        let clip = Utterance(material: StreamedFile(path: path),
                             length: StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate, outputRate: sampleRate),
                             levelDb: activity.levelDb, loudness: loudness,
                             speech: activity.regions.map { scale($0, from: info.sampleRate) },
                             caption: path)
        recordings[path] = clip
        return clip
    }

    /// Sample positions at `rate` as output frames.
    private func scale(_ range: Range<Int>, from rate: Int) -> Range<Int64> {
        let convert = { (n: Int) in StreamingSource.outputLength(inputFrames: Int64(n), inputRate: rate, outputRate: self.sampleRate) }
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

extension PlanningContext {
    /// The longest synthesis a store entry may claim: the helpers' own cap (`SpeechHelperLimits.maxSamples`).
    static let longestStoredSpeechSeconds = 20 * 60

    /// What a synthesis depends on, as a store's key: a pure function of the engine (its exact version), the voice,
    /// every setting, the seed and the text; nil when the engine cannot say what it is (then nothing is stored).
    func storeDescription(_ request: SpeechRequest) -> String? {
        let s = request.settings, engine = s.engineVoice.engine
        guard let identity = SpeechSynthesizer.engineIdentity(engine) else { return nil }
        let n = { (x: Double?) in x.map { "\($0)" } ?? "default" }
        return "speech; mixrender \(MixrenderVersion.string); \(identity); \(SpeechSynthesizer.sampleRate(of: engine)) Hz; voice \(s.voice); "
            + "wpm \(s.wordsPerMinute); pitch \(s.pitch); volume \(s.volume); speed \(n(s.speed)); sentence pause \(n(s.sentencePauseSeconds)); "
            + "paragraph pause \(n(s.paragraphPauseSeconds)); seed \(s.seed); ssml \(request.ssml); text sha256 \(ContentHash.of(request.text))"
    }

    /// The synthesis kept in the store for `request`, or nil (no store, no entry, or a damaged one, which is
    /// removed with a warning and said again).
    func storedSpeech(_ request: SpeechRequest) -> SynthesizedSpeech? {
        guard let store, let description = storeDescription(request) else { return nil }
        let rate = SpeechSynthesizer.sampleRate(of: request.settings.engineVoice.engine)
        do {
            guard let kept = try store.audio(for: description, channelCount: 1, frames: 1...(Self.longestStoredSpeechSeconds * rate)) else { return nil }
            // Written from 16-bit samples (x / 32768, exact in a Float): anything else is not a synthesis.
            let channel = kept.audio.channel(0)
            var samples = [Int16](repeating: 0, count: kept.length)
            for i in 0..<kept.length {
                let x = channel[i] * 32768
                guard x == x.rounded(), x >= -32768, x <= 32767 else {
                    warnings.append("\(store.path(for: description)): a kept synthesis holds samples no synthesis makes; said again")
                    return nil
                }
                samples[i] = Int16(x)
            }
            return SynthesizedSpeech(samples: samples, sampleRate: rate)
        } catch {
            warnings.append("\(error); said again")
            return nil
        }
    }

    /// Keeps `speech` in the store for `request`, when there is a store (a failure to keep it is a warning).
    func keep(_ speech: SynthesizedSpeech, for request: SpeechRequest) {
        guard let store, let description = storeDescription(request),
              speech.sampleRate == SpeechSynthesizer.sampleRate(of: request.settings.engineVoice.engine) else { return }
        let block = AudioBlock(channelCount: 1, capacity: speech.samples.count)
        let channel = block.channel(0)
        for (i, sample) in speech.samples.enumerated() { channel[i] = Float(sample) / 32768 }
        do { try store.store(PreparedAudio(audio: block, length: speech.samples.count), for: description) } catch {
            warnings.append("cannot keep a synthesis in the cache folder: \(error)")
        }
    }
}
