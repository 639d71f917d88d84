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

    /// Each engine says a text with an entry exactly as it says the text respelled.
    @Test(arguments: ["espeak:en-us", "hibari:heart"])
    func everyEngineSaysTheRespelling(voice: String) throws {
        let synthesizer = SpeechSynthesizer()
        synthesizer.usesCache = false
        var settings = SpeechSettings(voice: voice)
        let plain = try synthesizer.synthesize("Goodnight, Sochee.", settings: settings, ssml: false)
        settings.lexicon = Lexicon(["Xochitl": "Sochee"])
        #expect(try synthesizer.synthesize("Goodnight, Xochitl.", settings: settings, ssml: false) == plain)
        #expect(try synthesizer.synthesize("Goodnight, Xochitl.", settings: SpeechSettings(voice: voice), ssml: false) != plain)
    }
}
