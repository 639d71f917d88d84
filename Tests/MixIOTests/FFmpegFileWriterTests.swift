import CFFmpeg
import DSPTestSupport
import Foundation
import MixDSP
@testable import MixIO
import TestSupport
import Testing

/// AAC in .m4a written by `FFmpegFileWriter` (FFmpeg's native AAC encoder, the `ipod` muxer) and read back by
/// `AudioFile.open` (`FFmpegFileReader`): exact lengths (the priming and padding are trimmed), alignment,
/// level, tags, chapters, the container's boxes, and settings refused before anything is written.
@Suite struct FFmpegFileWriterTests {
    static let rate = 48_000

    /// Writes `samples` (interleaved) in blocks of `blockFrames` frames (not a multiple of 1024, so that the
    /// writer's own blocking is exercised) and returns the path.
    @discardableResult
    func write(_ samples: [Float], to path: String, settings: OutputSettings, blockFrames: Int = 1000,
               chapters: [ChapterMark] = []) throws -> String {
        let writer = try FFmpegFileWriter(path: path, settings: settings, chapters: chapters)
        try forEachBlock(of: samples, channels: settings.channelCount, blockFrames: blockFrames) {
            try writer.write(interleaved: $0, frames: $1)
        }
        try writer.finish()
        #expect(writer.framesWritten == Int64(samples.count / settings.channelCount))
        return path
    }

    func stereo(rate: Int = rate, bitrateKbps: Int? = nil) -> OutputSettings {
        var settings = OutputSettings(format: .m4a, sampleRate: rate, channelCount: 2, vorbisQuality: 0.5)
        settings.bitrateKbps = bitrateKbps
        return settings
    }

    /// Seeded uniform noise at amplitude `amplitude`, interleaved.
    func noise(frames: Int, channels: Int, amplitude: Float = 0.5, seed: UInt64 = 11) -> [Float] {
        var generator = TestSignals.Noise(seed: seed)
        return (0..<(frames * channels)).map { _ in amplitude * generator.sample() }
    }

    /// Seeded noise through a one-pole low-pass at about 1/40 of the rate (`y += 0.15 (x - y)`), RMS about
    /// 0.08: its energy lies well below the encoder's low-pass (about 15-20 kHz at 48 kHz), which takes a
    /// third of white noise's energy and so would measure the low-pass, not the level.
    func lowNoise(frames: Int, channels: Int, seed: UInt64 = 11) -> [Float] {
        var generator = TestSignals.Noise(seed: seed)
        var state = [Float](repeating: 0, count: channels)
        return (0..<(frames * channels)).map { i in
            state[i % channels] += 0.15 * (generator.sample() - state[i % channels])
            return state[i % channels]
        }
    }

    // MARK: - Length, shape and level

    /// The file decodes to exactly the frames written, at any length around the 1024-frame block: the
    /// muxer's edit list trims the encoder's priming (1024 frames) and its padding of the last block.
    @Test(arguments: [1, 1023, 1024, 1025, 48_000 * 3 + 17])
    func decodesToExactlyTheFramesWritten(frames: Int) throws {
        let folder = try TemporaryFolder()
        let path = try write(noise(frames: frames, channels: 2, amplitude: 0.25), to: folder.path("n.m4a"), settings: stereo())
        let reader = try AudioFile.open(path: path)
        #expect(reader is FFmpegFileReader)
        #expect(reader.info.formatName == "AAC (MPEG-4)")
        #expect(reader.info.frameCount == Int64(frames))
        #expect(reader.info.sampleRate == Self.rate && reader.info.channelCount == 2)
        #expect(try readAll(reader).count == frames * 2)
    }

    /// Rates and channel counts are kept, and the level of noise and of a sine is kept within 0.5 dB
    /// (measured: within 0.1 dB at the default bitrate).
    @Test(arguments: [(44_100, 1), (48_000, 2), (22_050, 2), (96_000, 1)])
    func keepsRateChannelsAndLevel(rate: Int, channels: Int) throws {
        let folder = try TemporaryFolder()
        let frames = rate * 2
        let settings = OutputSettings(format: .m4a, sampleRate: rate, channelCount: channels, vorbisQuality: 0.5)
        let signals: [(String, [Float])] = [
            ("noise", lowNoise(frames: frames, channels: channels)),
            ("sine", TestSignals.sine(frequency: 997, amplitude: 0.5, rate: rate, frames: frames, channels: channels)),
        ]
        for (name, samples) in signals {
            let path = try write(samples, to: folder.path("\(name).m4a"), settings: settings)
            let reader = try AudioFile.open(path: path)
            #expect(reader.info.sampleRate == rate && reader.info.channelCount == channels)
            #expect(reader.info.frameCount == Int64(frames))
            let decoded = try readAll(reader)
            for c in 0..<channels {
                let source = stride(from: c, to: samples.count, by: channels).map { samples[$0] }
                let result = stride(from: c, to: decoded.count, by: channels).map { decoded[$0] }
                let difference = dB(rms(result) / rms(source))
                #expect(abs(difference) <= 0.5, "\(name) at \(rate) Hz, channel \(c): RMS \(difference) dB off")
            }
        }
    }

    /// Decoded audio is not shifted: 440 Hz left and 660 Hz right (plus a little noise, so that the lag is
    /// unique) match the source best at lag 0 of -64...64 frames (less than half the 440 Hz period), over the
    /// whole file and over its last 4096 frames alone; each channel's SNR is at least 20 dB.
    @Test func decodedAudioIsAligned() throws {
        let folder = try TemporaryFolder()
        let frames = Self.rate * 2 + 333
        var generator = TestSignals.Noise(seed: 5)
        let source = TestSignals.interleaved(channels: 2, frames: frames) { i, c in
            Float(0.4 * sin(2 * Double.pi * (c == 0 ? 440 : 660) * Double(i) / Double(Self.rate))) + 0.02 * generator.sample()
        }
        let path = try write(source, to: folder.path("a.m4a"), settings: stereo())
        let decoded = try readAll(AudioFile.open(path: path))
        try #require(decoded.count == source.count)

        func error(lag: Int, in range: Range<Int>) -> Double {
            var sum = 0.0
            for i in range where i + lag >= 0 && i + lag < frames {
                for c in 0..<2 { let d = Double(decoded[(i + lag) * 2 + c] - source[i * 2 + c]); sum += d * d }
            }
            return sum
        }
        for range in [64..<(frames - 64), (frames - 4096)..<(frames - 64)] {
            let lag = (-64...64).min { error(lag: $0, in: range) < error(lag: $1, in: range) }!
            #expect(lag == 0, "decoded audio is \(lag) frames late in \(range)")
        }
        for c in 0..<2 {
            let s = stride(from: c, to: source.count, by: 2).map { source[$0] }
            let noise = stride(from: c, to: source.count, by: 2).map { decoded[$0] - source[$0] }
            #expect(dB(rms(s) / rms(noise)) >= 20, "channel \(c): SNR \(dB(rms(s) / rms(noise))) dB")
        }
    }

    // MARK: - Bitrate

    /// Without a bitrate it comes from the quality (64 kbit/s per channel at the presets' default, 0.5), and
    /// the file's size is what the bitrate says: 10 s of noise within 10 % (the encoder holds an average bitrate).
    @Test func bitrateSetsTheSize() throws {
        #expect(FFmpegFileWriter.defaultBitrateKbps(quality: 0.5, sampleRate: 48_000, channelCount: 2) == 128)
        #expect(FFmpegFileWriter.defaultBitrateKbps(quality: 0.5, sampleRate: 44_100, channelCount: 1) == 64)
        #expect(FFmpegFileWriter.defaultBitrateKbps(quality: 1, sampleRate: 48_000, channelCount: 2) == 256)
        #expect(FFmpegFileWriter.defaultBitrateKbps(quality: 0, sampleRate: 48_000, channelCount: 2) == 64)
        #expect(FFmpegFileWriter.defaultBitrateKbps(quality: 0.75, sampleRate: 48_000, channelCount: 1) == 91)
        #expect(FFmpegFileWriter.defaultBitrateKbps(quality: 0.5, sampleRate: 8000, channelCount: 2) == 96)  // 48 per channel at most
        let folder = try TemporaryFolder()
        let samples = noise(frames: Self.rate * 10, channels: 2)
        for kbps in [nil, 96, 192] {
            let path = try write(samples, to: folder.path("b\(kbps ?? 0).m4a"), settings: stereo(bitrateKbps: kbps),
                                 blockFrames: 4096)
            let bytes = try #require(FileSystem.identity(of: path)?.size)
            let measured = Double(bytes) * 8 / 10 / 1000
            let expected = Double(kbps ?? 128)
            #expect(abs(measured / expected - 1) <= 0.1, "\(measured) kbit/s at \(expected) kbit/s")
        }
    }

    // MARK: - Container

    /// The file is an iTunes-style M4A that AVFoundation plays gaplessly: `ftyp` with major brand `M4A `, the
    /// `moov` box before the audio (`mdat`), an edit list (`elst`) that starts after the priming, and the
    /// `roll` sample group. Title, artist and comment read back; chapters read back as FFmpeg sees the chapter
    /// track, to the millisecond (the QuickTime chapter track's time scale is 1000).
    @Test func containerTagsAndChapters() throws {
        let folder = try TemporaryFolder()
        var settings = stereo()
        settings.title = "Rain — night"
        settings.artist = "mixrender tests"
        settings.comment = "pink noise"
        let chapters = [ChapterMark(name: "Arrival", frame: 0, sampleRate: Self.rate),
                        ChapterMark(name: "Body scan", frame: 30_000, sampleRate: Self.rate),
                        ChapterMark(name: "Sleep", frame: 90_017, sampleRate: Self.rate)]
        let frames = Self.rate * 3
        settings.expectedFrameCount = Int64(frames)
        let path = try write(noise(frames: frames, channels: 2), to: folder.path("t.m4a"), settings: settings, chapters: chapters)

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let boxes = MP4Boxes.topLevel(bytes)
        #expect(boxes.first == "ftyp")
        #expect(String(decoding: bytes[8..<12], as: UTF8.self) == "M4A ")
        let moov = try #require(boxes.firstIndex(of: "moov")), mdat = try #require(boxes.firstIndex(of: "mdat"))
        #expect(moov < mdat, "boxes \(boxes)")
        let edit = try #require(MP4Boxes.editList(bytes))
        #expect(edit.mediaTime == 1024, "edit list \(edit)")
        #expect(edit.segmentDuration > 0)
        #expect(MP4Boxes.contains(bytes, "sgpd") && MP4Boxes.contains(bytes, "roll"))

        let info = try AudioFile.open(path: path).info
        #expect(info.tags == settings.tags)
        #expect(info.frameCount == Int64(frames))

        let found = try ChapterProbe.chapters(path)
        #expect(found.map(\.title) == chapters.map(\.name))
        for (chapter, mark) in zip(found, chapters) {
            #expect(abs(chapter.start - Double(mark.frame) / Double(Self.rate)) <= 0.001, "\(chapter)")
        }
        #expect(abs((found.last?.end ?? 0) - 3) <= 0.001, "\(found)")
    }

    /// Through `AudioFileWriter` and `AtomicOutputFile`, as renders write: the file appears complete at
    /// the destination (FFmpeg reopens the temporary file, `/proc/self/fd/n`, to move `moov` to the front).
    @Test func writesThroughTheTemporaryFile() throws {
        let folder = try TemporaryFolder()
        let destination = folder.path("night.m4a")
        let output = try AtomicOutputFile(destination: destination)
        let writer = try AudioFileWriter.open(path: output.temporaryPath, settings: stereo(), displayPath: destination)
        #expect(writer is FFmpegFileWriter)
        let samples = noise(frames: 50_000, channels: 2)
        try forEachBlock(of: samples, channels: 2) { try writer.write(interleaved: $0, frames: $1) }
        try writer.finish()
        try writer.finish()  // again: nothing
        try output.commit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["night.m4a"])
        #expect(try AudioFile.open(path: destination).info.frameCount == 50_000)
    }

    // MARK: - Refused

    /// Settings the encoder cannot take are refused before anything is created, in one line naming the
    /// file and what it takes.
    @Test func badSettingsAreRefused() throws {
        func problem(rate: Int = 48_000, channels: Int = 2, kbps: Int? = nil, quality: Double = 0.4) -> String? {
            var settings = OutputSettings(format: .m4a, sampleRate: rate, channelCount: channels, vorbisQuality: quality)
            settings.bitrateKbps = kbps
            return AudioFileWriter.validate(settings: settings)
        }
        #expect(problem() == nil)
        #expect(problem(rate: 7000) == "AAC (M4A) cannot be written at 7000 Hz (it takes 8000, 11025, 12000, 16000, "
                + "22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000 Hz)")
        #expect(problem(rate: 192_000) != nil)
        #expect(problem(channels: 3) == "AAC (M4A) cannot be written with 3 channels (1...2)")
        #expect(problem(kbps: 8) == "AAC (M4A) at 48000 Hz with 2 channels takes 32...576 kbit/s, not 8")
        #expect(problem(channels: 1, kbps: 1000) == "AAC (M4A) at 48000 Hz with 1 channel takes 16...288 kbit/s, not 1000")
        #expect(problem(rate: 8000, channels: 1, kbps: 64) != nil)
        #expect(problem(kbps: 32) == nil && problem(kbps: 576) == nil)
        #expect(problem(quality: 1.5) == "AAC (M4A) quality must be between 0 and 1, not 1.5")

        let folder = try TemporaryFolder()
        let path = folder.path("x.m4a")
        let error = try #require(throws: AudioIOError.self) {
            try FFmpegFileWriter(path: path, settings: OutputSettings(format: .m4a, sampleRate: 7000, channelCount: 2))
        }
        #expect(error.description.hasPrefix("cannot create '\(path)': AAC (M4A) cannot be written at 7000 Hz"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// Chapters out of order, unnamed, past the end or without a known length are refused at creation, and
    /// nothing is created; a file that ends up shorter than its chapters were laid out for, at `finish`.
    @Test func badChaptersAreRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("c.m4a")
        var settings = stereo()
        settings.expectedFrameCount = 4000
        func reason(_ chapters: [ChapterMark], _ settings: OutputSettings) throws -> String {
            try #require(throws: AudioIOError.self) { try FFmpegFileWriter(path: path, settings: settings, chapters: chapters) }.reason
        }
        #expect(try reason([.init(name: "b", frame: 100, sampleRate: Self.rate), .init(name: "a", frame: 100, sampleRate: Self.rate)], settings)
                == "chapter 'a' (frame 100) does not start after 'b' (frame 100)")
        #expect(try reason([.init(name: "", frame: 0, sampleRate: Self.rate)], settings) == "chapter 1 has no name")
        #expect(try reason([.init(name: "a", frame: 0, sampleRate: Self.rate), .init(name: "z", frame: 4000, sampleRate: Self.rate)], settings)
                == "chapter 'z' starts at frame 4000, not before the end (4000 frames)")
        #expect(try reason([.init(name: "a", frame: 0, sampleRate: Self.rate)], stereo()) == "chapters need the length known before writing (expectedFrameCount)")
        #expect(!FileManager.default.fileExists(atPath: path))

        let writer = try FFmpegFileWriter(path: path, settings: settings, chapters: [.init(name: "a", frame: 0, sampleRate: Self.rate)])
        let samples = noise(frames: 3000, channels: 2)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 3000) }
        let short = try #require(throws: AudioIOError.self) { try writer.finish() }
        #expect(short.description == "cannot finish '\(path)': 3000 frames were written, not the 4000 its chapters were laid out for")
    }

    /// A sample the encoder refuses (not finite) is a one-line error naming the destination; the
    /// `AtomicOutputFile` it was written through leaves nothing.
    @Test func aFailedWriteLeavesNothing() throws {
        let folder = try TemporaryFolder()
        let destination = folder.path("bad.m4a")
        let output = try AtomicOutputFile(destination: destination)
        let writer = try AudioFileWriter.open(path: output.temporaryPath, settings: stereo(), displayPath: destination)
        var samples = noise(frames: 4096, channels: 2)
        samples[2000] = .nan
        let error = try #require(throws: AudioIOError.self) {
            try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 4096) }
            try writer.finish()
        }
        #expect(error.path == destination && !error.description.contains("\n"), "\(error)")
        output.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }
}

/// The few MP4 boxes the tests look at, found in the file's bytes.
enum MP4Boxes {
    /// The types of the top-level boxes, in order.
    static func topLevel(_ bytes: [UInt8]) -> [String] {
        var types: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
            if size == 1, offset + 16 <= bytes.count { size = bytes[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) } }
            guard size >= 8 else { break }
            offset += size
        }
        return types
    }

    static func contains(_ bytes: [UInt8], _ type: String) -> Bool { find(bytes, type) != nil }

    /// The first edit of the first `elst` box (version 0 or 1): its media time and duration.
    static func editList(_ bytes: [UInt8]) -> (segmentDuration: Int, mediaTime: Int)? {
        guard let at = find(bytes, "elst") else { return nil }
        func integer(_ offset: Int, _ count: Int) -> Int { bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) } }
        let version = bytes[at + 4], entries = at + 12
        return version == 1 ? (integer(entries, 8), integer(entries + 8, 8)) : (integer(entries, 4), integer(entries + 4, 4))
    }

    private static func find(_ bytes: [UInt8], _ type: String) -> Int? {
        let tag = Array(type.utf8)
        return (0..<max(0, bytes.count - 4)).first { bytes[$0] == tag[0] && Array(bytes[$0..<($0 + 4)]) == tag }
    }
}

/// The chapters libavformat reads from a file (`avformat_open_input`, `AVFormatContext.chapters`), in seconds.
enum ChapterProbe {
    struct Chapter: CustomStringConvertible {
        var title: String, start: Double, end: Double
        var description: String { "\(title) \(start)...\(end)" }
    }

    static func chapters(_ path: String) throws -> [Chapter] {
        try FFmpeg.loadContainers(for: path)
        var format: UnsafeMutablePointer<AVFormatContext>?
        let opened = FFmpeg.format.avformat_open_input(&format, path, nil, nil)
        guard opened >= 0, let context = format else { throw FFmpeg.error(path, "avformat_open_input", code: opened) }
        defer { FFmpeg.format.avformat_close_input(&format) }
        // It also sets the end of a chapter whose container gives none (Nero `chpl`): the next start, or the file's end.
        let found = FFmpeg.format.avformat_find_stream_info(context, nil)
        guard found >= 0 else { throw FFmpeg.error(path, "avformat_find_stream_info", code: found) }
        return (0..<Int(context.pointee.nb_chapters)).map { i in
            let chapter = context.pointee.chapters[i]!.pointee
            let base = Double(chapter.time_base.num) / Double(chapter.time_base.den)
            let title = FFmpeg.av.av_dict_get(chapter.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) } ?? ""
            return Chapter(title: title, start: Double(chapter.start) * base, end: Double(chapter.end) * base)
        }
    }
}
