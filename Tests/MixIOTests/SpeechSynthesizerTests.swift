import Dispatch
import Foundation
import Glibc
import MixIO
import Testing

/// Speech through `SpeechSynthesizer`, both engines in their helper processes: rates, lengths, levels,
/// determinism (bit for bit, whatever was said before), SSML, crashes and kills contained, voices.
@Suite(.serialized) struct SpeechSynthesizerTests {
    static let sentence = "The quick brown fox jumps over the lazy dog."
    static let espeak = SpeechSettings(voice: "espeak:en-us")
    static let neural = SpeechSettings()

    /// A synthesizer that says every text afresh (no process-wide cache), so that comparisons compare syntheses.
    func fresh() -> SpeechSynthesizer {
        let synthesizer = SpeechSynthesizer()
        synthesizer.usesCache = false
        return synthesizer
    }

    func rms(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }

    /// The longest run, in seconds, of 10 ms windows whose peak is below -50 dBFS.
    func longestSilence(_ speech: SynthesizedSpeech) -> Double {
        let window = speech.sampleRate / 100
        var longest = 0, run = 0, i = 0
        while i + window <= speech.samples.count {
            let peak = speech.samples[i..<(i + window)].reduce(0) { max($0, abs(Int($1))) }
            if peak < 104 { run += 1; longest = max(longest, run) } else { run = 0 }
            i += window
        }
        return Double(longest * window) / Double(speech.sampleRate)
    }

    @Test(arguments: [(espeak, 22050), (neural, 24000)])
    func aSentenceIsSpeech(settings: SpeechSettings, rate: Int) throws {
        let speech = try fresh().synthesize(Self.sentence, settings: settings, ssml: false)
        #expect(speech.sampleRate == rate)
        #expect(speech.durationSeconds > 1 && speech.durationSeconds < 10, "\(speech.durationSeconds) s")
        let level = 20 * log10(rms(speech.samples))
        #expect(level > -40, "RMS \(level) dBFS")
    }

    /// Each text is a pure function of its request: the same samples alone, after other texts (plain and SSML),
    /// and from another synthesizer (another helper process).
    @Test(arguments: [espeak, neural])
    func theSameTextGivesTheSameSamplesWhateverCameBefore(settings: SpeechSettings) throws {
        let alone = try fresh().synthesize(Self.sentence, settings: settings, ssml: false)
        let synthesizer = fresh()
        _ = try synthesizer.synthesize("Seven silver swans swam silently seaward.", settings: SpeechSettings(voice: settings.voice, wordsPerMinute: 250, speed: 1.3), ssml: false)
        _ = try synthesizer.synthesize(#"Hello. <break time="2s"/> <prosody rate="slow">Goodbye.</prosody>"#, settings: settings, ssml: true)
        let after = try synthesizer.synthesize(Self.sentence, settings: settings, ssml: false)
        #expect(after == alone, "\(after.samples.count) samples after other texts, \(alone.samples.count) alone")
        let other = try synthesizer.synthesize("One, two, three.", settings: settings, ssml: false)
        #expect(other != alone)
    }

    static let japanese = SpeechSettings(voice: "kokoro:jf_alpha")

    /// The Japanese neural voice: 24 kHz, each sentence's samples given (two sentences, the sentence pause between
    /// them silent), and the same samples after another text. (The same in another process: `SpeechCLITests`.)
    @Test func theJapaneseVoiceSaysEachSentenceTheSameInAnyProcess() throws {
        let text = "ようこそ。ゆっくり休みましょう。"
        let synthesizer = fresh()
        let alone = try synthesizer.synthesize(text, settings: Self.japanese, ssml: false)
        #expect(alone.sampleRate == 24_000 && alone.durationSeconds > 1 && alone.durationSeconds < 8, "\(alone.durationSeconds) s")
        #expect(alone.sentences.count == 2 && alone.sentences.first?.lowerBound == 0 && alone.sentences.last?.upperBound == alone.samples.count)
        if alone.sentences.count == 2 {
            let gap = alone.sentences[0].upperBound..<alone.sentences[1].lowerBound
            #expect(gap.count == Int(SpeechSettings.defaultSentencePause * 24_000) && alone.samples[gap].allSatisfy { $0 == 0 })
        }
        _ = try synthesizer.synthesize("今日はいい天気です。", settings: Self.japanese, ssml: false)
        #expect(try synthesizer.synthesize(text, settings: Self.japanese, ssml: false) == alone)
    }

    /// A sentence longer than the model takes at once (Kokoro's 512 tokens, where the model itself fails: "invalid
    /// expand shape") with no punctuation is split between words, and all of it is said: as long as its parts.
    @Test func aSentenceLongerThanTheModelTakesIsSplitBetweenWords() throws {
        var fast = Self.japanese
        fast.speed = 2
        let part = "ゆっくり息を吸って静かに吐いて"
        let synthesizer = fresh()
        let one = try synthesizer.synthesize(part, settings: fast, ssml: false)
        let long = try synthesizer.synthesize(String(repeating: part, count: 15), settings: fast, ssml: false)
        #expect(long.sentences.count == 1)
        let ratio = long.durationSeconds / (one.durationSeconds * 15)
        #expect(ratio > 0.7 && ratio < 1.3, "\(long.durationSeconds) s for 15 parts of \(one.durationSeconds) s")
    }

    @Test(arguments: [espeak, neural])
    func aLowerSpeedIsLonger(settings: SpeechSettings) throws {
        var slow = settings, fast = settings
        slow.speed = 0.7
        fast.speed = 1.4
        let a = try fresh().synthesize(Self.sentence, settings: slow, ssml: false)
        let b = try fresh().synthesize(Self.sentence, settings: fast, ssml: false)
        #expect(a.durationSeconds > b.durationSeconds * 1.5, "\(a.durationSeconds) s at 0.7, \(b.durationSeconds) s at 1.4")
    }

    /// The neural voice's pauses: `sentencePause` after each sentence, `paragraphPause` after a blank line, and
    /// an SSML `<break>` exactly its length (silence inserted by mixrender between the helper's pieces).
    @Test func theNeuralVoicePausesWhereItIsTold() throws {
        var tight = Self.neural, loose = Self.neural
        tight.sentencePauseSeconds = 0
        tight.paragraphPauseSeconds = 0
        loose.sentencePauseSeconds = 1
        loose.paragraphPauseSeconds = 3
        let text = "Breathe in. Breathe out.\n\nAnd rest."
        let a = try fresh().synthesize(text, settings: tight, ssml: false)
        let b = try fresh().synthesize(text, settings: loose, ssml: false)
        #expect(b.samples.count - a.samples.count == 4 * 24_000, "\(a.samples.count) and \(b.samples.count) samples")
        #expect(longestSilence(b) >= 3)
        let plain = try fresh().synthesize("Hello.", settings: Self.neural, ssml: true)
        let goodbye = try fresh().synthesize("Goodbye.", settings: Self.neural, ssml: true)
        let broken = try fresh().synthesize(#"Hello. <break time="1500ms"/> Goodbye."#, settings: Self.neural, ssml: true)
        #expect(broken.samples == plain.samples + [Int16](repeating: 0, count: 36_000) + goodbye.samples)
        let slowly = try fresh().synthesize(#"<prosody rate="slow">Hello.</prosody>"#, settings: Self.neural, ssml: true)
        #expect(slowly.durationSeconds > plain.durationSeconds * 1.1, "\(slowly.durationSeconds) s slow, \(plain.durationSeconds) s")
    }

    /// espeak-ng with pauses given: a `<break>` after each sentence and paragraph, replacing its own pause there
    /// (so the difference between two settings is exactly the difference of the pauses, within its timing).
    @Test func espeakPausesWhereItIsToldWhenAsked() throws {
        var short = Self.espeak, long = Self.espeak
        short.sentencePauseSeconds = 0.1
        short.paragraphPauseSeconds = 0.1
        long.sentencePauseSeconds = 1.1
        long.paragraphPauseSeconds = 2.1
        let text = "Breathe in & out. Breathe <slowly>.\n\nAnd rest."
        let a = try fresh().synthesize(text, settings: short, ssml: false)
        let b = try fresh().synthesize(text, settings: long, ssml: false)
        #expect(abs(b.durationSeconds - a.durationSeconds - 3) < 0.05, "\(a.durationSeconds) s and \(b.durationSeconds) s")
        #expect(longestSilence(b) >= 2)
    }

    /// `<audio>` (which espeak-ng hands to `system()`) and anything outside the subset never reach an engine;
    /// nothing is run and nothing is created.
    @Test(arguments: [#"<audio src="/tmp/$(touch PWNED).txt">x</audio>"#, #"<audio src="/etc/passwd">x</audio>"#,
                      #"<!DOCTYPE speak [<!ENTITY x SYSTEM "/etc/passwd">]><speak>&x;</speak>"#, #"<voice name="x">Hi</voice>"#,
                      #"Hello <break time="2s">"#, "&bogus; text"])
    func SSMLOutsideTheSubsetIsRefused(markup: String) throws {
        let before = try FileManager.default.contentsOfDirectory(atPath: "/tmp")
        for settings in [Self.espeak, Self.neural] {
            do {
                _ = try fresh().synthesize(markup, settings: settings, ssml: true)
                Issue.record("\(markup) was said")
            } catch {
                #expect("\(error)".hasPrefix("SSML: "), "\(error)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/PWNED"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/tmp").filter { !before.contains($0) && $0.contains("PWNED") }.isEmpty)
    }

    /// The text that crashed espeak-ng in-process (voice `hi`) is said by a helper of its own: it either gives
    /// speech or one error, and the next text is unaffected.
    @Test func aTextThatCrashedEspeakIsContained() throws {
        let synthesizer = fresh()
        for _ in 0..<3 {
            do {
                let speech = try synthesizer.synthesize("😀😀😀ae-i\"", settings: SpeechSettings(voice: "espeak:hi"), ssml: false)
                #expect(speech.samples.count > 0)
            } catch {
                #expect(!"\(error)".contains("\n"))
                #expect("\(error)".contains("helper"), "\(error)")
            }
        }
        let after = try synthesizer.synthesize(Self.sentence, settings: Self.espeak, ssml: false)
        #expect(after == (try fresh().synthesize(Self.sentence, settings: Self.espeak, ssml: false)))
    }

    /// A helper killed while it says a text is one error naming what happened; the next text starts a new helper.
    @Test(arguments: [espeak, neural])
    func aHelperKilledMidTextIsOneError(settings: SpeechSettings) throws {
        let synthesizer = fresh()
        synthesizer.afterSending = { pid in kill(pid, SIGKILL) }
        do {
            _ = try synthesizer.synthesize(Self.sentence, settings: settings, ssml: false)
            Issue.record("a killed helper gave speech")
        } catch {
            #expect("\(error)".contains("was killed (signal 9"), "\(error)")
            #expect(!"\(error)".contains("\n"))
        }
        synthesizer.afterSending = nil
        let again = try synthesizer.synthesize(Self.sentence, settings: settings, ssml: false)
        #expect(again == (try fresh().synthesize(Self.sentence, settings: settings, ssml: false)))
    }

    /// A helper that takes longer than the time-out is stopped: one error.
    @Test func aHelperPastItsTimeOutIsStopped() throws {
        var limits = SpeechHelperLimits()
        limits.timeoutSeconds = 0.001
        let synthesizer = SpeechSynthesizer(limits: limits)
        synthesizer.usesCache = false
        #expect(throws: AudioIOError.self) {
            try synthesizer.synthesize(String(repeating: Self.sentence + " ", count: 20), settings: Self.neural, ssml: false)
        }
        do {
            _ = try synthesizer.synthesize(String(repeating: Self.sentence + " ", count: 20), settings: Self.espeak, ssml: false)
        } catch {
            #expect("\(error)".contains("time-out"), "\(error)")
        }
    }

    @Test(arguments: [("xx-yy", "no voice or language is called 'xx-yy'"), ("en-gb+f33", "no variant 'f33'"),
                      ("hibari:hart", "no voice 'hart'")])
    func anUnknownVoiceOrVariantIsRefused(voice: String, message: String) throws {
        do {
            try SpeechSynthesizer.check(voice: voice)
            Issue.record("\(voice) was accepted")
        } catch let error as SpeechSynthesizer.UnknownVoice {
            #expect(error.what.contains(message), "\(error.what)")
            #expect(!error.candidates.isEmpty)
        }
    }

    @Test(arguments: ["en-gb", "en-gb+f3", "en-us", "de", "espeak:fr", "espeak:en-us+klatt", "heart", "hibari:heart"])
    func knownVoicesAreAccepted(voice: String) throws {
        try SpeechSynthesizer.check(voice: voice)
    }

    @Test func voicesAreListed() throws {
        let (voices, variants) = try SpeechSynthesizer.catalogue()
        #expect(voices.first?.id == "hibari:heart")
        #expect(voices.contains { $0.id == "espeak:en-us" && $0.engine == "espeak" })
        #expect(variants.contains("f3"))
    }

    /// Four syntheses on four threads at once, each in its own helpers, give exactly what one thread gives.
    @Test func concurrentSynthesesMatchSerial() throws {
        let texts = ["One, two, three.", "A quiet evening by the sea.", "Breathe in slowly.", "Let go of the day."]
        let settings = [Self.espeak, SpeechSettings(voice: "en-gb", wordsPerMinute: 120), Self.neural, SpeechSettings(speed: 0.8)]
        let serial = try (0..<4).map { try fresh().synthesize(texts[$0], settings: settings[$0], ssml: false) }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var values = [Result<SynthesizedSpeech, Error>?](repeating: nil, count: 4)
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let synthesizer = SpeechSynthesizer()
            synthesizer.usesCache = false
            let r = Result { try synthesizer.synthesize(texts[i], settings: settings[i], ssml: false) }
            results.lock.withLock { results.values[i] = r }
        }
        for i in 0..<4 { #expect(try #require(results.values[i]).get() == serial[i], "text \(i)") }
    }

    @Test(arguments: ["", "   \n\t", "Hello\u{0}world"])
    func emptyTextAndNULAreRefused(text: String) {
        #expect(throws: AudioIOError.self) {
            try fresh().synthesize(text, settings: Self.espeak, ssml: false)
        }
    }
}
