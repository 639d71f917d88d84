import DSPTestSupport
import Foundation
import MixIO
@testable import MixEngine
import Testing

/// `output.tags` (any key, a string or a list of strings) and the top-level `chapters` list: what the reader
/// builds, each problem reported at its JSON path, and the chapters a render (whole or partial) carries.
@Suite struct PresetTagsTests {
    typealias P = PresetParserTests

    static func tags(_ json: String) -> String { P.preset(extra: #""output": {"tags": \#(json)}"#) }

    @Test func anyKeyIsATagKnownKeysFirstThenTheOthersInOrder() throws {
        let preset = try P.parse(Self.tags(#"{"Mood": ["calm", "dark"], "title": "Rain", "narrator": "Ana Lía", "DATE": "2024", "album": "Nights"}"#))
        let fields = preset.output.tags.fields
        #expect(fields.map(\.key) == ["TITLE", "ALBUM", "DATE", "MOOD", "NARRATOR"])
        #expect(fields.map(\.values) == [["Rain"], ["Nights"], ["2024"], ["calm", "dark"], ["Ana Lía"]])
        #expect(preset.output.tagPaths["MOOD"] == "output.tags.Mood")
    }

    @Test func badTagsAreErrorsAtTheirPath() {
        P.expectError(Self.tags(#"{"": "x"}"#), path: "output.tags.", "must not be empty")
        P.expectError(Self.tags(#"{"a=b": "x"}"#), path: "output.tags.a=b", "'='")
        P.expectError(Self.tags(#"{"humeur_é": "x"}"#), path: "output.tags.humeur_é", "not ASCII")
        P.expectError(Self.tags(#"{"tab\tkey": "x"}"#), path: "output.tags.tab\tkey", "control character")
        P.expectError(Self.tags(#"{"title": "a\u0000b"}"#), path: "output.tags.title", "NUL")
        P.expectError(Self.tags(#"{"mood": ["calm", "a\u0000b"]}"#), path: "output.tags.mood[1]", "NUL")
        P.expectError(Self.tags(#"{"mood": []}"#), path: "output.tags.mood", "an empty list")
        P.expectError(Self.tags(#"{"mood": ["calm", 2]}"#), path: "output.tags.mood[1]", "expected a string")
        P.expectError(Self.tags(#"{"mood": " "}"#), path: "output.tags.mood", "must not be empty")
        P.expectError(Self.tags(#"{"Title": "a", "TITLE": "b"}"#), path: "output.tags.Title", "the same tag as 'TITLE'")
        P.expectError(Self.tags(#"{"replaygain_track_gain": "0 dB"}"#), path: "output.tags.replaygain_track_gain", "ReplayGain")
        P.expectError(Self.tags(#"{"CHAPTER001": "00:00:00.000"}"#), path: "output.tags.CHAPTER001", "chapter marks")
        P.expectError(Self.tags(#""Rain""#), path: "output.tags", "expected an object")
        let long = String(repeating: "k", count: TagFields.maximumKeyLength + 1)
        P.expectError(Self.tags(#"{"\#(long)": "x"}"#), path: "output.tags.\(long)", "at most \(TagFields.maximumKeyLength) characters")
        let big = String(repeating: "v", count: TagFields.maximumValueBytes + 1)
        P.expectError(Self.tags(#"{"comment": "\#(big)"}"#), path: "output.tags.comment", "at most \(TagFields.maximumValueBytes) bytes")
        let many = (0...TagFields.maximumFields).map { #""k\#($0)": "v""# }.joined(separator: ", ")
        P.expectError(Self.tags("{\(many)}"), path: "output.tags", "at most \(TagFields.maximumFields)")
        let values = (0...TagFields.maximumValues).map { #""v\#($0)""# }.joined(separator: ", ")
        P.expectError(Self.tags(#"{"mood": [\#(values)]}"#), path: "output.tags.mood", "at most \(TagFields.maximumValues)")
        // A chapter mark that merely starts with the word is a free-form key.
        #expect((try? P.parse(Self.tags(#"{"chapters": "3"}"#)))?.output.tags["CHAPTERS"] == ["3"])
    }

    static func chapters(_ json: String, duration: String = #""1h""#) -> String {
        P.preset(duration: duration, extra: #""chapters": \#(json)"#)
    }

    @Test func chaptersAreReadAsMarksAtTheOutputRate() throws {
        let preset = try P.parse(Self.chapters(#"[{"at": "0:00", "name": "Rain"}, {"at": 90, "name": "Wind"}, {"at": "30m", "name": "Deep night"}]"#))
        #expect(preset.chapters == [ChapterMark(name: "Rain", frame: 0, sampleRate: 48000), ChapterMark(name: "Wind", frame: 90 * 48000, sampleRate: 48000),
                                    ChapterMark(name: "Deep night", frame: 1800 * 48000, sampleRate: 48000)])
        // The rate an override gives is the one they are read at.
        let bytes = Array(Self.chapters(#"[{"at": 0.5, "name": "Rain"}]"#).utf8)
        let overridden = try PresetLoader.parse(bytes, file: "p.json", baseDirectory: "", overrides: RenderOverrides(sampleRate: 44100))
        #expect(overridden.chapters == [ChapterMark(name: "Rain", frame: 22050, sampleRate: 44100)])
    }

    @Test func badChaptersAreErrorsAtTheirPath() {
        P.expectError(Self.chapters("[]"), path: "chapters", "an empty list")
        P.expectError(Self.chapters(#"{"at": 0}"#), path: "chapters", "expected an array")
        P.expectError(Self.chapters(#"[{"at": 0, "name": "A"}, {"at": 10, "name": "B"}, {"at": 10, "name": "C"}]"#),
                      path: "chapters[2].at", "is not after chapters[1]")
        P.expectError(Self.chapters(#"[{"at": 60, "name": "A"}, {"at": 30, "name": "B"}]"#), path: "chapters[1].at", "time order")
        P.expectError(Self.chapters(#"[{"at": "1h", "name": "A"}]"#), path: "chapters[0].at", "not before the end of the render")
        P.expectError(Self.chapters(#"[{"at": -1, "name": "A"}]"#), path: "chapters[0].at", "negative")
        P.expectError(Self.chapters(#"[{"at": 0, "name": " "}]"#), path: "chapters[0].name", "must not be empty")
        P.expectError(Self.chapters(#"[{"at": 0}]"#), path: "chapters[0]", "missing required key 'name'")
        P.expectError(Self.chapters(#"[{"name": "A"}]"#), path: "chapters[0]", "missing required key 'at'")
        P.expectError(Self.chapters(#"[{"at": 0, "name": "A", "end": 9}]"#), path: "chapters[0]", "unknown key 'end'")
        P.expectError(Self.chapters(#"[{"at": 0, "name": "a\u0000b"}]"#), path: "chapters[0].name", "NUL")
        let many = (0...ChapterMark.maximumCount).map { #"{"at": \#($0), "name": "c"}"# }.joined(separator: ", ")
        P.expectError(Self.chapters("[\(many)]", duration: #""2h""#), path: "chapters", "at most \(ChapterMark.maximumCount)")
    }

    /// What a format cannot keep is a warning naming the JSON path: CAF (libsndfile's 'info' chunk) keeps only
    /// the known keys, no chapters and no ReplayGain; an RF64 WAV is not tagged. Formats TagLib writes warn of nothing.
    @Test func whatAFormatCannotKeepIsAWarning() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("mix.json", #"""
            { "name": "Rain", "duration": "60s", "output": { "sampleRate": 8000, "loudness": { "target": -20 },
                                                             "tags": { "Mood": "calm", "album": "Nights" } },
              "chapters": [{"at": 0, "name": "Rain"}],
              "tracks": [ { "generator": { "type": "pink" } } ] }
            """#)
        let job = try RenderJob(presetPath: path)
        let caf = OutputPlan.fileWarnings(source: job.outputSource, settings: job.outputSettings(format: .caf))
        #expect(caf.count == 3, "\(caf)")
        #expect(caf.allSatisfy { $0.hasPrefix(path + ": ") }, "\(caf)")
        #expect(caf.contains { $0.contains("output.tags.Mood: CAF ALAC keeps only title, artist, album") }, "\(caf)")
        #expect(caf.contains { $0.contains(": chapters: CAF ALAC has no chapter marks") }, "\(caf)")
        #expect(caf.contains { $0.contains(": output.loudness: CAF ALAC has no ReplayGain tags") }, "\(caf)")
        for format in OutputFileFormat.allCases where format != .caf {
            #expect(OutputPlan.fileWarnings(source: job.outputSource, settings: job.outputSettings(format: format)).isEmpty, "\(format)")
        }
        var long = job.outputSettings(format: .wav)
        long.expectedFrameCount = 1 << 31
        #expect(long.wavNeedsRF64)
        let rf64 = OutputPlan.fileWarnings(source: job.outputSource, settings: long)
        #expect(rf64.count == 1 && rf64[0].contains("RF64"), "\(rf64)")
        // The title defaults to the name; the preset's tags follow, in order.
        #expect(job.outputSettings(format: .mp3).tagFields.fields.map(\.key) == ["TITLE", "ALBUM", "MOOD"])
    }

    /// The chapters a render carries: all of them relative to the file's start, or in a partial render those
    /// in its range, the one running at its start moved to 0; as ID3v2 chapters each ends where the next starts.
    @Test func aRenderCarriesTheListedChaptersAndAPartOfItThoseInItsRange() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("mix.json", #"""
            { "duration": "60s", "output": { "sampleRate": 8000 },
              "chapters": [{"at": 0, "name": "Rain"}, {"at": "20s", "name": "Wind"}, {"at": 45.5, "name": "Night"}],
              "tracks": [ { "generator": { "type": "pink" } } ] }
            """#)
        let whole = try RenderJob(presetPath: path)
        #expect(whole.chapters == [ChapterMark(name: "Rain", frame: 0, sampleRate: 8000),
                                   ChapterMark(name: "Wind", frame: 160_000, sampleRate: 8000),
                                   ChapterMark(name: "Night", frame: 364_000, sampleRate: 8000)])
        let id3 = Chapters.closed(whole.chapters, frameCount: Int64(whole.range.count))
        #expect(id3.map { $0.milliseconds($0.frame) } == [0, 20_000, 45_500])
        #expect(id3.map { $0.milliseconds($0.end!) } == [20_000, 45_500, 60_000])
        var overrides = RenderOverrides()
        overrides.startSeconds = 30
        overrides.endSeconds = 50
        let part = try RenderJob(presetPath: path, overrides: overrides)
        #expect(part.chapters == [ChapterMark(name: "Wind", frame: 0, sampleRate: 8000),
                                  ChapterMark(name: "Night", frame: 124_000, sampleRate: 8000)])
        let partID3 = Chapters.closed(part.chapters, frameCount: Int64(part.range.count))
        #expect(partID3.map { $0.milliseconds($0.end!) } == [15_500, 20_000])
        // Shortened by --duration: a chapter past the new end is an error at its path.
        do {
            _ = try RenderJob(presetPath: path, overrides: RenderOverrides(durationSeconds: 40))
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains("chapters[2].at"), "\(error)")
        }
    }
}
