import MixIO
import Testing

/// The speech seam: engines registered once (`SpeechEngines.all`), voices named by a structured id (`VoiceID`), and
/// what a synthesis depends on asked of the voice's engine, never switched on.
@Suite struct SpeechEngineTests {
    @Test(arguments: [
        ("hibari:heart", "hibari", "heart"), ("espeak:en-gb", "espeak", "en-gb"), ("espeak:en-us+f3", "espeak", "en-us+f3"),
        ("ESPEAK:en-gb", "espeak", "en-gb"), ("heart", "hibari", "heart"), ("Heart", "hibari", "heart"),
        ("en-gb", "espeak", "en-gb"), ("nobody:x", "espeak", "nobody:x"), ("kokoro:jf_alpha", "kokoro", "jf_alpha"),
        ("jm_kumo", "kokoro", "jm_kumo"),
    ])
    func aVoiceNamesItsEngineOrIsClaimedByTheFirstThatHasIt(text: String, engine: String, name: String) {
        let id = VoiceID(parsing: text)
        #expect(id == VoiceID(engine: engine, name: name), "\(text) -> \(id)")
        #expect(id.speechEngine.key == engine)
    }

    @Test func everyEngineIsRegisteredOnceAndSaysWhatASynthesisDependsOn() {
        let keys = SpeechEngines.all.map(\.key)
        #expect(keys == ["hibari", "kokoro", "piper", "espeak"])
        #expect(Set(keys).count == keys.count)
        for engine in SpeechEngines.all { #expect(SpeechEngines.engine(forKey: engine.key)?.key == engine.key) }
        #expect(SpeechEngines.hibari.sampleRate == 24_000 && SpeechEngines.kokoro.sampleRate == 24_000 && SpeechEngines.espeak.sampleRate == 22_050)
        // The pace in effect is the voice's engine's default unless given.
        #expect(SpeechSettings(voice: "hibari:heart").effectiveSpeed == 0.9)
        #expect(SpeechSettings(voice: "espeak:en-gb").effectiveSpeed == 1.0)
        #expect(SpeechSettings(voice: "espeak:en-gb", speed: 1.3).effectiveSpeed == 1.3)
    }

    @Test func theCatalogueIsEveryEnginesVoicesAndAnUnknownOneSuggestsThem() throws {
        let (voices, variants) = try SpeechSynthesizer.catalogue()
        #expect(voices.first?.id == "hibari:heart")
        #expect(voices.contains { $0.id == "espeak:en-gb" || $0.languages.contains("en-gb") })
        #expect(!variants.isEmpty)
        // piper has no voice of its own: only those an operator installs (InstalledVoicesCLITests).
        #expect(Set(voices.map(\.engine)) == Set(SpeechEngines.all.map(\.key)).subtracting(["piper"]))
        do {
            try SpeechSynthesizer.check(voice: "espeak:xx-nowhere")
            Issue.record("an unknown voice was accepted")
        } catch let unknown as SpeechSynthesizer.UnknownVoice {
            #expect(unknown.candidates.contains("hibari:heart") && unknown.candidates.count > 10)
        }
    }
}
