import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Vorbis comments through TagLib: chapter marks in Ogg Vorbis and FLAC, written and read back, without
/// touching the audio.
@Suite struct FileTagsTests {
    static let rate = 16_000

    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var format: OutputFileFormat
        var description: String { file }
    }

    static let cases = [Case(file: "tagged.ogg", format: .oggVorbis), Case(file: "tagged.flac", format: .flac)]

    static let chapters: [(key: String, value: String)] = [
        ("CHAPTER001", "00:00:00.000"), ("CHAPTER001NAME", "Induction"),
        ("CHAPTER002", "00:01:30.250"), ("CHAPTER002NAME", "Déjà vu"),
    ]

    /// Half a second of a 440 Hz sine, stereo, titled and signed by libsndfile.
    func makeFile(_ folder: TemporaryFolder, _ c: Case) throws -> String {
        let path = folder.path(c.file)
        let settings = OutputSettings(format: c.format, sampleRate: Self.rate, channelCount: 2, sampleFormat: .pcm16,
                                      title: "Original title", artist: "mixrender tests")
        let writer = try SoundFileWriter(path: path, settings: settings)
        let frames = Self.rate / 2
        let data = TestSignals.sine(frequency: 440, amplitude: 0.5, rate: Self.rate, frames: frames, channels: 2)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return path
    }

    func decode(_ path: String) throws -> [Float] { try readAll(try AudioFile.open(path: path)) }

    func values(_ fields: [(key: String, value: String)], _ key: String) -> [String] {
        fields.filter { $0.key == key }.map(\.value)
    }

    /// What libsndfile wrote is read back (its TITLE and ARTIST: the starting point of the tests below).
    @Test(arguments: cases)
    func readsWhatLibsndfileWrote(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        let fields = try FileTags.read(path: path, format: c.format)
        #expect(values(fields, "TITLE") == ["Original title"], "\(fields)")
        #expect(values(fields, "ARTIST") == ["mixrender tests"], "\(fields)")
    }

    @Test(arguments: cases)
    func chaptersRoundTripAndTheAudioIsUntouched(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        let before = try decode(path)
        try FileTags.write(path: path, format: c.format, fields: Self.chapters)
        let fields = try FileTags.read(path: path, format: c.format)
        for (key, value) in Self.chapters {
            #expect(values(fields, key) == [value], "\(key): \(fields)")
        }
        #expect(values(fields, "CHAPTER002NAME").first?.unicodeScalars.count == 7)   // "Déjà vu", precomposed, as written
        #expect(values(fields, "TITLE") == ["Original title"], "\(fields)")
        let after = try decode(path)
        #expect(after.count == before.count)
        #expect(after == before, "the samples changed after tagging")
        #expect(folder.contents == [c.file], "left \(folder.contents)")
    }

    @Test(arguments: cases)
    func aKeyGivenTwiceKeepsBothValuesInOrder(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        try FileTags.write(path: path, format: c.format, fields: [("GENRE", "Meditation"), ("GENRE", "Ambient")])
        let fields = try FileTags.read(path: path, format: c.format)
        #expect(values(fields, "GENRE") == ["Meditation", "Ambient"], "\(fields)")
    }

    @Test(arguments: cases)
    func writingAgainReplacesThoseKeysAndKeepsTheOthers(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        try FileTags.write(path: path, format: c.format, fields: Self.chapters + [("GENRE", "Meditation"), ("GENRE", "Ambient")])
        try FileTags.write(path: path, format: c.format, fields: [("CHAPTER001NAME", "Deepener"), ("GENRE", "Sleep"),
                                                                  ("TITLE", "New title")])
        let fields = try FileTags.read(path: path, format: c.format)
        #expect(values(fields, "CHAPTER001NAME") == ["Deepener"], "\(fields)")
        #expect(values(fields, "GENRE") == ["Sleep"], "\(fields)")
        #expect(values(fields, "TITLE") == ["New title"], "\(fields)")
        #expect(values(fields, "CHAPTER001") == ["00:00:00.000"], "\(fields)")
        #expect(values(fields, "CHAPTER002") == ["00:01:30.250"], "\(fields)")
        #expect(values(fields, "CHAPTER002NAME") == ["Déjà vu"], "\(fields)")
        #expect(values(fields, "ARTIST") == ["mixrender tests"], "\(fields)")
    }

    /// A one-line error naming the path.
    func expectOneLineError(naming path: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("no error")
        } catch {
            let message = "\(error)"
            #expect(message.contains(path), "\(message)")
            #expect(!message.contains("\n"), "\(message)")
        }
    }

    @Test(arguments: cases)
    func aMissingFileIsNamed(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("absent-" + c.file)
        expectOneLineError(naming: path) { try FileTags.write(path: path, format: c.format, fields: Self.chapters) }
        expectOneLineError(naming: path) { _ = try FileTags.read(path: path, format: c.format) }
        #expect(folder.contents.isEmpty)
    }

    @Test(arguments: cases)
    func aKeyWithAnEqualsSignIsRefusedAndNothingIsWritten(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, c)
        let before = try FileTags.read(path: path, format: c.format)
        expectOneLineError(naming: path) {
            try FileTags.write(path: path, format: c.format, fields: [("GENRE", "Sleep"), ("A=B", "x")])
        }
        let after = try FileTags.read(path: path, format: c.format)
        #expect(after.map(\.key) == before.map(\.key) && after.map(\.value) == before.map(\.value), "\(after)")
    }
}
