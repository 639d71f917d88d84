import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// A generators-only preset with tags (known and free-form, unicode values), a chapters list and `--loudness`,
/// rendered to every format and read back: what each format keeps (docs/tags.md), through `FileTags` and
/// `mixrender info`; the file still decodes to exactly the render's frames after tagging.
@Suite struct TagsCLITests {
    static let seconds = 12
    static let rate = 48_000

    static let preset = #"""
        { "name": "Night rain", "duration": 12,
          "output": { "sampleRate": 48000,
                      "tags": { "artist": "Zoë & 夜", "album": "Nights", "comment": "pluie d'été", "date": "2024",
                                "genre": "Ambient", "Narrator": "Ana Lía", "mood": ["calm", "dark"] } },
          "chapters": [ { "at": 0, "name": "Rain" }, { "at": "0:04.5", "name": "Déjà vu" }, { "at": 9, "name": "Deep night" } ],
          "tracks": [ { "generator": { "type": "pink", "seed": 7 }, "gainDb": -20 },
                      { "tone": { "frequencyHz": 220 }, "gainDb": -26 } ] }
        """#

    static let known: [(String, String)] = [("TITLE", "Night rain"), ("ARTIST", "Zoë & 夜"), ("ALBUM", "Nights"),
                                            ("COMMENT", "pluie d'été"), ("DATE", "2024"), ("GENRE", "Ambient")]
    static let chapterNames = ["Rain", "Déjà vu", "Deep night"]

    @Test(arguments: ["out.ogg", "out.opus", "out.flac", "out.mp3", "out.aiff", "out.wav", "out.caf", "out.m4a"])
    func everyFormatKeepsWhatItCan(_ name: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let r = try CLI.run([preset, "-o", s.path(name), "--loudness", "-18"])
        #expect(r.status == 0, "\(r.stderr)")
        let format = try #require(OutputFileFormat.from(path: name))
        #expect(try AudioFileInfo.read(path: s.path(name)).frameCount == Int64(Self.seconds * Self.rate))
        let read = try FileTags.contents(path: s.path(name), format: format)
        for (key, value) in Self.known { #expect(read.values(key) == [value], "\(name) \(key): \(read.fields)") }
        let info = try CLI.run(["info", s.path(name)])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("artist    Zoë & 夜"), "\(info.stdout)")
        let chapterLines = info.stdout.split(separator: "\n").filter { $0.hasPrefix("chapter ") }
        #expect(s.contents.sorted() == [name, "p.json"].sorted())

        switch format {
        case .caf:
            // libsndfile's 'info' chunk: the known keys only; the render says what it left out, once each.
            #expect(read.values("NARRATOR").isEmpty && read.values("MOOD").isEmpty)
            #expect(r.stderr.contains("output.tags.mood, output.tags.Narrator: CAF ALAC keeps only"), "\(r.stderr)")
            #expect(r.stderr.contains("chapters: CAF ALAC has no chapter marks"), "\(r.stderr)")
            #expect(r.stderr.contains("output.loudness: CAF ALAC has no ReplayGain tags"), "\(r.stderr)")
            #expect(chapterLines.isEmpty)
        case .oggVorbis, .opus, .flac:
            #expect(read.values("NARRATOR") == ["Ana Lía"], "\(read.fields)")
            #expect(read.values("MOOD") == ["calm", "dark"], "\(read.fields)")
            #expect(read.values("CHAPTER001") == ["00:00:00.000"] && read.values("CHAPTER002") == ["00:00:04.500"]
                    && read.values("CHAPTER003") == ["00:00:09.000"], "\(read.fields)")
            #expect(Self.chapterNames.enumerated().allSatisfy { read.values("CHAPTER00\($0 + 1)NAME") == [$1] }, "\(read.fields)")
            if format == .opus {
                #expect(read.values("R128_TRACK_GAIN").count == 1 && read.values("REPLAYGAIN_TRACK_GAIN").isEmpty, "\(read.fields)")
            } else {
                #expect(read.values("REPLAYGAIN_TRACK_GAIN").count == 1 && read.values("REPLAYGAIN_TRACK_PEAK").count == 1, "\(read.fields)")
            }
            #expect(chapterLines.count == 3, "\(info.stdout)")
            #expect(r.stderr.isEmpty, "\(r.stderr)")
        case .m4a:
            // iTunes items (TagLib's MP4 property map): free-form keys as ----:com.apple.iTunes items, several
            // values kept; chapters in the chapter track the muxer wrote, read back through libavformat.
            #expect(read.values("NARRATOR") == ["Ana Lía"], "\(read.fields)")
            #expect(read.values("MOOD") == ["calm", "dark"], "\(read.fields)")
            #expect(read.values("REPLAYGAIN_TRACK_GAIN").count == 1 && read.values("REPLAYGAIN_TRACK_PEAK").count == 1, "\(read.fields)")
            #expect(read.chapters.map(\.name) == Self.chapterNames)
            #expect(read.chapters.map(\.frame) == [0, 4500, 9000])
            #expect(read.chapters.map(\.end) == [4500, 9000, 12_000])
            #expect(chapterLines.count == 3, "\(info.stdout)")
            #expect(r.stderr.isEmpty, "\(r.stderr)")
        case .mp3, .aiff, .wav:
            // ID3v2.3: free-form keys as TXXX, several values joined with '/', ReplayGain as TXXX, CHAP + CTOC.
            #expect(read.values("NARRATOR") == ["Ana Lía"], "\(read.fields)")
            #expect(read.values("MOOD") == ["calm/dark"], "\(read.fields)")
            #expect(read.values("REPLAYGAIN_TRACK_GAIN").count == 1 && read.values("REPLAYGAIN_TRACK_PEAK").count == 1, "\(read.fields)")
            #expect(read.chapters.map(\.name) == Self.chapterNames)
            #expect(read.chapters.map(\.frame) == [0, 4500, 9000])
            #expect(read.chapters.map(\.end) == [4500, 9000, 12_000])
            #expect(read.chapterFrames.map(\.tableOfContentsIndex) == [0, 1, 2])
            #expect(chapterLines.count == 3, "\(info.stdout)")
            #expect(chapterLines.first?.hasSuffix("Rain  (to 00:00:04.500)") == true, "\(info.stdout)")
            if format == .wav { #expect(read.values("INFO:IART") == ["Zoë & 夜"], "\(read.fields)") }
            #expect(r.stderr.isEmpty, "\(r.stderr)")
        }
        // The file decodes to exactly the render's frames (an MP3 through libmpg123: the gapless header survived).
        let decoded = try readAll(try AudioFile.open(path: s.path(name)))
        #expect(decoded.count == Self.seconds * Self.rate * 2, "\(name): \(decoded.count / 2) frames")
    }

    /// A partial render carries the chapters in its range, relative to its start.
    /// A known key longer than info's 10-column labels keeps a space before its value ("tracknumbe3" before).
    @Test func aLongTagLabelIsSetApartFromItsValue() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": 1, "output": { "sampleRate": 8000, "tags": { "tracknumber": "3", "title": "T" } }, "tracks": [ { "tone": { "frequencyHz": 440 } } ] }"#)
        #expect(try CLI.run([preset, "-o", s.path("out.flac"), "-q"]).status == 0)
        let info = try CLI.run(["info", s.path("out.flac")])
        let lines = info.stdout.split(separator: "\n").map { String($0) }
        #expect(lines.contains("tracknumber 3") && lines.contains("title     T"), "\(info.stdout)")
    }

    @Test func aPartialRenderCarriesTheChaptersInItsRange() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let r = try CLI.run([preset, "-o", s.path("part.mp3"), "--start", "6", "--end", "11", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let read = try FileTags.contents(path: s.path("part.mp3"), format: .mp3)
        #expect(read.chapters.map(\.name) == ["Déjà vu", "Deep night"])
        #expect(read.chapters.map(\.frame) == [0, 3000])
        #expect(read.chapters.map(\.end) == [3000, 5000])
    }
}
