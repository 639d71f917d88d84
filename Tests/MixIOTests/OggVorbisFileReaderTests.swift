import DSPTestSupport
import Foundation
import MixDSP
@testable import MixIO
import TestSupport
import Testing

/// The Ogg Vorbis reader for files read whole (`OggVorbisFileReader`: libogg's pages, FFmpeg's decoder): the very
/// samples FFmpeg's own reader gives, exact seeks, and FFmpeg's reader for what it does not read.
@Suite struct OggVorbisFileReaderTests {
    /// Read whole, a plain Ogg Vorbis file goes to this reader, and it gives exactly (bit for bit) what FFmpeg's
    /// reader gives: libsndfile's length, every frame, whatever the block size.
    @Test func givesWhatFFmpegsReaderGives() throws {
        let folder = try TemporaryFolder()
        let path = try folder.vorbisBursts()
        let info = try AudioFile.open(path: path).info
        let reference = try readAll(try FFmpegFileReader(path: path, knownInfo: info))
        #expect(Int64(reference.count / 2) == info.frameCount)
        for blockFrames in [4096, 1000, 1] {
            let reader = try #require(try AudioFile.open(path: path, purpose: .wholeFile) as? OggVorbisFileReader)
            #expect(reader.info == info && reader.seeksToTheSameSamples)
            let samples = try readAll(reader, blockFrames: blockFrames)
            #expect(samples == reference, "block \(blockFrames): \(samples.count) samples against \(reference.count)")
        }
    }

    /// A seek gives the very samples a read from the start gives there: forward by skipping pages (every 9973
    /// frames, so targets fall anywhere in a block), within the preroll, back, near the start and the end.
    @Test func seeksToTheSameSamples() throws {
        let folder = try TemporaryFolder()
        let path = try folder.vorbisBursts()
        let whole = try readAll(try #require(try AudioFile.open(path: path, purpose: .wholeFile) as? OggVorbisFileReader))
        let count = whole.count / 2
        let reader = try #require(try AudioFile.open(path: path, purpose: .wholeFile) as? OggVorbisFileReader)
        let forward = Array(stride(from: 20_000, to: count, by: 9_973))
        let elsewhere = [262_144, 1, 2_047, 2_049, 4_000, 123_457, 400_000, 131_072, count - 5_000, count - 1, count, 0, 100, 50_000]
        #expect(try inexactSeeks(reader, whole: whole, targets: forward + elsewhere) == [])
        #expect(throws: AudioIOError.self) { try reader.seek(to: Int64(count + 1)) }
    }

    /// Two files one after the other (a chained Ogg file: a second stream begins after the first ends) are not one
    /// plain stream: FFmpeg's reader reads them, as before.
    @Test func aChainedFileGoesToFFmpegsReader() throws {
        let folder = try TemporaryFolder()
        let first = try folder.vorbisBursts("a.ogg", seconds: 2, seed: 1)
        let second = try folder.vorbisBursts("b.ogg", seconds: 3, seed: 2)
        let chained = folder.path("chained.ogg")
        try (Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second)))
            .write(to: URL(fileURLWithPath: chained))
        let reader = try AudioFile.open(path: chained, purpose: .wholeFile)
        #expect(!(reader is OggVorbisFileReader))
        #expect(try readAll(reader).count / 2 <= Int(reader.info.frameCount))
    }

    /// Damage in the middle (a page whose bytes no longer match its checksum) costs that page's samples, not the read:
    /// the reader goes on to the end without an error, and gives no more than the length.
    @Test func aDamagedPageIsPassedOver() throws {
        let folder = try TemporaryFolder()
        let path = try folder.vorbisBursts(seconds: 4)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 2_000, by: 7) { bytes[i] ^= 0x5A }
        let damaged = folder.path("damaged.ogg")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let reader = try OggVorbisFileReader.open(path: damaged, knownInfo: try AudioFile.open(path: path).info)
        let samples = try readAll(try #require(reader))
        #expect(samples.count / 2 < 4 * 48_000 && samples.count / 2 > 3 * 48_000)
    }

    /// What is not an Ogg stream at all is refused in one line naming the file.
    @Test func notAnOggFileIsSaidInOneLine() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("noise.ogg")
        try Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: path))
        let info = AudioFileInfo(path: path, formatName: "Ogg Vorbis", sampleRate: 48_000, channelCount: 2, frameCount: 1,
                                 isSeekable: true, tags: AudioTags(), identity: nil)
        let error = try #require(throws: AudioIOError.self) { _ = try OggVorbisFileReader.open(path: path, knownInfo: info) }
        #expect(error.path == path && !error.description.contains("\n"), "\(error)")
    }

    /// A packet that never ends (page after page of full segments: a hostile file) stops the read at 32 MiB with one
    /// line naming the file, rather than growing in memory to the end of the file.
    @Test func aPacketThatNeverEndsIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("endless.ogg")
        var identification: [UInt8] = [1] + Array("vorbis".utf8) + [0, 0, 0, 0, 2, 0x80, 0xBB, 0, 0]
        identification += [UInt8](repeating: 0, count: 12) + [0xB8, 1]
        var file = OggPages.page(identification, flags: 2, sequence: 0)
        let body = [UInt8](repeating: 0x55, count: 255 * 255)
        for sequence in 1...540 {   // 35 MB of one packet, no segment under 255 bytes
            file += OggPages.page(body, flags: sequence == 1 ? 0 : 1, sequence: UInt32(sequence), endsPacket: false)
        }
        try Data(file).write(to: URL(fileURLWithPath: path))
        let info = AudioFileInfo(path: path, formatName: "Ogg Vorbis", sampleRate: 48_000, channelCount: 2, frameCount: 48_000)
        let error = try #require(throws: AudioIOError.self) { _ = try OggVorbisFileReader.open(path: path, knownInfo: info) }
        #expect(error.path == path && error.description.contains("more than 32 MiB") && !error.description.contains("\n"), "\(error)")
    }
}

/// Ogg pages made by hand (RFC 3533), for files no encoder writes.
enum OggPages {
    /// One page of stream 1 holding `body` as one packet's segments (ending it unless told), `flags` as its header
    /// type (1 continued, 2 first, 4 last), granule position -1 unless a packet ends.
    static func page(_ body: [UInt8], flags: UInt8, sequence: UInt32, endsPacket: Bool = true) -> [UInt8] {
        var lacing = [UInt8](repeating: 255, count: body.count / 255)
        if endsPacket { lacing.append(UInt8(body.count % 255)) }
        precondition(lacing.count <= 255)
        let granule: Int64 = endsPacket ? 0 : -1
        var page = Array("OggS".utf8) + [0, flags]
        page += withUnsafeBytes(of: granule.littleEndian, Array.init)
        page += withUnsafeBytes(of: UInt32(1).littleEndian, Array.init)
        page += withUnsafeBytes(of: sequence.littleEndian, Array.init)
        page += [0, 0, 0, 0, UInt8(lacing.count)] + lacing + body
        let crc = checksum(page)
        page.replaceSubrange(22..<26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        return page
    }

    /// Ogg's CRC-32: polynomial 0x04C11DB7, not reflected, starting at 0.
    private static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
