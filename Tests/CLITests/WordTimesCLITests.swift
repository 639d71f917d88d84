import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Every word in time (issue 57): the timeline's word times, measured against speech whose words' places are known,
/// and the transcript's rules.
@Suite struct WordTimesCLITests {
    /// A timeline's `{"start": {"frame": n}, "end": {"frame": n}}` as frames.
    func frames(_ span: [String: Any]) -> (Int, Int)? {
        guard let start = (span["start"] as? [String: Any])?["frame"] as? Int,
              let end = (span["end"] as? [String: Any])?["frame"] as? Int else { return nil }
        return (start, end)
    }

    /// The known truth: the neural voice says each word of a sentence alone; the words are joined with seeded gaps of
    /// 0 to 250 ms into one recording, so each word's first and last sample above -40 dBFS is known. The session plays
    /// it with its transcript (at another output rate, 48 kHz against the voice's 24 kHz), and the timeline's word
    /// times are within 50 ms of the truth at the median, starts and ends together, none more than 250 ms away: the
    /// name the aligner's dictionary lacks (`Aoife`, spelled a phone per letter) included, and the word after it not
    /// taking its sound. The same session's text said with `wordTimes` has its words in order, inside its sentences;
    /// one said without has none.
    @Test func wordTimesAreWithin50msOfTheTruthAtTheMedian() throws {
        let s = try TemporaryFolder()
        let transcript = "Relax now and let your breathing slow while the evening rain keeps falling softly outside Aoife and every sound drifts further away"
        let said = transcript.split(separator: " ").map(String.init)
        let synthesizer = SpeechSynthesizer()
        var settings = SpeechSettings(voice: "hibari:heart")
        settings.speed = 0.9
        var samples: [Int16] = [], truth: [Range<Int>] = []
        var noise = TestSignals.Noise(seed: 57)
        for word in said {
            let speech = try synthesizer.synthesize(word, settings: settings, ssml: false)
            #expect(speech.sampleRate == 24_000)
            samples += [Int16](repeating: 0, count: Int(noise.next() % 6_000))     // 0 to 250 ms
            let loud = speech.samples.indices.filter { abs(Int(speech.samples[$0])) > 328 }   // -40 dBFS
            let first = try #require(loud.first), last = try #require(loud.last)
            truth.append((samples.count + first)..<(samples.count + last + 1))
            samples += speech.samples
        }
        let recording = try s.wav("words.wav", rate: 24_000, frames: samples.count, format: .pcm16) { i, _ in Float(samples[i]) / 32768 }
        let preset = try s.write("p.json", """
            { "output": { "sampleRate": 48000, "channels": 1 },
              "sections": [ { "name": "A", "segments": [
                { "file": "\(recording)", "transcript": "\(transcript)" },
                { "text": "Relax now. Let your breathing slow, and rest, Aoife.", "gapBefore": "1s", "speech": { "wordTimes": true } },
                { "text": "Relax now.", "gapBefore": "1s" } ] } ] }
            """)
        let r = try CLI.run([preset, "-o", s.path("out.wav"), "--timeline", s.path("t.json")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
        let timeline = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("t.json"))) as? [String: Any])
        let segments = try #require((timeline["sections"] as? [[String: Any]])?.first?["segments"] as? [[String: Any]])
        try #require(segments.count == 3)

        // The recording: every word but the name, each against its truth.
        let start = try #require(frames(segments[0])).0
        let words = try #require(segments[0]["words"] as? [[String: Any]])
        let placed = words.compactMap { $0["word"] as? String }
        #expect(placed == said, "\(placed)")
        let known = truth
        var errors: [Double] = []
        for (word, truth) in zip(words, known) {
            let (a, b) = try #require(frames(word))
            errors.append(abs(Double(a - start) / 48_000 - Double(truth.lowerBound) / 24_000))
            errors.append(abs(Double(b - start) / 48_000 - Double(truth.upperBound) / 24_000))
        }
        let sorted = errors.sorted()
        let median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        print("word times against the truth: median \(Int((median * 1000).rounded())) ms, most \(Int(((sorted.last ?? 0) * 1000).rounded())) ms over \(known.count) words")
        #expect(median <= 0.050, "median error \(median) s: \(errors)")
        #expect((sorted.last ?? 1) <= 0.250, "largest error \(sorted.last ?? 1) s: \(errors)")

        // The spoken text: its words in order, each inside one of its sentences.
        let spoken = try #require(segments[1]["words"] as? [[String: Any]])
        #expect(spoken.compactMap { $0["word"] as? String } == ["Relax", "now", "Let", "your", "breathing", "slow", "and", "rest", "Aoife"])
        let sentences = try #require(segments[1]["sentences"] as? [[String: Any]]).compactMap(frames)
        var end = 0
        for word in spoken {
            let (a, b) = try #require(frames(word))
            #expect(a >= end && a < b, "\(spoken)")
            #expect(sentences.contains { $0.0 <= a && b <= $0.1 }, "\(word) is in no sentence of \(sentences)")
            end = b
        }
        // Without `wordTimes`, a text's words are not placed (the aligner's work is asked for).
        #expect(segments[2]["words"] == nil && (segments[2]["sentences"] as? [Any])?.count == 1, "\(segments[2])")
    }

    /// A transcript belongs to a recording: on a text it is one line at its path. A recording the aligner cannot
    /// take (8 kHz) renders, with one warning at its transcript's path saying why; a transcript that is not what the
    /// recording says renders too, with a warning, and no words.
    @Test func aTranscriptIsARecordingsAndOneThatCannotBeAlignedIsAWarning() throws {
        let s = try TemporaryFolder()
        let refused = try s.write("text.json", """
            { "sections": [ { "name": "A", "segments": [ { "text": "Relax.", "transcript": "Relax." } ] } ] }
            """)
        let r = try CLI.run(["validate", refused])
        #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains("sections[0].segments[0].transcript") && r.stderr.contains("recording"), "\(r.stderr)")

        var noise = TestSignals.Noise(seed: 8)
        let low = try s.wav("low.wav", rate: 8_000, frames: 16_000) { i, _ in 0.2 * Float(noise.next() % 1000) / 1000 * (i % 4000 < 2000 ? 1 : 0) }
        let tone = try s.wav("tone.wav", rate: 24_000, frames: 48_000) { i, _ in 0.3 * sin(Float(i) * 0.05) }
        for (file, reason) in [(low, "16000 Hz"), (tone, "could not follow the transcript")] {
            let preset = try s.write("p.json", """
                { "output": { "sampleRate": 24000, "channels": 1 },
                  "sections": [ { "name": "A", "segments": [ { "file": "\(file)", "transcript": "Relax now and rest." } ] } ] }
                """)
            let r = try CLI.run([preset, "-o", s.path("out.wav"), "--timeline", s.path("t.json")])
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
            #expect(warnings.count == 1 && warnings[0].contains("sections[0].segments[0].transcript") && warnings[0].contains(reason), "\(r.stderr)")
            let timeline = try String(contentsOf: s.url.appendingPathComponent("t.json"), encoding: .utf8)
            #expect(!timeline.contains("\"words\""))
        }
    }
}
