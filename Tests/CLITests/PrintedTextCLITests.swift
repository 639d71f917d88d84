import DSPTestSupport
import Foundation
import MixEngine
import TestSupport
import Testing

/// What `mixrender info` and `loudness` print from a file goes through one escaping function
/// (`PrintableText.escaped`): a newline in a tag cannot forge a line, an escape sequence never reaches the
/// terminal (issue 21).
@Suite struct PrintedTextCLITests {
    /// A tag value holding a newline and a forged chapter line, another holding an ANSI escape sequence and a
    /// right-to-left override, a free-form key's value with a carriage return: `info` prints each on its one line,
    /// escaped, and lists no chapter.
    @Test(arguments: ["flac", "ogg", "mp3", "wav"])
    func infoEscapesControlCharactersFromTags(_ format: String) throws {
        let s = try TemporaryFolder()
        let json = #"{ "name": "Escapes", "duration": 1, "output": { "tags": { "title": "calm\nCHAPTER001=00:00:00.000 forged", "artist": "\u001b[2J\u001b]0;pwned\u0007x\u202Eevil", "mood": "a\rb\\c" } }, "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": -20 } ] }"#
        let preset = try s.write("p.json", json)
        let path = s.path("out.\(format)")
        let rendered = try CLI.run([preset, "-o", path, "-q"])
        try #require(rendered.status == 0, "\(rendered.stderr)")
        let run = try CLI.run(["info", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0 == "\r" || $0.value == 0x202E }, "\(run.stdout)")
        #expect(!run.stdout.contains("chapter"), "\(run.stdout)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains("title     calm\\nCHAPTER001=00:00:00.000 forged"), "\(run.stdout)")
        #expect(lines.contains("artist    \\u{1B}[2J\\u{1B}]0;pwned\\u{7}x\\u{202E}evil"), "\(run.stdout)")
        #expect(lines.contains("tag       MOOD=a\\rb\\\\c"), "\(run.stdout)")
    }

    /// A file whose name holds a newline and an escape: `info` and `loudness` print the name escaped.
    @Test func fileNamesAreEscaped() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "name": "Name", "duration": 1, "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": -20 } ] }"#)
        let plain = s.path("plain.flac")
        try #require(try CLI.run([preset, "-o", plain, "-q"]).status == 0)
        let odd = s.path("a\nfile   forged\u{1B}[31m.flac")
        try FileManager.default.moveItem(atPath: plain, toPath: odd)
        let escapedName = PrintableText.escaped(odd)
        #expect(escapedName.hasSuffix("a\\nfile   forged\\u{1B}[31m.flac"))
        let info = try CLI.run(["info", odd])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.hasPrefix("file      \(escapedName)\n"), "\(info.stdout)")
        let loudness = try CLI.run(["loudness", odd])
        #expect(loudness.status == 0, "\(loudness.stderr)")
        #expect(loudness.stdout.hasPrefix("file            \(escapedName)\n"), "\(loudness.stdout)")
        #expect(!(info.stdout + loudness.stdout).contains("\u{1B}"))
        // JSON escapes them itself, and the name reads back whole.
        let json = try CLI.run(["loudness", "--json", odd])
        #expect(json.status == 0 && !json.stdout.contains("\u{1B}"), "\(json.stdout)")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["file"] as? String == odd)
    }

    @Test func escapingKeepsOrdinaryTextAndMarksEveryEscape() {
        #expect(PrintableText.escaped("Rain — 雨 👨‍👩‍👧 ok") == "Rain — 雨 👨‍👩‍👧 ok")
        #expect(PrintableText.escaped("a\\nb") == "a\\\\nb")
        #expect(PrintableText.escaped("a\nb\u{7F}\u{85}\u{2028}") == "a\\nb\\u{7F}\\u{85}\\u{2028}")
    }
}

/// `info --json` (issue 28): the same facts as the text, as JSON for back ends; an unreadable file is an "error"
/// member and a failed exit, the others still described.
@Suite struct InfoJSONCLITests {
    @Test func infoAsJSON() throws {
        let s = try TemporaryFolder()
        let json = #"{ "name": "Chaptered", "duration": 4, "output": { "sampleRate": 8000, "tags": { "title": "calm\nline", "artist": ["A", "B"], "mood": "soft" } }, "chapters": [ { "name": "One", "at": 0 }, { "name": "Two", "at": "2s" } ], "tracks": [ { "tone": { "frequencyHz": 440 }, "volume": 0.25 } ] }"#
        let preset = try s.write("p.json", json)
        for format in ["flac", "mp3"] {
            let path = s.path("out.\(format)")
            try #require(try CLI.run([preset, "-o", path, "-q"]).status == 0)
            let run = try CLI.run(["info", "--json", path, s.path("missing.ogg")])
            #expect(run.status == 1 && run.stderr.isEmpty, "\(run.stderr)")
            let files = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
            #expect(files.count == 2)
            let file = files[0]
            #expect(file["file"] as? String == path && file["sampleRate"] as? Int == 8000 && file["channels"] as? Int == 2)
            #expect(file["frames"] as? Int == 32000 && file["durationSeconds"] as? Double == 4)
            let tags = try #require(file["tags"] as? [String: Any])
            #expect(tags.first { $0.key.uppercased() == "TITLE" }?.value as? String == "calm\nline", "\(tags)")
            let chapters = try #require(file["chapters"] as? [[String: Any]])
            #expect(chapters.map { $0["name"] as? String } == ["One", "Two"], "\(format): \(chapters)")
            #expect(chapters.map { $0["startSeconds"] as? Double } == [0, 2], "\(format): \(chapters)")
            #expect(!tags.keys.contains { $0.uppercased().hasPrefix("CHAPTER0") })
            #expect((files[1]["error"] as? String)?.contains("missing.ogg") == true && files[1]["file"] as? String == s.path("missing.ogg"))
        }
    }
}
