import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Sessions end to end through the built `mixrender`: bad input refused cleanly, validate's sections,
/// chapters in the file matching the timeline, a fixed length by stretching. Every session here is short
/// and rendered at 16 kHz; its voice is the default (the neural voice), so no files are needed.
@Suite struct SessionCLITests {
    static let rate = 16_000

    /// A session of two short spoken sections over quiet noise; `extra` adds top-level keys.
    static func session(stretch: Bool = false, extra: String = "") -> String {
        """
        { "output": { "sampleRate": \(rate), "channels": 2 }, \(extra)
          "tracks": [ { "name": "bed", "generator": { "type": "pink", "seed": 3 }, "gainDb": -20 } ],
          "sections": [
            { "name": "Induction", "segments": [ { "text": "Close your eyes.", "gapBefore": "500ms", "pauseAfter": "1s" } ] },
            { "name": "Rest", "length": "2s", "stretch": \(stretch), "segments": [] },
            { "name": "Déjà vu", "segments": [ { "text": "Open your eyes.", "pauseAfter": "500ms" } ] }
          ] }
        """
    }

    struct BadInput: Sendable, CustomStringConvertible {
        var what: String
        var json: String
        var extra: [String] = []
        var environment: [String: String] = [:]
        var fragments: [String]
        var description: String { what }
    }

    static func oneSection(_ segment: String, tracks: String = "") -> String {
        #"{ "output": { "sampleRate": 16000 }, "tracks": [\#(tracks)], "sections": [ { "name": "A", "segments": [ \#(segment) ] } ] }"#
    }

    static let badInputs: [BadInput] = [
        BadInput(what: "missing voice file", json: oneSection(#"{ "file": "missing.wav" }"#),
                 fragments: ["sections[0].segments[0].file", "missing.wav"]),
        BadInput(what: "beat at or above the carrier",
                 json: oneSection(#"{ "text": "Hello." }"#, tracks: #"{ "binaural": { "carrierHz": 200, "beatHz": 250 } }"#),
                 fragments: ["tracks[0].binaural.beatHz", "at or above the carrier"]),
        BadInput(what: "carrier out of range",
                 json: oneSection(#"{ "text": "Hello." }"#, tracks: #"{ "binaural": { "carrierHz": 2000, "beatHz": 4 } }"#),
                 fragments: ["tracks[0].binaural.carrierHz", "outside 20 to 1500 Hz"]),
        BadInput(what: "negative gap", json: oneSection(#"{ "text": "Hello.", "gapBefore": -2 }"#),
                 fragments: ["sections[0].segments[0].gapBefore", "negative"]),
        BadInput(what: "empty text", json: oneSection(#"{ "text": "  " }"#),
                 fragments: ["sections[0].segments[0].text", "must not be empty"]),
        BadInput(what: "unknown voice", json: oneSection(#"{ "text": "Hello.", "speech": { "voice": "xx-yy" } }"#),
                 fragments: ["sections[0].segments[0].speech.voice", "xx-yy", "no voice or language", "mixrender voices"]),
        BadInput(what: "a pause inside a text over a minute", json: oneSection(#"{ "text": "Hello.", "speech": { "sentencePause": "1s", "paragraphPause": "2m" } }"#),
                 fragments: ["sections[0].segments[0].speech.paragraphPause", "at most 1m"]),
        BadInput(what: "speed out of range", json: oneSection(#"{ "text": "Hello.", "speech": { "speed": 3 } }"#),
                 fragments: ["sections[0].segments[0].speech.speed"]),
        BadInput(what: "SSML outside the subset", json: oneSection(#"{ "ssml": "Hello <voice name='x'>there</voice>" }"#),
                 fragments: ["sections[0].segments[0].ssml", "<voice> is not allowed"]),
        BadInput(what: "duration shorter than the voice",
                 json: oneSection(#"{ "text": "This sentence takes a few seconds to say, slowly and clearly.", "pauseAfter": "1s" }"#),
                 extra: ["--duration", "1s"], fragments: ["--duration", "the shortest it can be is"]),
    ]

    func expectCleanFailure(_ r: CLI.Result, _ what: String, _ fragments: [String], _ folder: TemporaryFolder, before: [String]) {
        #expect(r.status != 0, "\(what): exit status 0")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(what): \(r.stderr)")
        for fragment in fragments { #expect(r.stderr.contains(fragment), "\(what): no '\(fragment)' in \(r.stderr)") }
        #expect(folder.contents == before, "\(what): left \(folder.contents)")
    }

    @Test(arguments: badInputs)
    func badSessionFailsCleanly(_ bad: BadInput) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", bad.json)
        let before = s.contents
        let r = try CLI.run([preset, "-o", s.path("out.ogg"), "--timeline", s.path("out.timeline.json")] + bad.extra,
                            environment: bad.environment)
        expectCleanFailure(r, bad.what, bad.fragments, s, before: before)
    }

    /// espeak-ng's data where ESPEAK_DATA_PATH points is missing: the error names the Debian package, for
    /// rendering and validating alike.
    @Test func missingVoiceDataNamesTheDebianPackage() throws {
        let s = try TemporaryFolder()
        let empty = try TemporaryFolder(prefix: "mixrender-tests-no-espeak-data")
        let preset = try s.write("session.json", Self.oneSection(#"{ "text": "Hello.", "speech": { "voice": "espeak:en-us" } }"#))
        let before = s.contents
        let r = try CLI.run([preset, "-o", s.path("out.ogg")], environment: ["ESPEAK_DATA_PATH": empty.url.path])
        expectCleanFailure(r, "no espeak-ng data (render)", ["espeak-ng-data", empty.url.path], s, before: before)
        let v = try CLI.run(["validate", preset], environment: ["ESPEAK_DATA_PATH": empty.url.path])
        expectCleanFailure(v, "no espeak-ng data (validate)", ["espeak-ng-data"], s, before: before)
        #expect(empty.contents.isEmpty)
    }

    @Test func validatePrintsTheSectionsWithTheirTimes() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", Self.session())
        let r = try CLI.run(["validate", preset])
        #expect(r.status == 0, "\(r.stderr)")
        let sections = r.stdout.split(separator: "\n").filter { $0.hasPrefix("section") }
        #expect(sections.count == 3, "\(r.stdout)")
        for (line, name) in zip(sections, ["Induction", "Rest", "Déjà vu"]) {
            #expect(line.contains("\(name): "), "\(line)")
            // m:ss.mmm-m:ss.mmm
            #expect(line.range(of: #"\d+:\d\d\.\d{3}-\d+:\d\d\.\d{3}"#, options: .regularExpression) != nil, "\(line)")
        }
        #expect(sections.first?.contains("Induction: 0:00.000-") == true, "\(r.stdout)")
        #expect(s.contents == ["session.json"])
    }

    /// "HH:MM:SS.mmm" in seconds.
    func seconds(_ timestamp: String) -> Double? {
        let parts = timestamp.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let sec = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + sec
    }

    @Test(arguments: [("out.ogg", OutputFileFormat.oggVorbis), ("out.flac", OutputFileFormat.flac)])
    func chaptersInTheFileMatchTheTimeline(name: String, format: OutputFileFormat) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", Self.session())
        let r = try CLI.run([preset, "-o", s.path(name), "--timeline", s.path("t.json"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.contents == [name, "session.json", "t.json"])
        let timeline = try readJSONObject(s.path("t.json"))
        #expect(timeline["sampleRate"] as? Int == Self.rate)
        let sections = try #require(timeline["sections"] as? [[String: Any]])
        #expect(sections.map { $0["name"] as? String } == ["Induction", "Rest", "Déjà vu"])

        let fields = try FileTags.read(path: s.path(name), format: format)
        let chapterKeys = fields.map(\.key).filter { $0.hasPrefix("CHAPTER") }
        #expect(chapterKeys.count == 2 * sections.count, "\(fields)")
        for (i, section) in sections.enumerated() {
            let number = String(format: "%03d", i + 1)
            let names = fields.filter { $0.key == "CHAPTER\(number)NAME" }.map(\.value)
            #expect(names == [section["name"] as? String ?? "?"], "chapter \(number): \(fields)")
            let marks = fields.filter { $0.key == "CHAPTER\(number)" }.map(\.value)
            let start = try #require((section["start"] as? [String: Any])?["frame"] as? Int)
            #expect(marks.count == 1)
            if let mark = marks.first, let at = seconds(mark) {
                #expect(abs(at - Double(start) / Double(Self.rate)) <= 0.0005 + 1e-9, "chapter \(number) at \(mark), section at frame \(start)")
            } else {
                Issue.record("chapter \(number): \(marks)")
            }
        }
        // The file is as long as the timeline says.
        let duration = try #require((timeline["duration"] as? [String: Any])?["frame"] as? Int)
        #expect(try AudioFileInfo.read(path: s.path(name)).frameCount == Int64(duration))
        // `info` lists the chapters, in order, with their names.
        let info = try CLI.run(["info", s.path(name)])
        let chapterLines = info.stdout.split(separator: "\n").filter { $0.hasPrefix("chapter ") }
        #expect(chapterLines.count == sections.count, "\(info.stdout)")
        for (line, section) in zip(chapterLines, sections) {
            #expect(line.hasSuffix("  " + (section["name"] as? String ?? "?")), "\(line)")
        }
    }

    @Test func aFixedDurationStretchesTheStretchSection() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", Self.session(stretch: true))
        let r = try CLI.run([preset, "-o", s.path("out.ogg"), "--timeline", s.path("t.json"), "--duration", "30s", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let timeline = try readJSONObject(s.path("t.json"))
        let duration = try #require(timeline["duration"] as? [String: Any])
        #expect(duration["frame"] as? Int == 30 * Self.rate, "\(duration)")
        #expect(try AudioFileInfo.read(path: s.path("out.ogg")).frameCount == Int64(30 * Self.rate))
        let sections = try #require(timeline["sections"] as? [[String: Any]])
        let stretched = sections.map { (($0["stretchedBy"] as? [String: Any])?["frame"] as? Int) ?? -1 }
        #expect(stretched[0] == 0 && stretched[1] > 0 && stretched[2] == 0, "\(stretched)")
        // The last section ends on the last frame (no ending): it moved later by the stretch.
        let lastEnd = (sections.last?["end"] as? [String: Any])?["frame"] as? Int
        #expect(lastEnd == 30 * Self.rate, "\(sections.last ?? [:])")
    }

    /// A WAV carries the sections as ID3v2 CHAP frames (in its 'id3 ' chunk), and a CAF none, with a warning.
    @Test func aWAVRenderHasID3ChaptersAndACAFNone() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", Self.session())
        let r = try CLI.run([preset, "-o", s.path("out.wav"), "--timeline", s.path("t.json")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout.contains("chapters  "), "\(r.stdout)")
        let info = try AudioFileInfo.read(path: s.path("out.wav"))
        #expect(info.sampleRate == Self.rate && info.frameCount > Int64(3 * Self.rate))
        let timeline = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.path("t.json")))) as? [String: Any])
        let sections = try #require(timeline["sections"] as? [[String: Any]])
        let chapters = try FileTags.contents(path: s.path("out.wav"), format: .wav).chapters
        #expect(chapters.map(\.name) == sections.map { $0["name"] as? String ?? "?" })
        let fileEnd: Int64 = (info.frameCount * 1000 + Int64(Self.rate / 2)) / Int64(Self.rate)
        #expect(chapters.last?.end == fileEnd)
        #expect(s.contents == ["out.wav", "session.json", "t.json"])
        let caf = try CLI.run([preset, "-o", s.path("out.caf")])
        #expect(caf.status == 0, "\(caf.stderr)")
        #expect(caf.stderr.contains("sections: CAF ALAC has no chapter marks"), "\(caf.stderr)")
        #expect(!caf.stdout.contains("chapters  "), "\(caf.stdout)")
    }

    /// Every text is said by a fresh espeak-ng or a seeded neural voice in a helper process (see
    /// SpeechSynthesizerTests), so two processes rendering the same session give the same file.
    @Test func renderingTwiceGivesTheSameFile() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", Self.session())
        for name in ["a.wav", "b.wav"] {
            let r = try CLI.run([preset, "-o", s.path(name), "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try Data(contentsOf: s.url.appendingPathComponent("a.wav")) == Data(contentsOf: s.url.appendingPathComponent("b.wav")))
    }
}
