/// The neural voice: hibari-tts (PyPI, Apache-2.0), a voice distilled from Kokoro-82M, run by the project's virtual
/// environment's Python (`scripts/install-speech.sh`) in one helper process per `SpeechSynthesizer` (one per plan),
/// started on first use and fed texts one after another. Each text is seeded and said on one onnxruntime thread, so
/// its samples depend on the request alone. A value with no state; `Sendable`.
public struct HibariSpeechEngine: SpeechEngine {
    public let key = "hibari"
    public let sampleRate = 24_000
    /// 0.9: calm, not a newsreader's pace.
    public let defaultSpeed = 0.9
    /// The voices that need nothing downloaded (inside the hibari-tts wheel): name, language, gender.
    public static let voiceList: [(name: String, language: String, gender: String)] = [("heart", "en-us", "female")]

    /// The SHA-256 of the pinned requirements as installed (they fix hibari-tts, its model and onnxruntime).
    public func identity() -> String? {
        guard let venv = SpeechHelperLocation.hibariEnvironmentFolder(),
              let stamp = try? FileSystem.readDocument(path: venv + "/.mixrender-requirements", maximumBytes: 1 << 20) else { return nil }
        return "hibari-tts requirements sha256 " + ContentHash.of(String(decoding: stamp, as: UTF8.self))
    }

    public func claims(bareName: String) -> String? {
        Self.voiceList.contains { $0.name == bareName.lowercased() } ? bareName.lowercased() : nil
    }

    public func voices() throws -> (voices: [SpeechVoice], variants: [String]) {
        (Self.voiceList.map {
            SpeechVoice(id: "\(key):" + $0.name, engine: key, name: $0.name, languages: [$0.language], gender: $0.gender,
                        origin: "hibari-tts 0.2.1 (PyPI, Apache-2.0; distilled from Kokoro-82M, Apache-2.0)")
        }, [])
    }

    public func check(name: String, voice: String) throws {
        guard Self.voiceList.contains(where: { $0.name == name }) else {
            throw SpeechSynthesizer.UnknownVoice(voice: voice, candidates: Self.voiceList.map { "\(key):" + $0.name },
                                                 what: "the neural voice has no voice '\(name)'")
        }
        guard SpeechHelperLocation.hibariEnvironmentFolder() != nil else { throw SpeechHelperLocation.hibariMissing() }
    }

    public func synthesize(_ text: String, pieces: [SSMLSubset.Piece], ssml: Bool, name: String, settings: SpeechSettings,
                           for synthesizer: SpeechSynthesizer) throws -> SynthesizedSpeech {
        let helper = try synthesizer.keptHelper(for: key, start: start)
        var samples: [Int16] = []
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
        return SynthesizedSpeech(samples: samples, sampleRate: rate)
    }

    /// Starts the helper and waits for it to say it is ready.
    private func start(_ limits: SpeechHelperLimits) throws -> SpeechHelperProcess {
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
        return helper
    }
}
