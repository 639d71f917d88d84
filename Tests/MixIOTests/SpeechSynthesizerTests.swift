import Dispatch
import Foundation
import MixIO
import Testing

/// espeak-ng through `SpeechSynthesizer`: rate, length, level, determinism, SSML breaks, voices, the lock.
@Suite(.serialized) struct SpeechSynthesizerTests {
    static let sentence = "The quick brown fox jumps over the lazy dog."
    static let settings = SpeechSettings()

    /// RMS of Int16 samples, as a fraction of full scale.
    func rms(_ samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / 32768
    }

    /// Levels (dB) of 20 ms frames.
    func envelope(_ speech: SynthesizedSpeech) -> [Double] {
        let frame = speech.sampleRate / 50
        return stride(from: 0, to: speech.samples.count - frame + 1, by: frame).map {
            20 * log10(max(rms(Array(speech.samples[$0..<($0 + frame)])), 1e-9))
        }
    }

    /// Whether two syntheses are the same speech: espeak-ng is not bit-for-bit repeatable within a process
    /// (its pitch flutter index, a function-static in wavegen.c, runs on from one synthesis into the next and
    /// nothing resets it), so the same text gives the same words, length within a few pitch periods and the
    /// same loudness contour, but not the same samples. Returns nil when they match, else why not.
    func mismatch(_ a: SynthesizedSpeech, _ b: SynthesizedSpeech) -> String? {
        guard a.sampleRate == b.sampleRate else { return "rates \(a.sampleRate), \(b.sampleRate)" }
        let lengths = abs(a.durationSeconds - b.durationSeconds)
        guard lengths < 0.02 else { return "durations \(a.durationSeconds) s, \(b.durationSeconds) s" }
        let ea = envelope(a), eb = envelope(b)
        let loud = (0..<min(ea.count, eb.count)).filter { max(ea[$0], eb[$0]) > -40 }
        let meanDifference = loud.map { abs(ea[$0] - eb[$0]) }.reduce(0, +) / Double(max(loud.count, 1))
        guard meanDifference < 1.5 else { return "20 ms levels differ by \(meanDifference) dB on average" }
        return nil
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

    @Test func aSentenceIsSpeechAt22050Hz() throws {
        let speech = try SpeechSynthesizer.synthesize(Self.sentence, settings: Self.settings, ssml: false)
        #expect(speech.sampleRate == 22050)
        #expect(speech.durationSeconds > 0.5 && speech.durationSeconds < 10, "\(speech.durationSeconds) s")
        // Well above silence: speech at espeak-ng's normal volume is around -20 dBFS RMS; -40 dBFS is a floor.
        let level = 20 * log10(rms(speech.samples))
        #expect(level > -40, "RMS \(level) dBFS")
    }

    /// Not the same samples (see `mismatch`): the same speech. Bit-for-bit repeatability holds per process
    /// (a render is one process; SessionCLITests renders twice and compares the files).
    @Test func theSameTextGivesTheSameSpeech() throws {
        let a = try SpeechSynthesizer.synthesize(Self.sentence, settings: Self.settings, ssml: false)
        let b = try SpeechSynthesizer.synthesize(Self.sentence, settings: Self.settings, ssml: false)
        #expect(mismatch(a, b) == nil, "\(mismatch(a, b) ?? "")")
        // And a different text is told apart by the same comparison.
        let other = try SpeechSynthesizer.synthesize("Seven silver swans swam silently seaward.", settings: Self.settings, ssml: false)
        #expect(mismatch(a, other) != nil)
    }

    @Test func aSlowerRateIsLonger() throws {
        let slow = try SpeechSynthesizer.synthesize(Self.sentence, settings: SpeechSettings(wordsPerMinute: 100), ssml: false)
        let fast = try SpeechSynthesizer.synthesize(Self.sentence, settings: SpeechSettings(wordsPerMinute: 250), ssml: false)
        #expect(slow.durationSeconds > fast.durationSeconds * 1.5, "\(slow.durationSeconds) s at 100 wpm, \(fast.durationSeconds) s at 250 wpm")
    }

    /// espeak-ng's break *replaces* the pause at that point (as SSML says a break controls the prosodic
    /// boundary): after "Hello." it stands instead of the sentence's own pause (0.39 s at 150 wpm), so
    /// against "Hello. Goodbye." it adds 2 s minus that pause (about 1.5 s); against "Hello Goodbye." (no
    /// pause) it adds its 2 s.
    @Test func anSSMLBreakIsItsLengthOfSilence() throws {
        let sentences = try SpeechSynthesizer.synthesize("Hello. Goodbye.", settings: Self.settings, ssml: true)
        let run = try SpeechSynthesizer.synthesize("Hello Goodbye.", settings: Self.settings, ssml: true)
        let broken = try SpeechSynthesizer.synthesize(#"Hello. <break time="2s"/> Goodbye."#, settings: Self.settings, ssml: true)
        let longer = try SpeechSynthesizer.synthesize(#"Hello. <break time="4s"/> Goodbye."#, settings: Self.settings, ssml: true)
        let added = broken.durationSeconds - run.durationSeconds
        #expect(abs(added - 2) <= 0.4, "the break added \(added) s to 'Hello Goodbye.'")
        let overSentencePause = broken.durationSeconds - sentences.durationSeconds
        #expect(overSentencePause > 1.2 && overSentencePause < 2.4, "the break added \(overSentencePause) s to 'Hello. Goodbye.'")
        #expect(abs(longer.durationSeconds - broken.durationSeconds - 2) <= 0.1)
        let silence = longestSilence(broken)
        #expect(silence >= 1.5 && silence <= 2.4, "longest near-silence \(silence) s")
        #expect(longestSilence(sentences) < 1, "\(longestSilence(sentences)) s")
    }

    @Test func anUnknownVoiceIsNamedWithVoicesThatExist() throws {
        do {
            try SpeechSynthesizer.check(voice: "xx-yy")
            Issue.record("xx-yy was accepted")
        } catch {
            let message = "\(error)"
            #expect(message.contains("no such voice"), "\(message)")
            #expect(message.contains("en-us"), "\(message)")
            #expect(message.contains("xx-yy"), "\(message)")
        }
    }

    @Test(arguments: ["en-gb", "en-gb+f3", "en-us", "de"])
    func knownVoicesAreAccepted(voice: String) throws {
        try SpeechSynthesizer.check(voice: voice)
    }

    @Test func voicesAreListed() throws {
        let voices = try SpeechSynthesizer.voices()
        #expect(!voices.isEmpty)
        #expect(voices.contains { $0.languages.contains("en-us") })
    }

    /// Four syntheses on four threads at once (serialised by the lock) give what one thread gives: each its
    /// own text at its own length, none mixed into another or garbled.
    @Test func concurrentSynthesesMatchSerial() throws {
        let texts = ["One, two, three.", "A quiet evening by the sea.", "Breathe in slowly.", "Let go of the day."]
        let settings = [SpeechSettings(), SpeechSettings(voice: "en-gb", wordsPerMinute: 120),
                        SpeechSettings(pitch: 30), SpeechSettings(voice: "en-us+f3", volume: 150)]
        let serial = try (0..<4).map { try SpeechSynthesizer.synthesize(texts[$0], settings: settings[$0], ssml: false) }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var values = [Result<SynthesizedSpeech, Error>?](repeating: nil, count: 4)
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let r = Result { try SpeechSynthesizer.synthesize(texts[i], settings: settings[i], ssml: false) }
            results.lock.withLock { results.values[i] = r }
        }
        for i in 0..<4 {
            let concurrent = try #require(results.values[i]).get()
            // Timing depends on the calls before (the known issue below), and the order here is the scheduler's:
            // within 10% of its own serial length, and nearest its own text (the four differ by 20% or more).
            let lengths = serial.map { abs($0.durationSeconds - concurrent.durationSeconds) }
            #expect(lengths[i] <= 0.1 * serial[i].durationSeconds, "text \(i): \(concurrent.durationSeconds) s, serially \(serial[i].durationSeconds) s")
            #expect(lengths.firstIndex(of: lengths.min()!) == i, "text \(i): \(concurrent.durationSeconds) s, serially \(serial.map(\.durationSeconds))")
            #expect(concurrent.sampleRate == 22050)
        }
    }

    /// Known bug: an SSML synthesis leaves state in espeak-ng that the next plain-text syntheses inherit:
    /// "One, two, three." at the default settings is 35572 samples, but 38014 (0.11 s longer) after any
    /// `ssml: true` call, and stays so (through check, voices, other texts with the same voice) until a call
    /// with another voice. `synthesize` sets voice, rate, pitch and volume each time, but not what SSML changes.
    /// Marked intermittent (other suites may synthesise in between); when it no longer shows, drop `withKnownIssue`.
    @Test func anSSMLCallDoesNotChangeTheNextPlainCall() throws {
        let text = "One, two, three."
        // The sequence that shows it (after a change of voice just before, it does not always show).
        _ = try SpeechSynthesizer.synthesize("The quick brown fox.", settings: SpeechSettings(wordsPerMinute: 250), ssml: false)
        let before = try SpeechSynthesizer.synthesize(text, settings: Self.settings, ssml: false)
        _ = try SpeechSynthesizer.synthesize(#"Hello. <break time="2s"/> Goodbye."#, settings: Self.settings, ssml: true)
        let after = try SpeechSynthesizer.synthesize(text, settings: Self.settings, ssml: false)
        withKnownIssue("espeak-ng state left by an SSML synthesis lengthens the next plain ones", isIntermittent: true) {
            #expect(abs(after.durationSeconds - before.durationSeconds) < 0.005,
                    "\(before.samples.count) samples before an SSML call, \(after.samples.count) after")
        }
    }

    @Test(arguments: ["", "   \n\t", "Hello\u{0}world"])
    func emptyTextAndNULAreRefused(text: String) {
        #expect(throws: AudioIOError.self) {
            try SpeechSynthesizer.synthesize(text, settings: Self.settings, ssml: false)
        }
    }

    /// Seconds of speech per second of wall time for about a minute of text at 150 words per minute.
    /// Printed, not asserted: it depends on the machine.
    @Test func synthesisSpeed() throws {
        let paragraph = "Let your shoulders drop and your breathing slow down. With every breath out, the body grows heavier, "
            + "the mind quieter, and the sounds around you fade into the distance. "
        let text = String(repeating: paragraph, count: 5)      // about 150 words
        let clock = ContinuousClock()
        var speech: SynthesizedSpeech?
        let elapsed = try clock.measure { speech = try SpeechSynthesizer.synthesize(text, settings: Self.settings, ssml: false) }
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let seconds = try #require(speech).durationSeconds
        print("espeak-ng synthesis: \(String(format: "%.1f", seconds)) s of speech in \(String(format: "%.3f", wall)) s "
              + "(\(String(format: "%.0f", seconds / wall))x realtime)")
        #expect(seconds > 30)
    }
}
