import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import TestSupport
import Testing

/// MP3 lengths are what the decoder gives, not what a header says; cut-short files are read and named.
/// The files are written by LAME (through `SoundFileWriter`) from a signal made here, then altered byte-wise
/// the way real files are: without their Xing/LAME tag (as many VBR files are), or cut short.
@Suite struct MPEGFileReaderTests {
    static let rate = 44_100
    static let frames = 4 * rate

    /// A variable-bitrate file needs a signal whose complexity changes: loud noise alternating with a quiet
    /// tone each half second (a fixed-seed generator), so LAME's frames range widely in size.
    static func signal(_ frame: Int, _ channel: Int) -> Float {
        var x = UInt64(frame) &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29; x = x &* 0xBF58_476D_1CE4_E5B9; x ^= x >> 32
        let noise = Float(Double(x >> 11) / Double(1 << 53) - 0.5)
        let tone = Float(sin(Double(frame) * 2 * .pi * 440 / Double(rate)))
        return (frame / (rate / 2)) % 2 == 0 ? 0.6 * noise : 0.05 * tone
    }

    static func makeFile(in folder: TemporaryFolder, _ name: String = "vbr.mp3") throws -> String {
        try folder.mp3(name, rate: rate, channels: 1, frames: frames, quality: 0.5, signal)
    }

    @Test func aTaggedFileIsExactAndGapless() throws {
        let folder = try TemporaryFolder()
        let path = try Self.makeFile(in: folder)
        let reader = try AudioFile.open(path: path)
        #expect(reader is MPEGFileReader)
        #expect(reader.info.formatName == "MP3")
        #expect(reader.info.warnings.isEmpty)
        // LAME's encoder delay and padding are trimmed: exactly the frames written.
        #expect(reader.info.frameCount == Int64(Self.frames))
        #expect(try readAll(reader).count == Self.frames)
    }

    /// Without its tag the header length is an estimate from the first frame's bitrate and the file size;
    /// libsndfile reports that estimate and stops reading there. This reader scans every frame.
    @Test func aFileWithoutItsTagIsMeasuredByItsFrames() throws {
        let folder = try TemporaryFolder()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.makeFile(in: folder))))
        let path = folder.path("untagged.mp3")
        try Data(MPEGBytes.withoutTagFrame(bytes)).write(to: URL(fileURLWithPath: path))

        let estimate = try SoundFileReader(path: path).info.frameCount
        let reader = try AudioFile.open(path: path)
        let decoded = try readAll(reader).count
        #expect(reader.info.frameCount == Int64(decoded))
        #expect(reader.info.warnings.isEmpty)
        // Untrimmed: the frames hold the encoder's delay and padding too, less than two MPEG frames more.
        #expect(decoded >= Self.frames && decoded < Self.frames + 2 * 1152)
        // The estimate this file gets from its header is far off, which is what the scan is for.
        #expect(abs(estimate - Int64(decoded)) > Int64(Self.rate / 10), "estimate \(estimate), decoded \(decoded)")
    }

    @Test func aFileCutShortIsReadAsFarAsItGoesWithAWarning() throws {
        let folder = try TemporaryFolder()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.makeFile(in: folder))))
        let path = folder.path("cut.mp3")
        // Cut in the middle of a frame, as an interrupted download is.
        try Data(bytes[..<(bytes.count / 2 + 77)]).write(to: URL(fileURLWithPath: path))

        let reader = try AudioFile.open(path: path)
        let decoded = try readAll(reader).count
        #expect(reader.info.frameCount == Int64(decoded))
        #expect(decoded > Self.frames / 4 && decoded < Self.frames * 3 / 4)
        #expect(reader.info.warnings.count == 1)
        let warning = reader.info.warnings.first ?? ""
        #expect(warning.hasPrefix("the file ends early: its header announces 4.0 s of audio, but its frames stop at "), "\(warning)")
    }

    /// Reading from a frame gives the same samples as the whole decode there (the scan indexed the frames),
    /// within 1e-6 (-120 dBFS): the decoder's filter bank starts from a different state, which changes
    /// the last bit of a few samples. The target at 1 s follows quiet frames whose saved bits the first loud
    /// frame uses (the bit reservoir), so it checks that enough frames are decoded before the target.
    @Test(arguments: [0, 1, 1151, 44_100, 100_003])
    func seekingIsExact(_ frame: Int) throws {
        let folder = try TemporaryFolder()
        let path = try Self.makeFile(in: folder)
        let whole = try readAll(try AudioFile.open(path: path))
        let reader = try AudioFile.open(path: path)
        try reader.seek(to: Int64(frame))
        var block = [Float](repeating: 0, count: 2000)
        let count = try reader.read(into: &block, frames: block.count)
        #expect(count == min(block.count, Self.frames - frame))
        let difference = zip(block[0..<count], whole[frame..<(frame + count)]).map { abs($0 - $1) }.max() ?? 0
        #expect(difference <= 1e-6, "largest difference \(difference)")
    }

    @Test func seekingPastTheEndIsAnError() throws {
        let folder = try TemporaryFolder()
        let reader = try AudioFile.open(path: try Self.makeFile(in: folder))
        #expect(throws: AudioIOError.self) { try reader.seek(to: Int64(Self.frames + 1)) }
    }
}
