import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// Tags are held to each format's own limit before anything is rendered (`TagLimits`, docs/tags.md): the largest
/// tags a preset may have (64 keys x 16 values x 16 KiB) passed FLAC's 16 MiB metadata block and gave a file no
/// reader opens, with exit 0; CAF's 'info' chunk (16 KiB as libsndfile writes it) dropped tags without a word.
@Suite struct TagLimitsCLITests {
    /// A preset whose tags are `keys` keys of 16 values of 16 KiB each.
    static func preset(keys: Int) -> String {
        let value = { (i: Int) in "v\(i)-" + String(repeating: "x", count: 16_384 - 4) }
        let tags = (0..<keys).map { k in "\"key\(k + 100)\": [" + (0..<16).map { "\"\(value($0))\"" }.joined(separator: ",") + "]" }
        return #"{ "name": "Big", "duration": 1, "output": { "tags": { "# + tags.joined(separator: ",") + #" } }, "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": -20 } ] }"#
    }

    @Test func flacTagsPastTheMetadataBlockAreRefusedBeforeRendering() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset(keys: 64))
        let run = try CLI.run([preset, "-o", s.path("out.flac"), "-q"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: \(preset): output.tags.key163: the tags pass FLAC's limit: its Vorbis comment block holds at most 16,777,215 bytes"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(s.contents == ["p.json"])
        // The same tags are within every other tagging format's limits, and such files read back.
        let ogg = try CLI.run([preset, "-o", s.path("out.ogg"), "-q"])
        #expect(ogg.status == 0, "\(ogg.stderr)")
        #expect(try CLI.run(["info", s.path("out.ogg")]).status == 0)
    }

    /// Just under the limit (63 such keys: 16.5 MB of comments) renders, and the file opens.
    @Test func flacTagsJustUnderTheLimitRenderAndRead() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset(keys: 63))
        let run = try CLI.run([preset, "-o", s.path("out.flac"), "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let info = try CLI.run(["info", s.path("out.flac")])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("tag       KEY162=v15-xxx"))
    }

    @Test func cafTagsPastTheInfoChunkAreRefusedBeforeRendering() throws {
        let s = try TemporaryFolder()
        let long = String(repeating: "a", count: 9000)
        let refused = try s.write("p.json", #"{ "name": "Big", "duration": 1, "output": { "tags": { "title": "\#(long)", "artist": "\#(long)" } }, "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": -20 } ] }"#)
        let run = try CLI.run([refused, "-o", s.path("out.caf"), "-q"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: \(refused): output.tags.artist: the tags pass CAF's limit: libsndfile writes its 'info' chunk from a 16 KiB buffer, at most 16,383 bytes"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.path("out.caf")))

        let fits = try s.write("q.json", #"{ "name": "Big", "duration": 1, "output": { "tags": { "title": "\#(long)", "artist": "\#(String(repeating: "b", count: 7000))" } }, "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": -20 } ] }"#)
        #expect(try CLI.run([fits, "-o", s.path("ok.caf"), "-q"]).status == 0)
        let info = try CLI.run(["info", s.path("ok.caf")])
        #expect(info.stdout.contains("title     \(long)") && info.stdout.contains("artist    bbbb"), "\(info.stdout.prefix(300))")
    }
}
