import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Speech end to end through the built `mixrender` (issue 22): SSML that names a file or a program is refused
/// with nothing run or written, a text that crashed espeak-ng is contained, batches render speech exactly as
/// lone renders do, a missing neural voice says how to install it, and `mixrender voices` lists both engines.
@Suite struct SpeechCLITests {
    /// Every file below `folder`, recursively, sorted.
    func everything(_ folder: TemporaryFolder) -> [String] {
        ((FileManager.default.enumerator(atPath: folder.url.path)?.allObjects as? [String]) ?? []).sorted()
    }

    func expectOneLineError(_ r: CLI.Result, _ fragments: [String], _ what: String) {
        #expect(r.status != 0, "\(what): exit status 0")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(what): \(r.stderr)")
        for fragment in fragments { #expect(r.stderr.contains(fragment), "\(what): no '\(fragment)' in \(r.stderr)") }
    }

    /// The shell-command preset of the issue: a file named `$(touch PWNED).txt` exists, and an `<audio src>`
    /// names it. Refused at read time (validate and render, in a track and in a session segment), nothing run.
    @Test(arguments: [false, true])
    func anAudioSourceThatWouldRunACommandIsRefused(inSession: Bool) throws {
        let s = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: s.path("dir"), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: s.path("dir/$(touch PWNED).txt"), contents: Data("x".utf8))
        let ssml = #"<audio src=\"dir/$(touch PWNED).txt\">x</audio> and <audio src=\"/etc/passwd\">y</audio>"#
        let json = inSession
            ? #"{ "sections": [ { "name": "A", "segments": [ { "ssml": "\#(ssml)", "speech": { "voice": "espeak:en-us" } } ] } ] }"#
            : #"{ "duration": 3, "tracks": [ { "speech": { "ssml": "\#(ssml)", "voice": "en-us" } } ] }"#
        let preset = try s.write("p.json", json)
        let before = everything(s)
        let path = inSession ? "sections[0].segments[0].ssml" : "tracks[0].speech.ssml"
        for arguments in [["validate", preset], [preset, "-o", s.path("out.wav")]] {
            let r = try CLI.run(arguments, in: s.url)
            expectOneLineError(r, [path, "<audio> is not allowed"], arguments[0])
            #expect(everything(s) == before, "\(everything(s))")
        }
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/PWNED"))
    }

    /// The nine characters that crashed espeak-ng in-process (voice `hi`): a render gives speech or one line
    /// naming the segment, and leaves no file behind on failure.
    @Test func theCrashingTextIsContainedInOneLine() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "output": { "sampleRate": 16000 }, "sections": [ { "name": "A", "segments": [ { "text": "😀😀😀ae-i\"", "speech": { "voice": "espeak:hi" } } ] } ] }"#)
        for k in 0..<3 {
            let r = try CLI.run([preset, "-o", s.path("out\(k).wav"), "--quiet"])
            if r.status == 0 {
                #expect(s.contents.contains("out\(k).wav"))
            } else {
                expectOneLineError(r, ["sections[0].segments[0].text", "helper"], "hi")
                #expect(!s.contents.contains("out\(k).wav"), "\(s.contents)")
            }
        }
    }

    /// Three sessions, each speaking with both engines; rendered alone, then as a batch on one and on two
    /// threads: every job's samples equal its lone render's, bit for bit.
    @Test func aBatchWithSpeechRendersEveryJobAsItRendersAlone() throws {
        let s = try TemporaryFolder()
        let texts = [("Close your eyes.", "Breathe in slowly."), ("Let the day go.", "Your arms are heavy."), ("Count down from ten.", "Rest now.")]
        var lone: [[Float]] = []
        for (k, text) in texts.enumerated() {
            let preset = try s.write("s\(k).json", """
                { "output": { "sampleRate": 16000, "channels": 1 },
                  "tracks": [ { "generator": { "type": "pink", "seed": \(k) }, "gainDb": -24 } ],
                  "sections": [ { "name": "A", "segments": [ { "text": "\(text.0)", "pauseAfter": "300ms" },
                                                             { "text": "\(text.1)", "speech": { "voice": "espeak:en-gb" } } ] } ] }
                """)
            let r = try CLI.run([preset, "-o", s.path("lone\(k).wav"), "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            lone.append(try readAll(AudioFile.open(path: s.path("lone\(k).wav"))))
        }
        for jobs in ["1", "2"] {
            let list = try s.write("jobs\(jobs).jsonl", (0..<texts.count).map { #"{"preset": "s\#($0).json", "output": "b\#(jobs)-\#($0).wav"}"# }.joined(separator: "\n"))
            let r = try CLI.run(["batch", list, "--jobs", jobs])
            #expect(r.status == 0, "\(r.stderr)")
            for k in 0..<texts.count {
                let batch = try readAll(AudioFile.open(path: s.path("b\(jobs)-\(k).wav")))
                #expect(batch == lone[k], "--jobs \(jobs), job \(k): \(batch.count) and \(lone[k].count) samples")
            }
        }
    }

    /// A Japanese session with no voice named is said by the Japanese neural voice: the same samples from two
    /// processes; its credits (the voices, their licences) in the report and the timeline, each segment's voice in
    /// the timeline; a Spanish text, for which no natural voice is installed, is said by espeak-ng with one warning
    /// naming what to do, and English text keeps the default voice.
    @Test func aJapaneseSessionIsSaidByTheJapaneseVoiceTheSameInTwoProcesses() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("ja.json", """
            { "output": { "sampleRate": 24000, "channels": 1 },
              "sections": [ { "name": "A", "segments": [
                { "text": "ようこそ。ゆっくり休みましょう。", "pauseAfter": "300ms" },
                { "text": "Let your shoulders drop.", "pauseAfter": "300ms" },
                { "text": "Respira despacio y deja que tu cuerpo descanse ahora." },
                { "text": "Respira y descansa, está bien, ahora." } ] } ] }
            """)
        var renders: [[Float]] = []
        for k in 0..<2 {
            // The second process finds the syntheses in the first's --cache-dir store: the same samples and sentences.
            let r = try CLI.run([preset, "-o", s.path("\(k).wav"), "--report", s.path("\(k).report.json"), "--timeline", s.path("\(k).timeline.json"),
                                 "--cache-dir", s.path("cache")])
            #expect(r.status == 0, "\(r.stderr)")
            let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
            #expect(warnings.count == 1, "\(r.stderr)")
            #expect(warnings.first?.contains("sections[0].segments[2].text") == true && warnings.first?.contains("Spanish") == true
                    && warnings.first?.contains("espeak:es") == true, "\(r.stderr)")
            renders.append(try readAll(AudioFile.open(path: s.path("\(k).wav"))))
        }
        #expect(renders[0] == renders[1] && renders[0].count > 24_000 * 3, "\(renders[0].count) and \(renders[1].count) samples")
        let timeline = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("0.timeline.json"))) as? [String: Any])
        let sections = try #require(timeline["sections"] as? [[String: Any]])
        let segments = try #require(sections.first?["segments"] as? [[String: Any]])
        #expect(segments.map { $0["voice"] as? String } == ["kokoro:jf_alpha", "hibari:heart", "espeak:es", "espeak:es"])
        // Each sentence of a neural voice's segment, in output frames inside the segment; espeak-ng says none.
        func frames(_ span: Any?) -> (Int, Int)? {
            guard let span = span as? [String: Any], let start = (span["start"] as? [String: Any])?["frame"] as? Int,
                  let end = (span["end"] as? [String: Any])?["frame"] as? Int else { return nil }
            return (start, end)
        }
        let sentences = segments.map { ($0["sentences"] as? [Any] ?? []).compactMap(frames) }
        #expect(sentences.map(\.count) == [2, 1, 0, 0], "\(sentences)")
        for (segment, spans) in zip(segments, sentences) {
            guard let (start, end) = frames(segment) else { continue }
            #expect(spans.allSatisfy { start <= $0.0 && $0.0 < $0.1 && $0.1 <= end })
        }
        let second = try Data(contentsOf: s.url.appendingPathComponent("1.timeline.json"))
        #expect(second == (try Data(contentsOf: s.url.appendingPathComponent("0.timeline.json"))))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("0.report.json"))) as? [String: Any])
        for document in [timeline, report] {
            let voices = try #require(document["voices"] as? [[String: Any]])
            #expect(voices.map { $0["id"] as? String } == ["kokoro:jf_alpha", "hibari:heart", "espeak:es"])
            #expect(voices.map { $0["quality"] as? String } == ["natural", "natural", "draft"])
            #expect(voices.allSatisfy { !($0["licence"] as? String ?? "").isEmpty && !($0["attribution"] as? String ?? "").isEmpty })
        }
    }

    /// The report lists the words the English voice guessed, by the text's path: a name with no lexicon entry is
    /// listed, and with one it is not (its respelling is, being guessed in turn); the same from a second process
    /// that finds the syntheses in the cache folder.
    @Test func theReportListsTheWordsTheVoiceGuessed() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", """
            { "output": { "sampleRate": 24000, "channels": 1 },
              "sections": [ { "name": "A", "segments": [
                { "text": "Welcome, Aoife. Let your shoulders drop." },
                { "text": "Aoife, breathe out slowly.", "speech": { "lexicon": { "Aoife": "Eefa" } } },
                { "text": "Let your shoulders drop." } ] } ] }
            """)
        for k in 0..<2 {
            let r = try CLI.run([preset, "-o", s.path("\(k).wav"), "--report", s.path("\(k).json"), "--cache-dir", s.path("cache")])
            #expect(r.status == 0, "\(r.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("\(k).json"))) as? [String: Any])
            let guessed = try #require(report["guessedWords"] as? [[String: Any]])
            #expect(guessed.map { $0["path"] as? String } == ["sections[0].segments[0].text", "sections[0].segments[1].text"], "\(guessed)")
            #expect(guessed.first?["words"] as? [String] == ["Aoife"], "\(guessed)")
            #expect((guessed.last?["words"] as? [String])?.contains("Aoife") == false, "\(guessed)")
        }
    }

    /// A lexicon entry that is not one word, or whose respelling holds markup, is one line at its path.
    @Test func aBadLexiconEntryIsRefusedAtItsPath() throws {
        let s = try TemporaryFolder()
        for (lexicon, fragment) in [(#"{"New York": "x"}"#, "not one word"), (#"{"Aoife": "<audio src='x'/>"}"#, "markup"),
                                    (#"["Aoife"]"#, "expected an object"), (#"{"Aoife": 3}"#, "expected")] {
            let preset = try s.write("p.json", #"{ "duration": 2, "voice": { "speech": { "lexicon": \#(lexicon) } }, "tracks": [ { "speech": { "text": "Hello Aoife." } } ] }"#)
            expectOneLineError(try CLI.run(["validate", preset]), ["voice.speech.lexicon", fragment], lexicon)
        }
    }

    /// A preset's `language` is a tag a voice speaks: anything else is one line at its path.
    @Test func aLanguageNoVoiceSpeaksIsRefusedAtItsPath() throws {
        let s = try TemporaryFolder()
        for (language, fragment) in [("english", "not a language tag"), ("xq", "no installed voice speaks 'xq'")] {
            let preset = try s.write("p.json", #"{ "duration": 2, "tracks": [ { "speech": { "text": "Hello.", "language": "\#(language)" } } ] }"#)
            expectOneLineError(try CLI.run(["validate", preset]), ["tracks[0].speech.language", fragment], language)
        }
    }

    /// Without the neural voice's virtual environment, a session that needs it is one line saying how to install it.
    @Test func aMissingNeuralVoiceSaysHowToInstallIt() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "output": { "sampleRate": 16000 }, "sections": [ { "name": "A", "segments": [ { "text": "Hello." } ] } ] }"#)
        let r = try CLI.run([preset, "-o", s.path("out.wav")], environment: ["MIXRENDER_SPEECH_VENV": s.path("none")])
        expectOneLineError(r, ["sections[0].segments[0].text", "scripts/install-speech.sh"], "no venv")
        #expect(s.contents == ["p.json"])
        let named = try s.write("q.json", #"{ "duration": 2, "tracks": [ { "speech": { "text": "Hello.", "voice": "hibari:heart" } } ] }"#)
        let v = try CLI.run(["validate", named], environment: ["MIXRENDER_SPEECH_VENV": s.path("none")])
        expectOneLineError(v, ["tracks[0].speech.voice", "scripts/install-speech.sh"], "no venv, validate")
    }

    @Test func voicesListsBothEnginesAndAnUnknownVariantNamesTheClosest() throws {
        let r = try CLI.run(["voices", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let voices = try #require(object["voices"] as? [[String: Any]])
        let heart = try #require(voices.first { $0["id"] as? String == "hibari:heart" })
        #expect(heart["default"] as? Bool == true && heart["gender"] as? String == "female" && heart["languages"] as? [String] == ["en-us"])
        #expect(voices.contains { $0["id"] as? String == "espeak:en-gb" && ($0["origin"] as? String ?? "").contains("espeak-ng") })
        #expect((object["variants"] as? [String] ?? []).contains("f3"))
        let kumo = try #require(voices.first { $0["id"] as? String == "kokoro:jm_kumo" })
        #expect(kumo["languages"] as? [String] == ["ja"] && kumo["quality"] as? String == "natural" && kumo["installed"] as? Bool == true
                && kumo["licence"] as? String == "Apache-2.0" && (kumo["attribution"] as? String ?? "").contains("Kokoro-82M"))
        #expect(voices.allSatisfy { ($0["quality"] as? String == "draft") == ($0["engine"] as? String == "espeak") })
        let text = try CLI.run(["voices"])
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("VOICE") == true && lines.dropFirst().first?.hasPrefix("hibari:heart") == true, "\(text.stdout.prefix(300))")
        #expect(lines.contains { $0.hasPrefix("kokoro:jf_alpha") && $0.contains(" ja ") && $0.contains("natural") && $0.contains("Apache-2.0") })
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": 2, "tracks": [ { "speech": { "text": "Hello.", "voice": "en-gb+f33" } } ] }"#)
        expectOneLineError(try CLI.run(["validate", preset]), ["tracks[0].speech.voice", "no variant 'f33'", "did you mean 'espeak:en-gb+f3'"], "variant")
    }

    /// `validate` shows where a stretching section's pacing put its segments: the pause after each.
    @Test func validateShowsThePausesOfAStretchedSection() throws {
        let s = try TemporaryFolder()
        _ = try s.wav("b.wav", rate: 16000, channels: 1, frames: 16000) { i, _ in Float(sin(Double(i) * 0.1)) * 0.2 }
        let preset = try s.write("p.json", """
            { "duration": 63, "output": { "sampleRate": 16000 },
              "sections": [ { "name": "S", "stretch": true, "pacing": [1, 2],
                              "segments": [ { "file": "b.wav", "pauseAfter": "1s" }, { "file": "b.wav", "pauseAfter": "1s" } ] } ] }
            """)
        let r = try CLI.run(["validate", preset])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("section   S: 0:00.000-1:03.000, 2 segments, stretched by 0:59.000"), "\(r.stdout)")
        #expect(r.stdout.contains("pauses    S: 0:20.667, 0:40.333"), "\(r.stdout)")
    }

    /// The espeak-ng helper checks SSML itself: a request with `<audio>` that skipped the reader is refused in one
    /// reply line, and nothing is created in the folder it runs in.
    @Test func theEspeakHelperRefusesAudioItself() throws {
        let s = try TemporaryFolder()
        let process = Process()
        process.executableURL = try CLI.executable
        process.arguments = ["speech-helper", "espeak"]
        process.currentDirectoryURL = s.url
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let request = #"{"text": "<audio src=\"$(touch PWNED).txt\">x</audio>", "ssml": true, "voice": "en-us"}"# + "\n"
        input.fileHandleForWriting.write(Data(request.utf8))
        try input.fileHandleForWriting.close()
        let reply = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(reply.hasPrefix(#"{"#) && reply.contains("<audio> is not allowed") && reply.split(separator: "\n").count == 1, "\(reply)")
        #expect(s.contents.isEmpty, "\(s.contents)")
    }
}
