import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// `validate --format` and `--timeline` (issue 28): a preset is checked against the formats it will be written in,
/// as a render checks them before it starts, and its timeline written without rendering.
@Suite struct ValidateCLITests {
    static let preset22k = #"{ "duration": 20, "output": { "sampleRate": 22050, "bitrate": 64 }, "tracks": [ { "generator": { "type": "pink" } } ] }"#

    @Test func formatsAreCheckedAsARenderChecksThem() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset22k)
        let fine = try CLI.run(["validate", preset, "--format", "flac", "--format", "m4a", "--format", "mp3"])
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(fine.stdout.contains("\nformats   .flac, .m4a, .mp3: OK\n"), "\(fine.stdout)")
        let cases = [("ogg", "Error: --format ogg: Ogg Vorbis takes a quality, not a bitrate"),
                     ("opus", "Error: --format opus: Ogg Opus cannot be written at 22050 Hz")]
        for (format, expected) in cases {
            let run = try CLI.run(["validate", preset, "--format", format])
            #expect(run.status != 0 && run.stderr.hasPrefix(expected) && run.stderr.split(separator: "\n").count == 1, "\(format): \(run.stderr)")
            // The render refuses it for the same reason, before writing anything.
            let render = try CLI.run([preset, "-o", s.path("out.\(format)")])
            #expect(render.status != 0 && !s.contents.contains("out.\(format)"), "\(render.stderr)")
        }
        let unknown = try CLI.run(["validate", preset, "--format", "aac"])
        #expect(unknown.status != 0 && unknown.stderr.hasPrefix("Error: --format: unknown format 'aac'; expected "), "\(unknown.stderr)")
    }

    /// `validate --json`: what the text says, as JSON, with the warnings in it (here the fades fitted to --duration).
    @Test func validationAsJSON() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": "1h", "output": { "sampleRate": 8000 }, "master": { "fadeOut": "20m" }, "tracks": [ { "generator": { "type": "pink" }, "start": "30s" } ] }"#)
        let run = try CLI.run(["validate", "--json", preset, "--duration", "2m", "--format", "flac"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let value = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(value["ok"] as? Bool == true && value["sampleRate"] as? Int == 8000 && value["channels"] as? Int == 2)
        #expect((value["duration"] as? [String: Any])?["frame"] as? Int == 960_000)
        let tracks = try #require(value["tracks"] as? [[String: Any]])
        #expect(tracks.count == 1 && (tracks[0]["start"] as? [String: Any])?["seconds"] as? Double == 30 && tracks[0]["events"] as? Int == 1)
        #expect(value["formats"] as? [String] == ["flac"])
        #expect((value["warnings"] as? [String])?.first?.contains("master.fadeOut (20m) does not fit the render") == true, "\(value)")
        #expect(value["timeline"] is [String: Any])
    }

    @Test func theTimelineIsWrittenWithoutRendering() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset22k)
        let run = try CLI.run(["validate", preset, "--timeline", s.path("t.json")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("timeline  \(s.path("t.json"))\n"), "\(run.stdout)")
        let rendered = try CLI.run([preset, "-o", s.path("out.flac"), "--timeline", s.path("t2.json"), "-q"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.path("t.json"))) == Data(contentsOf: URL(fileURLWithPath: s.path("t2.json"))))
        // The preset itself is never a timeline's destination.
        let refused = try CLI.run(["validate", preset, "--timeline", preset])
        #expect(refused.status != 0 && refused.stderr.contains("--timeline is the preset being rendered"), "\(refused.stderr)")
        #expect(try String(contentsOfFile: preset, encoding: .utf8) == Self.preset22k)
    }
}
