import Glibc

/// Text to speech for a render: every text said in a helper process, never in this one
/// (`SpeechHelperProcess`; docs/sessions.md, "Voices"), by the engine the voice names (`SpeechEngine`: the neural
/// voices, `NeuralSpeechEngine`, keep one helper each per synthesizer, which this object holds; espeak-ng,
/// `EspeakSpeechEngine`, starts one per text).
///
/// Either way a crash, a hang (the time-out), a limit reached or a refusal is one `AudioIOError`. Since every
/// synthesis is a pure function of engine, voice, settings and text, results are kept process-wide (up to
/// `cacheLimit` samples), so a batch says each text once. The object is not thread-safe (one plan, one thread);
/// the static parts are.
public final class SpeechSynthesizer {
    public let limits: SpeechHelperLimits
    /// The helpers engines keep between texts, by engine key (`keptHelper`).
    private var helpers: [String: SpeechHelperProcess] = [:]
    /// Called with the helper's process id once a text has been sent and before its answer is read (tests
    /// kill the helper there, to show that a helper dying mid-text is one error).
    public var afterSending: ((Int32) -> Void)?
    /// Whether results are kept and reused process-wide (tests that show two syntheses agree turn it off).
    public var usesCache = true

    public init(limits: SpeechHelperLimits = .standard) { self.limits = limits }

    deinit { for helper in helpers.values { helper.finish() } }

    /// Says `text` (SSML when `ssml`, which must be in `SSMLSubset`) with `settings`.
    public func synthesize(_ text: String, settings: SpeechSettings, ssml: Bool) throws -> SynthesizedSpeech {
        guard !text.utf8.contains(0) else { throw Self.failure("the text contains a NUL character") }
        guard text.contains(where: { !$0.isWhitespace }) else { throw Self.failure("the text is empty") }
        let key = Request(text: text, ssml: ssml, settings: settings)
        if usesCache, let known = Self.cache.withLock({ $0.spoken[key] }) { return known }
        // The lexicon's respellings and phonemes, in the text every engine reads (phonemes as the engine takes them).
        let voice = settings.voiceID
        let said = settings.lexicon.apply(to: text, ssml: ssml) { voice.speechEngine.phonemes(of: $0, ipa: $1) }
        let pieces = ssml ? try SSMLSubset(said).pieces : [.text(said, speed: 1)]
        let speech = try voice.speechEngine.synthesize(said, pieces: pieces, ssml: ssml, name: voice.name, settings: settings, for: self)
        guard speech.samples.contains(where: { $0 != 0 }) else { throw Self.failure("the text gives no sound") }
        if usesCache { Self.cache.withLock { $0.keep(speech, for: key) } }
        return speech
    }

    // MARK: - espeak-ng

    /// Plain text as SSML with a `<break>` after each sentence and each paragraph (a blank line), for espeak-ng,
    /// whose break replaces its own pause there; a pause left nil keeps espeak-ng's own.
    static func markPauses(_ text: String, sentence: Double?, paragraph: Double?) -> String {
        // Element content: the apostrophes and quotes stay as they are, as espeak-ng always read them.
        func escaped(_ s: Substring) -> String { SSMLSubset.escaped(s, quotes: false) }
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

    // MARK: - Helpers

    /// The helper the engine `key` keeps between texts, started by `start` (with this synthesizer's limits) on first use.
    func keptHelper(for key: String, start: (SpeechHelperLimits) throws -> SpeechHelperProcess) throws -> SpeechHelperProcess {
        if let helper = helpers[key] { return helper }
        let helper = try start(limits)
        helpers[key] = helper
        return helper
    }

    /// Forgets the helper the engine `key` kept (one that failed is never asked again).
    func dropHelper(for key: String) { helpers[key] = nil }

    /// A helper's answer to one text: its header, then its samples, within the time-out and the most samples.
    func answer(from helper: SpeechHelperProcess) throws -> SynthesizedSpeech {
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
        let samples = try helper.readSamples(count, until: deadline)
        // Each sentence's first and last sample, when the helper gives them; spans that are not in order inside the
        // samples are a helper's fault, and are dropped rather than trusted.
        var sentences: [Range<Int>] = []
        var end = 0
        for span in header["sentences"] as? [[Int]] ?? [] {
            guard span.count == 2, span[0] >= end, span[0] <= span[1], span[1] <= count else { sentences = []; break }
            sentences.append(span[0]..<span[1])
            end = span[1]
        }
        // The words it guessed: at most 100 short words of text, or none (a helper's odd answer is not trusted).
        var guessed = header["guessed"] as? [String] ?? []
        if guessed.count > 100 || guessed.contains(where: { $0.isEmpty || $0.count > 64 || $0.contains { $0.isWhitespace || $0.isNewline } }) { guessed = [] }
        let words = SpokenWord.parse(header["words"], within: count) ?? []
        return SynthesizedSpeech(samples: samples, sampleRate: rate, sentences: sentences, guessed: guessed, words: words)
    }

    // MARK: - Voices

    /// Every voice of every engine (the neural ones whether installed or not: `check` says), and their variants.
    public static func catalogue() throws -> (voices: [SpeechVoice], variants: [String]) {
        try SpeechEngines.all.map { try $0.voices() }.reduce(into: ([], [])) { all, one in
            all.voices += one.voices
            all.variants += one.variants
        }
    }

    /// Checks that `voice` names a voice that exists and can be used here; the error says which exist nearby
    /// (`UnknownVoice.candidates`) and, for the neural voice on a machine without it, how to install it.
    public static func check(voice: String) throws {
        let id = VoiceID(parsing: voice)
        try id.speechEngine.check(name: id.name, voice: voice)
    }

    /// The voice `voice` names as its engine lists it, for credits: a variant (`espeak:en-gb+f3`) is its base voice's,
    /// under the name given. A voice its engine cannot list is named with its engine only.
    public static func credit(forVoice voice: String) -> SpeechVoice {
        let id = VoiceID(parsing: voice)
        let base = id.name.prefix { $0 != "+" }.lowercased()
        let listed = (try? id.speechEngine.voices().voices) ?? []
        guard let found = listed.first(where: { $0.id.lowercased() == "\(id.engine):\(base)" })
                ?? listed.first(where: { $0.name.lowercased() == base || $0.languages.contains { $0.lowercased() == base } }) else {
            return SpeechVoice(id: id.description, engine: id.engine, name: id.name, languages: [], gender: "", origin: id.engine)
        }
        return SpeechVoice(id: id.description, engine: found.engine, name: found.name, languages: found.languages, gender: found.gender,
                           origin: found.origin, natural: found.natural, licence: found.licence, attribution: found.attribution)
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
