import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Room reserved for tags when a FLAC or MP3 is created (`OutputSettings.tagRoomBytes`) lets TagLib write them in
/// place: the file keeps its size and every byte from the audio on, and the placeholder is gone (issue 21; before,
/// TagLib rewrote the whole file: 175 MB read and 134 MB written to tag an 8-minute FLAC).
@Suite struct TagRoomTests {
    static let rate = 48_000

    static let fields: [(key: String, value: String)] = [
        ("TITLE", "Rain for reading"), ("ARTIST", "mixrender"), ("MOOD", "calm"), ("COMMENT", "Déjà vu, made from a preset"),
        ("REPLAYGAIN_TRACK_GAIN", "+7.42 dB"), ("REPLAYGAIN_TRACK_PEAK", "0.204036"),
    ]

    /// Five seconds of noise in `format`, created with room for `fields` (and two chapters), as a render does.
    func makeFile(_ folder: TemporaryFolder, _ format: OutputFileFormat, room: Bool) throws -> String {
        let path = folder.path("room.\(format.fileExtension)")
        var settings = OutputSettings(format: format, sampleRate: Self.rate, channelCount: 2, sampleFormat: .pcm16)
        settings.tagsWrittenAfterwards = true
        var tags = TagFields()
        for (key, value) in Self.fields.prefix(4) { tags.set(key, [value]) }
        let chapters = format == .flac ? [("CHAPTER001", "00:00:00.000"), ("CHAPTER001NAME", "Start")] : []
        settings.tagRoomBytes = room ? TagLimits.room(format: format, fields: tags, extra: chapters, chapterNames: ["Start", "Deep"]) : 0
        let writer = try SoundFileWriter(path: path, settings: settings)
        let frames = Self.rate * 5
        var state: UInt64 = 7   // a fixed seed: the same noise each time (xorshift)
        let data = (0..<frames * 2).map { _ -> Float in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23) * 0.3
        }
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return path
    }

    func write(_ path: String, _ format: OutputFileFormat) throws {
        if format == .flac {
            try FileTags.write(path: path, format: format, fields: Self.fields + [("CHAPTER001", "00:00:00.000"), ("CHAPTER001NAME", "Start")])
        } else {
            try FileTags.write(path: path, format: format, fields: Self.fields, chapters: [
                ChapterMark(name: "Start", frame: 0, end: 2500, sampleRate: 1000),
                ChapterMark(name: "Deep", frame: 2500, end: 5000, sampleRate: 1000)])
        }
    }

    @Test(arguments: [OutputFileFormat.flac, .mp3])
    func tagsAreWrittenInPlace(_ format: OutputFileFormat) throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, format, room: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let placeholder = Data(FileTags.roomMarker.utf8)
        #expect(before.range(of: placeholder) != nil)
        // LAME's ID3v1 tag (the last 128 bytes, "TAG") comes with its ID3v2 tag; TagLib strips it, a truncation.
        let id3v1 = format == .mp3 ? 128 : 0
        if format == .mp3 { #expect(before.suffix(128).prefix(3) == Data("TAG".utf8)) }
        let audio = before.count - 64 * 1024   // well after any header: the last 64 KiB of audio
        try write(path, format)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(after.count == before.count - id3v1, "TagLib changed the file's size: \(before.count) -> \(after.count) bytes (rewritten)")
        #expect(after.suffix(from: audio) == before.prefix(before.count - id3v1).suffix(from: audio))
        #expect(after.range(of: placeholder) == nil)
        let contents = try FileTags.contents(path: path, format: format)
        #expect(contents.values("TITLE") == ["Rain for reading"])
        #expect(contents.values("COMMENT") == ["Déjà vu, made from a preset"])
        #expect(contents.values("MOOD") == ["calm"])
        #expect(!contents.fields.contains { $0.value.hasPrefix(FileTags.roomMarker) || $0.value.hasPrefix("LAME") })
        if format == .mp3 { #expect(contents.chapters.map(\.name) == ["Start", "Deep"]) }
        // The audio is the same as a file made without room.
        let other = try TemporaryFolder()
        let plain = try makeFile(other, format, room: false)
        #expect(try readAll(try AudioFile.open(path: plain)) == (try readAll(try AudioFile.open(path: path))))
    }

    /// Without room TagLib has to grow the header: the file's size changes (the old behaviour, for comparison).
    @Test func withoutRoomTheFileIsRewritten() throws {
        let folder = try TemporaryFolder()
        let path = try makeFile(folder, .flac, room: false)
        let before = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        try write(path, .flac)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(after != before)
    }
}
