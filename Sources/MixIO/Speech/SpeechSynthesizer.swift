import Glibc

/// Text to speech for a render: every text said in a helper process, never in this one
/// (`SpeechHelperProcess`; docs/sessions.md, "Voices").
///
/// - The neural voice (hibari) runs in one helper per `SpeechSynthesizer` (one per plan: a render, or a job of a
///   batch), started on first use by the project's virtual environment's Python, fed texts one after another.
///   Each text is seeded and said on one onnxruntime thread, so its samples depend on the request alone.
/// - espeak-ng runs in a fresh helper per text (`mixrender speech-helper espeak`, a new process of this very
///   program or of the `mixrender` beside it): espeak-ng's state leaks from one text into the next, and a
///   crash in it ends only that helper.
///
/// Either way a crash, a hang (the time-out), a limit reached or a refusal is one `AudioIOError`. Since every
/// synthesis is a pure function of engine, voice, settings and text, results are kept process-wide (up to
/// `cacheLimit` samples), so a batch says each text once. The object is not thread-safe (one plan, one thread);
/// the static parts are.
public final class SpeechSynthesizer {
    public let limits: SpeechHelperLimits
    private var hibari: SpeechHelperProcess?
    /// Called with the helper's process id once a text has been sent and before its answer is read (tests
    /// kill the helper there, to show that a helper dying mid-text is one error).
    public var afterSending: ((Int32) -> Void)?
    /// Whether results are kept and reused process-wide (tests that show two syntheses agree turn it off).
    public var usesCache = true

    public init(limits: SpeechHelperLimits = .standard) { self.limits = limits }

    deinit { hibari?.finish() }

    /// Says `text` (SSML when `ssml`, which must be in `SSMLSubset`) with `settings`.
    public func synthesize(_ text: String, settings: SpeechSettings, ssml: Bool) throws -> SynthesizedSpeech {
        guard !text.utf8.contains(0) else { throw Self.failure("the text contains a NUL character") }
        guard text.contains(where: { !$0.isWhitespace }) else { throw Self.failure("the text is empty") }
        let pieces = ssml ? try SSMLSubset(text).pieces : [.text(text, speed: 1)]
        let key = Request(text: text, ssml: ssml, settings: settings)
        if usesCache, let known = Self.cache.withLock({ $0.spoken[key] }) { return known }
        let speech: SynthesizedSpeech
        switch settings.engineVoice.engine {
        case .espeak: speech = try espeak(text, settings: settings, ssml: ssml)
        case .hibari: speech = try hibari(pieces, settings: settings)
        }
        guard speech.samples.contains(where: { $0 != 0 }) else { throw Self.failure("the text gives no sound") }
        if usesCache { Self.cache.withLock { $0.keep(speech, for: key) } }
        return speech
    }

    // MARK: - What decides a synthesis

    /// The rate `engine` speaks at: espeak-ng 22050 Hz, the neural voice 24000 Hz. A synthesis at another rate
    /// is not kept in a store (`storeIdentity`), so what a store holds is read back at this rate.
    public static func sampleRate(of engine: SpeechEngine) -> Int {
        switch engine {
        case .espeak: return 22_050
        case .hibari: return 24_000
        }
    }

    /// The engine as exactly as a synthesis depends on it, for the key of a stored synthesis (with the request):
    /// espeak-ng's library version (`EspeakEngine.version()`: no synthesis, no state; nil when it cannot be loaded), or
    /// the SHA-256 of the neural voice's pinned requirements as installed (they fix hibari-tts, its model and
    /// onnxruntime). nil when the neural voice is not installed.
    public static func engineIdentity(_ engine: SpeechEngine) -> String? {
        switch engine {
        case .espeak:
            return EspeakEngine.version().map { "espeak-ng " + $0 }
        case .hibari:
            guard let venv = SpeechHelperLocation.hibariEnvironmentFolder(),
                  let stamp = try? FileSystem.readDocument(path: venv + "/.mixrender-requirements", maximumBytes: 1 << 20) else { return nil }
            return "hibari-tts requirements sha256 " + ContentHash.of(String(decoding: stamp, as: UTF8.self))
        }
    }

    // MARK: - espeak-ng

    private func espeak(_ text: String, settings: SpeechSettings, ssml: Bool) throws -> SynthesizedSpeech {
        let helper = try SpeechHelperProcess(executable: try SpeechHelperLocation.espeakExecutable(),
                                             arguments: ["speech-helper", "espeak", "--cpu-seconds", "\(min(limits.cpuSeconds, 120))",
                                                         "--memory-mb", "\(min(limits.memoryBytes, 1 << 30) >> 20)"],
                                             environment: SpeechHelperLocation.espeakEnvironment(), name: "the espeak-ng helper")
        defer { helper.finish() }
        let wordsPerMinute = Int((Double(settings.wordsPerMinute) * settings.effectiveSpeed).rounded())
        var text = text, ssml = ssml
        if !ssml, settings.sentencePauseSeconds != nil || settings.paragraphPauseSeconds != nil {
            text = Self.markPauses(text, sentence: settings.sentencePauseSeconds, paragraph: settings.paragraphPauseSeconds)
            ssml = true
        }
        try helper.send(["text": text, "ssml": ssml, "voice": settings.engineVoice.name,
                         "rate": min(max(wordsPerMinute, SpeechSettings.wordsPerMinuteRange.lowerBound), SpeechSettings.wordsPerMinuteRange.upperBound),
                         "pitch": settings.pitch, "volume": settings.volume])
        afterSending?(helper.pid)
        return try answer(from: helper)
    }

    /// Plain text as SSML with a `<break>` after each sentence and each paragraph (a blank line), for espeak-ng,
    /// whose break replaces its own pause there; a pause left nil keeps espeak-ng's own.
    static func markPauses(_ text: String, sentence: Double?, paragraph: Double?) -> String {
        func escaped(_ s: Substring) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        func pause(_ seconds: Double) -> String { "<break time=\"\(Int((seconds * 1000).rounded()))ms\"/>" }
        let paragraphs = text.components(separatedBy: "\n\n").map { Substring($0) }.filter { $0.contains { !$0.isWhitespace } }
        let marked = paragraphs.map { paragraphText -> String in
            guard let sentence else { return escaped(paragraphText) }
            var out = "", current = Substring("")
            var i = paragraphText.startIndex
            while i < paragraphText.endIndex {
                let c = paragraphText[i]
                let next = paragraphText.index(after: i)
                current = paragraphText[(current.isEmpty ? i : current.startIndex)..<next]
                if ".!?…".contains(c), next < paragraphText.endIndex, paragraphText[next].isWhitespace {
                    out += escaped(current) + " " + pause(sentence) + " "
                    current = ""
                }
                i = next
            }
            return out + escaped(current)
        }
        return marked.joined(separator: paragraph.map { " " + pause($0) + " " } ?? "\n\n")
    }

    // MARK: - hibari

    private func hibari(_ pieces: [SSMLSubset.Piece], settings: SpeechSettings) throws -> SynthesizedSpeech {
        let helper = try startHibari()
        var samples: [Int16] = []
        var rate = Self.sampleRate(of: .hibari)
        for piece in pieces {
            switch piece {
            case .pause(let seconds):
                samples += [Int16](repeating: 0, count: Int((seconds * Double(rate)).rounded()))
            case .text(let text, let factor):
                let speed = min(max(settings.effectiveSpeed * factor, SpeechSettings.speedRange.lowerBound), SpeechSettings.speedRange.upperBound)
                do {
                    try helper.send(["text": text, "voice": settings.engineVoice.name, "speed": speed, "seed": settings.seed,
                                     "sentencePause": settings.sentencePauseSeconds ?? SpeechSettings.defaultSentencePause,
                                     "paragraphPause": settings.paragraphPauseSeconds ?? SpeechSettings.defaultParagraphPause])
                    afterSending?(helper.pid)
                    let speech = try answer(from: helper)
                    rate = speech.sampleRate
                    samples += speech.samples
                } catch {
                    hibari = nil   // a helper that failed is never asked again
                    throw error
                }
            }
            guard samples.count <= limits.maxSamples else { throw Self.failure("the text makes more than \(limits.maxSamples / rate / 60) minutes of speech") }
        }
        return SynthesizedSpeech(samples: samples, sampleRate: rate)
    }

    private func startHibari() throws -> SpeechHelperProcess {
        if let hibari { return hibari }
        guard let venv = SpeechHelperLocation.hibariEnvironmentFolder() else { throw SpeechHelperLocation.hibariMissing() }
        let helper = try SpeechHelperProcess(executable: venv + "/bin/python",
                                             arguments: ["-I", venv + "/mixrender_hibari_helper.py",
                                                         "--cpu-seconds", "\(limits.cpuSeconds)", "--memory-mb", "\(limits.memoryBytes >> 20)"],
                                             environment: SpeechHelperLocation.hibariEnvironment(), name: "the neural voice's helper")
        let ready = try helper.readHeader(until: .now + .seconds(60))
        guard ready["ready"] as? Bool == true else {
            helper.kill()
            throw helper.failure("it did not start: \(ready["error"] as? String ?? "no reason given")")
        }
        hibari = helper
        return helper
    }

    // MARK: - The answer

    private func answer(from helper: SpeechHelperProcess) throws -> SynthesizedSpeech {
        let deadline = ContinuousClock.now + .milliseconds(Int(limits.timeoutSeconds * 1000))
        let header = try helper.readHeader(until: deadline)
        guard header["ok"] as? Bool == true else {
            throw Self.failure(header["error"] as? String ?? "\(helper.name) refused the text without a reason")
        }
        guard let rate = header["sampleRate"] as? Int, (8000...96_000).contains(rate),
              let count = header["count"] as? Int, count >= 0 else {
            helper.kill()
            throw helper.failure("it answered a header without a sample rate and count")
        }
        guard count <= limits.maxSamples else {
            helper.kill()
            throw Self.failure("the text makes more than \(limits.maxSamples / rate / 60) minutes of speech")
        }
        return SynthesizedSpeech(samples: try helper.readSamples(count, until: deadline), sampleRate: rate)
    }

    // MARK: - Voices

    /// Every voice: the neural ones (when installed or not: `isInstalled` says) and espeak-ng's, with its variants.
    public static func catalogue() throws -> (voices: [SpeechVoice], variants: [String]) {
        let espeak = try espeakCatalogue()
        let neural = SpeechEngine.hibariVoices.map {
            SpeechVoice(id: "hibari:" + $0.name, engine: "hibari", name: $0.name, languages: [$0.language], gender: $0.gender,
                        origin: "hibari-tts 0.2.1 (PyPI, Apache-2.0; distilled from Kokoro-82M, Apache-2.0)")
        }
        return (neural + espeak.voices, espeak.variants)
    }

    /// espeak-ng's voices and variants, asked of a helper once per process.
    static func espeakCatalogue() throws -> (voices: [SpeechVoice], variants: [String]) {
        if let known = cache.withLock({ $0.espeakVoices }) { return known }
        let helper = try SpeechHelperProcess(executable: try SpeechHelperLocation.espeakExecutable(),
                                             arguments: ["speech-helper", "espeak", "--list"],
                                             environment: SpeechHelperLocation.espeakEnvironment(), name: "the espeak-ng helper")
        defer { helper.finish() }
        let answer = try helper.readHeader(until: .now + .seconds(30))
        guard answer["ok"] as? Bool == true, let voices = answer["voices"] as? [[String: Any]], let variants = answer["variants"] as? [String] else {
            throw failure(answer["error"] as? String ?? "the espeak-ng helper did not list its voices")
        }
        let list = voices.map {
            SpeechVoice(id: $0["id"] as? String ?? "", engine: "espeak", name: $0["name"] as? String ?? "",
                        languages: $0["languages"] as? [String] ?? [], gender: $0["gender"] as? String ?? "",
                        origin: $0["origin"] as? String ?? "")
        }
        cache.withLock { $0.espeakVoices = (list, variants) }
        return (list, variants)
    }

    /// Checks that `voice` names a voice that exists and can be used here; the error says which exist nearby
    /// (`candidates`) and, for the neural voice on a machine without it, how to install it.
    public static func check(voice: String) throws {
        let (engine, name) = SpeechEngine.resolve(voice)
        switch engine {
        case .hibari:
            guard SpeechEngine.hibariVoices.contains(where: { $0.name == name }) else {
                throw UnknownVoice(voice: voice, candidates: SpeechEngine.hibariVoices.map { "hibari:" + $0.name }, what: "the neural voice has no voice '\(name)'")
            }
            guard SpeechHelperLocation.hibariEnvironmentFolder() != nil else { throw SpeechHelperLocation.hibariMissing() }
        case .espeak:
            let (voices, variants) = try espeakCatalogue()
            let parts = name.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let base = parts[0].lowercased()
            let names = voices.flatMap { [$0.id.dropFirst("espeak:".count).lowercased(), $0.name.lowercased()] + $0.languages.map { $0.lowercased() } }
            guard names.contains(base) else {
                throw UnknownVoice(voice: voice, candidates: SpeechEngine.hibariVoices.map { "hibari:" + $0.name } + voices.map(\.id),
                                   what: "no voice or language is called '\(parts[0])'")
            }
            if parts.count > 1, !variants.contains(parts[1]) {
                throw UnknownVoice(voice: voice, candidates: variants.map { "espeak:\(parts[0])+\($0)" }, what: "espeak-ng has no variant '\(parts[1])'")
            }
        }
    }

    /// An unknown voice or variant, with the names a caller may suggest from.
    public struct UnknownVoice: Error, CustomStringConvertible, Sendable {
        public let voice: String
        public let candidates: [String]
        public let what: String
        public var description: String { what }
    }

    // MARK: - The process-wide cache

    /// What makes a synthesis: the text, whether it is SSML, and the settings (the engine is in the voice).
    struct Request: Hashable {
        let text: String
        let ssml: Bool
        let settings: SpeechSettings
    }

    /// The most samples kept for repeating texts: 64 M (128 MB, about 45 minutes of speech).
    public static let cacheLimit = 64 << 20

    struct Cache {
        var spoken: [Request: SynthesizedSpeech] = [:]
        var keptSamples = 0
        var espeakVoices: (voices: [SpeechVoice], variants: [String])?

        mutating func keep(_ speech: SynthesizedSpeech, for request: Request) {
            if keptSamples + speech.samples.count > SpeechSynthesizer.cacheLimit { spoken.removeAll(); keptSamples = 0 }
            spoken[request] = speech
            keptSamples += speech.samples.count
        }
    }

    private static let cache = Locked(Cache())

    static func failure(_ reason: String) -> AudioIOError {
        AudioIOError(path: "", function: "", reason: reason, operation: "synthesise speech")
    }
}
