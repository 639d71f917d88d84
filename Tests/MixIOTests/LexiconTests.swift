import MixIO
import Testing

/// The pronunciation lexicon (`Lexicon`): whole words in any case, words in unspaced scripts wherever they occur,
/// SSML's tags untouched, and what an entry may be; and every engine says a word with an entry as its respelling.
@Suite struct LexiconTests {
    let lexicon = Lexicon(["Aoife": "Eefa", "Siobhan": "Shiv-awn", "山田": "やまだ", "O'Neill": "Oh Neel"])

    @Test func wholeWordsAreRespelledInAnyCase() {
        #expect(lexicon.apply(to: "Aoife, rest now. AOIFE! aoife's", ssml: false) == "Eefa, rest now. Eefa! aoife's")
        #expect(lexicon.apply(to: "Aoifeen and Siobhan-Marie", ssml: false) == "Aoifeen and Siobhan-Marie")
        #expect(lexicon.apply(to: "Goodnight, O'Neill.", ssml: false) == "Goodnight, Oh Neel.")
        #expect(lexicon.apply(to: "山田さん、こんにちは。", ssml: false) == "やまださん、こんにちは。")
        #expect(Lexicon().apply(to: "Aoife", ssml: false) == "Aoife")
    }

    @Test func ssmlTagsAreNeverChanged() {
        let markup = #"<speak>Aoife <break time="1s"/> <prosody rate="slow">Siobhan</prosody> <say-as interpret-as="Aoife">x</say-as></speak>"#
        #expect(lexicon.apply(to: markup, ssml: true)
                == #"<speak>Eefa <break time="1s"/> <prosody rate="slow">Shiv-awn</prosody> <say-as interpret-as="Aoife">x</say-as></speak>"#)
    }

    @Test func anEntryIsOneWordAndPlainText() {
        #expect(Lexicon.problem(word: "Aoife", respelling: "Eefa") == nil)
        #expect(Lexicon.problem(word: "New York", respelling: "x")?.contains("not one word") == true)
        #expect(Lexicon.problem(word: "", respelling: "x") != nil)
        #expect(Lexicon.problem(word: "a", respelling: "") != nil)
        #expect(Lexicon.problem(word: "a", respelling: "<audio src=\"x\"/>")?.contains("markup") == true)
        #expect(Lexicon.problem(word: "a", respelling: "x\u{7}") != nil)
        #expect(Lexicon.problem(word: String(repeating: "a", count: 65), respelling: "x") != nil)
        // A segment's entries over the voice's.
        #expect(Lexicon(["a": "1", "b": "2"]).merging(Lexicon(["B": "3"])).entries == ["a": "1", "b": "3"])
    }

    /// IPA between slashes is an entry's phonemes: checked symbol by symbol, and written for each engine (misaki's
    /// set for hibari, espeak-ng's IPA for Kokoro and Piper, espeak-ng's own names for espeak-ng), each stress mark
    /// moved to just before its vowel, as the engines' own phonemizers write it.
    @Test func phonemesAreIPAWrittenAsEachEngineReadsThem() {
        #expect(Lexicon.problem(word: "Aoife", respelling: "/ˈiːfə/") == nil)
        #expect(Lexicon.problem(word: "Aoife", respelling: "/ˈiː.fə/") == nil)
        #expect(Lexicon.problem(word: "Aoife", respelling: "/ˈiːf@/")?.contains("'@'") == true)
        #expect(Lexicon.problem(word: "Aoife", respelling: "/ˈ/")?.contains("no IPA sound") == true)
        #expect(Lexicon.problem(word: "Aoife", respelling: "[[i:f@]]")?.contains("'['") == true)
        #expect(IPA.misaki("həˈloʊ") == "həlˈO")
        #expect(IPA.misaki("ˈiː.fə") == "ˈifə")
        #expect(IPA.misaki("ʃɪˈvɔːn") == "ʃɪvˈɔn")
        #expect(IPA.misaki("ˈtʃeɪs") == "ʧˈAs")
        #expect(IPA.espeak("həˈloʊ") == "h@l'oU")
        #expect(IPA.espeak("ˈiːfə") == "'i:f@")
        #expect(IPA.espeak("ˈdʒɔɪ") == "dZ'OI")
        #expect(IPA.espeakIPA("həˈloʊ") == "həlˈoʊ")
        let phonemes = Lexicon(["Aoife": "/ˈiːfə/", "Siobhan": "Shiv-awn"])
        #expect(phonemes.apply(to: "Aoife and Siobhan.", ssml: false) { "<\($0)=\($1)>" } == "<Aoife=ˈiːfə> and Shiv-awn.")
    }

    /// Each engine says a text with an entry exactly as it says the text respelled, and a word with phonemes in IPA
    /// as it says the word those phonemes are: a made-up word given "hello"'s IPA is said exactly as "hello" (the
    /// samples equal). Piper's is in InstalledVoicesCLITests.
    @Test(arguments: ["espeak:en-us", "hibari:heart"])
    func everyEngineSaysTheRespellingAndThePhonemes(voice: String) throws {
        let synthesizer = SpeechSynthesizer()
        synthesizer.usesCache = false
        for (entry, spelt, word, said) in [("Xochitl", "Sochee", "Goodnight, Xochitl.", "Goodnight, Sochee."),
                                           ("Zorblax", "/həˈloʊ/", "Goodnight, Zorblax.", "Goodnight, hello.")] {
            var settings = SpeechSettings(voice: voice)
            let plain = try synthesizer.synthesize(said, settings: settings, ssml: false)
            settings.lexicon = Lexicon([entry: spelt])
            #expect(try synthesizer.synthesize(word, settings: settings, ssml: false).samples == plain.samples, "\(entry): \(spelt)")
            #expect(try synthesizer.synthesize(word, settings: SpeechSettings(voice: voice), ssml: false).samples != plain.samples)
        }
    }
}
