/// espeak-ng (libespeak-ng, Debian's espeak-ng-data): every language, robotic; drafts and the languages the neural
/// voice lacks. Each text is said in a fresh helper process (`mixrender speech-helper espeak`, a new process of this
/// very program or of the `mixrender` beside it): espeak-ng's state leaks from one text into the next, and a crash in
/// it ends only that helper. A value with no state; `Sendable`.
public struct EspeakSpeechEngine: SpeechEngine {
    public let key = "espeak"
    public let sampleRate = 22_050
    /// espeak-ng's own words per minute.
    public let defaultSpeed = 1.0

    /// espeak-ng's library version (`EspeakEngine.version()`: no synthesis, no state).
    public func identity() -> String? { EspeakEngine.version().map { "espeak-ng " + $0 } }

    /// A lexicon's phonemes as espeak-ng's own phoneme names in `[[ ]]` (its English table's: `IPA.espeak`).
    public func phonemes(of word: String, ipa: String) -> String { "[[" + IPA.espeak(ipa) + "]]" }

    /// Any name: espeak-ng is asked last, and a name it lacks is found by `check`.
    public func claims(bareName: String) -> String? { bareName }

    /// The language at the head of its name (`en-gb+f3` speaks `en-gb`); nil for a name that is not a language tag.
    public func language(ofVoice name: String) -> String? {
        let base = String(name.prefix { $0 != "+" }).lowercased()
        return SpeechLanguage.primary(of: base) != nil ? base : nil
    }

    /// Its voices and variants, asked of a helper once per process.
    public func voices() throws -> (voices: [SpeechVoice], variants: [String]) {
        if let known = Self.catalogue.withLock({ $0 }) { return known }
        let helper = try SpeechHelperProcess(executable: try SpeechHelperLocation.espeakExecutable(),
                                             arguments: ["speech-helper", "espeak", "--list"],
                                             environment: SpeechHelperLocation.espeakEnvironment(), name: "the espeak-ng helper")
        defer { helper.finish() }
        let answer = try helper.readHeader(until: .now + .seconds(30))
        guard answer["ok"] as? Bool == true, let voices = answer["voices"] as? [[String: Any]], let variants = answer["variants"] as? [String] else {
            throw SpeechSynthesizer.failure(answer["error"] as? String ?? "the espeak-ng helper did not list its voices")
        }
        let list = voices.map {
            SpeechVoice(id: $0["id"] as? String ?? "", engine: key, name: $0["name"] as? String ?? "",
                        languages: $0["languages"] as? [String] ?? [], gender: $0["gender"] as? String ?? "",
                        origin: $0["origin"] as? String ?? "", natural: false, licence: "GPL-3.0-or-later",
                        attribution: "Voice: espeak-ng (GPL-3.0-or-later).")
        }
        Self.catalogue.withLock { $0 = (list, variants) }
        return (list, variants)
    }

    private static let catalogue = Locked<(voices: [SpeechVoice], variants: [String])?>(nil)

    public func check(name: String, voice: String) throws {
        let (voices, variants) = try voices()
        let parts = name.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let base = parts[0].lowercased()
        let names = voices.flatMap { [$0.id.dropFirst("\(key):".count).lowercased(), $0.name.lowercased()] + $0.languages.map { $0.lowercased() } }
        guard names.contains(base) else {
            // Every engine's voices are offered as suggestions (a bare name may have meant the neural voice's).
            let others = SpeechEngines.all.filter { $0.key != key }.flatMap { (try? $0.voices().voices.map(\.id)) ?? [] }
            throw SpeechSynthesizer.UnknownVoice(voice: voice, candidates: others + voices.map(\.id),
                                                 what: "no voice or language is called '\(parts[0])'")
        }
        if parts.count > 1, !variants.contains(parts[1]) {
            throw SpeechSynthesizer.UnknownVoice(voice: voice, candidates: variants.map { "\(key):\(parts[0])+\($0)" },
                                                 what: "espeak-ng has no variant '\(parts[1])'")
        }
    }

    public func synthesize(_ text: String, pieces: [SSMLSubset.Piece], ssml: Bool, name: String, settings: SpeechSettings,
                           for synthesizer: SpeechSynthesizer) throws -> SynthesizedSpeech {
        let limits = synthesizer.limits
        let helper = try SpeechHelperProcess(executable: try SpeechHelperLocation.espeakExecutable(),
                                             arguments: ["speech-helper", "espeak", "--cpu-seconds", "\(min(limits.cpuSeconds, 120))",
                                                         "--memory-mb", "\(min(limits.memoryBytes, 1 << 30) >> 20)"],
                                             environment: SpeechHelperLocation.espeakEnvironment(), name: "the espeak-ng helper")
        defer { helper.finish() }
        let wordsPerMinute = Int((Double(settings.wordsPerMinute) * settings.effectiveSpeed).rounded())
        var text = text, ssml = ssml
        if !ssml, settings.sentencePauseSeconds != nil || settings.paragraphPauseSeconds != nil {
            text = SpeechSynthesizer.markPauses(text, sentence: settings.sentencePauseSeconds, paragraph: settings.paragraphPauseSeconds)
            ssml = true
        }
        try helper.send(["text": text, "ssml": ssml, "voice": name,
                         "rate": min(max(wordsPerMinute, SpeechSettings.wordsPerMinuteRange.lowerBound), SpeechSettings.wordsPerMinuteRange.upperBound),
                         "pitch": settings.pitch, "volume": settings.volume])
        synthesizer.afterSending?(helper.pid)
        return try synthesizer.answer(from: helper)
    }
}
