import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// ID3v2.3 tags and chapters through TagLib in MP3, AIFF and WAV (plus RIFF INFO in WAV), and CAF's 'info' chunk
/// through libsndfile: written, read back, and the audio untouched (an MP3 still decodes to exactly its frames:
/// the LAME/Xing gapless header survives).
@Suite struct ID3TagsTests {
    static let rate = 44_100
    static let frames = 30_000   // not a multiple of an MP3 frame (1152), so gapless trimming shows

    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var format: OutputFileFormat
        var description: String { file }
    }

    static let cases = [Case(file: "tagged.mp3", format: .mp3), Case(file: "tagged.aiff", format: .aiff),
                        Case(file: "tagged.wav", format: .wav)]

    static let fields: [(key: String, value: String)] = [
        ("TITLE", "Pluie d'été – 夜の雨"), ("ARTIST", "mixrender"), ("ALBUM", "Nights"), ("COMMENT", "rain + wind, 8 h"),
        ("DATE", "2024"), ("GENRE", "Ambient"), ("TRACKNUMBER", "3"), ("COPYRIGHT", "CC BY 4.0"),
        ("NARRATOR", "Ana Lía"), ("MOOD", "calm"), ("MOOD", "dark"),
        ("REPLAYGAIN_TRACK_GAIN", "-4.20 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.891251"),
    ]

    static let chapters = [
        ChapterMark(name: "Rain", frame: 0, end: 250, sampleRate: 1000),
        ChapterMark(name: "Déjà vu", frame: 250, end: 500, sampleRate: 1000),
        ChapterMark(name: "Deep night", frame: 500, end: 680, sampleRate: 1000),
    ]

    /// A 440 Hz sine in stereo, titled by libsndfile.
    func makeFile(_ folder: TemporaryFolder, _ c: Case) throws -> String {
        let path = folder.path(c.file)
        let settings = OutputSettings(format: c.format, sampleRate: Self.rate, channelCount: 2, sampleFormat: .pcm16,
                                      title: "Original title", artist: "libsndfile")
        let writer = try SoundFileWriter(path: path, settings: settings)
        let data = TestSignals.sine(frequency: 440, amplitude: 0.5, rate: Self.rate, frames: Self.frames, channels: 2)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: Self.frames) }
        try writer.finish()
        return path
    }

    func decode(_ path: String) throws -> [Float] { try readAll(try AudioFile.open(path: path)) }

    @Test(arguments: cases)
    func tagsAndChaptersRoundTripAndTheAudioIsUntouched(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        let before = try decode(path)
        #expect(before.count == Self.frames * 2)
        try FileTags.write(path: path, format: c.format, fields: Self.fields, chapters: Self.chapters)
        let read = try FileTags.contents(path: path, format: c.format)
        for key in ["TITLE", "ARTIST", "ALBUM", "COMMENT", "DATE", "GENRE", "TRACKNUMBER", "COPYRIGHT", "NARRATOR",
                    "REPLAYGAIN_TRACK_GAIN", "REPLAYGAIN_TRACK_PEAK"] {
            let written = Self.fields.filter { $0.key == key }.map(\.value)
            #expect(read.values(key) == written, "\(key): \(read.fields)")
        }
        // ID3v2.3 frames hold one value: several are joined with '/'.
        #expect(read.values("MOOD") == ["calm/dark"], "\(read.fields)")
        #expect(read.chapters.map(\.name) == Self.chapters.map(\.name))
        #expect(read.chapters == Self.chapters)
        #expect(read.chapters.map(\.frame) == [0, 250, 500])
        #expect(read.chapters.map(\.end) == [250, 500, 680])
        #expect(read.chapterFrames.map(\.elementID) == ["chp0", "chp1", "chp2"])
        #expect(read.chapterFrames.map(\.tableOfContentsIndex) == [0, 1, 2])
        let after = try decode(path)
        #expect(after.count == before.count, "\(after.count / 2) frames after tagging, \(before.count / 2) before")
        #expect(after == before, "the samples changed after tagging")
        #expect(folder.contents == [c.file], "left \(folder.contents)")
    }

    /// The frames themselves: ID3v2.3 (header version 3), TXXX for free-form keys and for MOOD (TMOO is v2.4
    /// only), TYER for the date, UTF-16 for text outside Latin-1, and no ID3v1 tag at the end of an MP3.
    @Test func anMP3CarriesID3v23FramesAndNoID3v1() throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, Case(file: "frames.mp3", format: .mp3))
        try FileTags.write(path: path, format: .mp3, fields: Self.fields, chapters: Self.chapters)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes.prefix(4)) == Array("ID3".utf8) + [3])
        let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1) }
        let tag = Data(bytes[10..<(10 + size)])
        for id in ["TIT2", "TPE1", "TALB", "COMM", "TYER", "TCON", "TRCK", "TCOP", "TXXX", "CHAP", "CTOC"] {
            #expect(tag.range(of: Data(id.utf8)) != nil, "no \(id) frame")
        }
        for id in ["TDRC", "TMOO"] { #expect(tag.range(of: Data(id.utf8)) == nil, "a v2.4 \(id) frame") }
        // TIT2's text: encoding 1 (UTF-16 with a byte order mark), as v2.3 has no UTF-8.
        let tit2 = tag.range(of: Data("TIT2".utf8))!.lowerBound
        #expect(tag[tit2 + 10] == 1)
        #expect(Array(bytes.suffix(128).prefix(3)) != Array("TAG".utf8), "an ID3v1 tag at the end")
        // The audio begins with the LAME/Xing frame, right after the tag.
        let audio = Data(bytes[(10 + size)...]).prefix(8192)
        #expect(audio.range(of: Data("Xing".utf8)) != nil || audio.range(of: Data("Info".utf8)) != nil)
    }

    @Test func aWAVAlsoCarriesRIFFInfoInUTF8() throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, Case(file: "info.wav", format: .wav))
        try FileTags.write(path: path, format: .wav, fields: Self.fields)
        let read = try FileTags.contents(path: path, format: .wav)
        #expect(read.values("INFO:INAM") == ["Pluie d'été – 夜の雨"], "\(read.fields)")
        #expect(read.values("INFO:IART") == ["mixrender"])
        #expect(read.values("INFO:IPRD") == ["Nights"])
        #expect(read.values("INFO:ICMT") == ["rain + wind, 8 h"])
        #expect(read.values("INFO:ICRD") == ["2024"])
        #expect(read.values("INFO:IGNR") == ["Ambient"])
        #expect(read.values("INFO:ICOP") == ["CC BY 4.0"])
        #expect(read.values("INFO:IPRT") == ["3"])
        // libsndfile reads the same INFO title.
        #expect(try SoundFileReader(path: path).tags.title == "Pluie d'été – 夜の雨")
    }

    @Test(arguments: cases)
    func writingAgainReplacesThoseKeysAndKeepsTheOthers(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        try FileTags.write(path: path, format: c.format, fields: Self.fields, chapters: Self.chapters)
        try FileTags.write(path: path, format: c.format, fields: [("TITLE", "New title"), ("NARRATOR", "Bo"), ("MOOD", "warm")],
                           chapters: [ChapterMark(name: "All", frame: 0, end: 680, sampleRate: 1000)])
        let read = try FileTags.contents(path: path, format: c.format)
        #expect(read.values("TITLE") == ["New title"], "\(read.fields)")
        #expect(read.values("NARRATOR") == ["Bo"], "\(read.fields)")
        #expect(read.values("MOOD") == ["warm"], "\(read.fields)")
        #expect(read.values("ALBUM") == ["Nights"], "\(read.fields)")
        #expect(read.chapters.map(\.name) == ["All"])
        #expect(read.chapterFrames.map(\.tableOfContentsIndex) == [0])
        // nil chapters leave them.
        try FileTags.write(path: path, format: c.format, fields: [("GENRE", "Sleep")])
        #expect(try FileTags.contents(path: path, format: c.format).chapters.map(\.name) == ["All"])
    }

    /// libsndfile's CAF 'info' chunk keeps the known keys; TagLib does not write CAF.
    @Test func aCAFKeepsTheKnownKeysThroughLibsndfile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("tagged.caf")
        var settings = OutputSettings(format: .caf, sampleRate: Self.rate, channelCount: 2, sampleFormat: .pcm16)
        for (key, value) in Self.fields { settings.tagFields.set(key, (settings.tagFields[key] ?? []) + [value]) }
        let writer = try SoundFileWriter(path: path, settings: settings)
        let data = TestSignals.sine(frequency: 440, amplitude: 0.5, rate: Self.rate, frames: 4410, channels: 2)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 4410) }
        try writer.finish()
        let read = try FileTags.contents(path: path, format: .caf)
        for key in TagFields.knownKeys {
            #expect(read.values(key) == Self.fields.filter { $0.key == key }.map(\.value), "\(key): \(read.fields)")
        }
        #expect(read.values("NARRATOR").isEmpty && read.chapters.isEmpty)
        do {
            try FileTags.write(path: path, format: .caf, fields: [("MOOD", "calm")])
            Issue.record("TagLib wrote a CAF")
        } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("CAF"), "\(error)")
        }
    }

    /// TagLib reads only RIFF WAVs: an RF64 WAV is refused before TagLib sees it, and left as it was.
    @Test func anRF64WAVIsRefusedAndUntouched() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("long.wav")
        let original = Data("RF64".utf8) + Data([0xFF, 0xFF, 0xFF, 0xFF]) + Data("WAVEds64".utf8) + Data(count: 512)
        try original.write(to: URL(fileURLWithPath: path))
        #expect(FileTags.detectFormat(path: path) == nil)
        do {
            try FileTags.write(path: path, format: .wav, fields: Self.fields, chapters: Self.chapters)
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("not WAV"), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test func theFormatIsFoundFromTheFirstBytes() throws {
        let folder = try TemporaryFolder()
        for c in Self.cases + [Case(file: "x.flac", format: .flac), Case(file: "x.ogg", format: .oggVorbis),
                               Case(file: "x.caf", format: .caf)] {
            let path = try makeFile(folder, c)
            let renamed = folder.path("no-extension-\(c.format.rawValue)")
            try FileManager.default.moveItem(atPath: path, toPath: renamed)
            #expect(FileTags.detectFormat(path: renamed) == c.format, "\(c)")
        }
        let text = folder.path("notes.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(FileTags.detectFormat(path: text) == nil)
        #expect(FileTags.detectFormat(path: folder.path("absent")) == nil)
    }

    @Test(arguments: cases)
    func aFileThatIsNotThatFormatIsAOneLineErrorAndUntouched(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("fake-" + c.file)
        let junk = Data(String(repeating: "not audio at all\n", count: 256).utf8)
        try junk.write(to: URL(fileURLWithPath: path))
        do {
            try FileTags.write(path: path, format: c.format, fields: Self.fields, chapters: Self.chapters)
            Issue.record("no error")
        } catch {
            #expect("\(error)".contains(path) && !"\(error)".contains("\n"), "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    }
}
