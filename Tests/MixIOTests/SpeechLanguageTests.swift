import MixIO
import Testing

/// Languages of text and voices (`SpeechLanguage`) and the voice chosen for a text (`SpeechSettings.choice`): the
/// language a text is plainly in, a natural voice before espeak-ng's, and a warning for a draft voice or a voice of
/// another language. The Japanese and English neural voices are installed by the set-up the tests run after.
@Suite struct SpeechLanguageTests {
    @Test(arguments: [
        ("ようこそ。今日はゆっくりと休む時間です。", "ja"),
        ("コーヒーを飲みましょう", "ja"),
        ("我们现在慢慢地呼吸，放松身体。", "zh"),
        ("이제 천천히 숨을 쉬세요.", "ko"),
        ("Дышите медленно и спокойно.", "ru"),
        ("Let your shoulders drop and your breathing slow down.", "en"),
        ("Respira despacio y deja que tu cuerpo descanse ahora.", "es"),
        ("Respirez lentement et laissez votre corps se reposer maintenant.", "fr"),
        ("Atme langsam und lass deinen Körper jetzt ruhen, du bist sicher.", "de"),
        ("Respira lentamente e lascia che il tuo corpo si riposi ora.", "it"),
        ("Respire devagar e deixe o seu corpo descansar agora, você está seguro.", "pt"),
        ("Adem langzaam en laat je lichaam nu rusten.", "nl"),
    ])
    func aTextIsPlainlyInItsLanguage(text: String, language: String) {
        #expect(SpeechLanguage.detect(text) == language, "\(text)")
    }

    /// Too short, mixed, or names alone: no language is claimed, and the voice is left as it is.
    @Test(arguments: ["Hi.", "Anna, Lisbon, Tokyo, Paris.", "1 2 3 4 5", "", "<speak><break time=\"2s\"/></speak>", "Okay okay okay okay"])
    func aTextOfNoPlainLanguageClaimsNone(text: String) {
        #expect(SpeechLanguage.detect(text) == nil, "\(text)")
    }

    @Test func tagsAreCheckedAndTheirPrimarySubtagFound() {
        #expect(SpeechLanguage.primary(of: "en-GB") == "en")
        #expect(SpeechLanguage.primary(of: "cmn-latn-pinyin") == "cmn")
        #expect(SpeechLanguage.primary(of: "ja") == "ja")
        for bad in ["", "j", "english", "en_gb", "e1", "en-", "en-toolongsubtag", "日本"] { #expect(SpeechLanguage.primary(of: bad) == nil, "\(bad)") }
        #expect(SpeechLanguage.speaks("en-us", "en") && SpeechLanguage.speaks("cmn", "zh") && !SpeechLanguage.speaks("en-us", "ja"))
    }

    /// With no voice named, Japanese text gets the Japanese neural voice, English the default voice, and a language
    /// no natural voice speaks espeak-ng's draft voice, with a warning naming what to do.
    @Test func aTextWithNoVoiceNamedGetsTheBestInstalledVoiceForItsLanguage() {
        let none = SpeechSettings()
        let japanese = none.choice(forText: "ようこそ。今日はゆっくりと休む時間です。")
        #expect(japanese.settings.voice == "kokoro:jf_alpha" && japanese.language == "ja" && japanese.warning == nil)
        let english = none.choice(forText: "Let your shoulders drop and your breathing slow down.")
        #expect(english.settings.voice == SpeechSettings.defaultVoice && english.warning == nil)
        let unknown = none.choice(forText: "Anna.")
        #expect(unknown.settings.voice == SpeechSettings.defaultVoice && unknown.language == nil && unknown.warning == nil)
        let spanish = none.choice(forText: "Respira despacio y deja que tu cuerpo descanse ahora.")
        #expect(spanish.settings.voice == "espeak:es")
        #expect(spanish.warning?.contains("Spanish") == true && spanish.warning?.contains("draft") == true, "\(spanish.warning ?? "")")
        // A language given wins over the text's own look.
        var given = none
        given.language = "ja"
        #expect(given.choice(forText: "Tokyo.").settings.voice == "kokoro:jf_alpha")
    }

    /// A voice named is kept; a text plainly in another language warns, naming the voices for that language.
    @Test func aNamedVoiceOfAnotherLanguageWarnsAndIsKept() {
        let heart = SpeechSettings(voice: "hibari:heart")
        let choice = heart.choice(forText: "Respira despacio y deja que tu cuerpo descanse ahora.")
        #expect(choice.settings.voice == "hibari:heart")
        let warning = choice.warning ?? ""
        #expect(warning.contains("looks like Spanish") && warning.contains("'hibari:heart' speaks English") && warning.contains("espeak:es"), "\(warning)")
        let japanese = SpeechSettings(voice: "kokoro:jm_kumo").choice(forText: "Let your shoulders drop and your breathing slow down.")
        #expect(japanese.settings.voice == "kokoro:jm_kumo" && japanese.warning?.contains("hibari:heart") == true)
        #expect(SpeechSettings(voice: "espeak:es").choice(forText: "Respira despacio y deja que tu cuerpo descanse ahora.").warning == nil)
    }

    /// Credits name each voice's licence and attribution, a variant its base voice's.
    @Test func aVoicesCreditNamesItsLicenceAndAttribution() {
        let kokoro = SpeechSynthesizer.credit(forVoice: "kokoro:jf_alpha")
        #expect(kokoro.natural && kokoro.licence == "Apache-2.0" && kokoro.attribution.contains("Kokoro-82M") && kokoro.languages == ["ja"])
        let variant = SpeechSynthesizer.credit(forVoice: "espeak:en-gb+f3")
        #expect(variant.id == "espeak:en-gb+f3" && !variant.natural && variant.licence.hasPrefix("GPL-3.0") && variant.languages.contains("en-gb"))
    }
}
