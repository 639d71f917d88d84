import DSPTestSupport
import Foundation
import MixDSP
import MixIO

extension TemporaryFolder {
    /// Writes a WAV (32-bit float unless told) made from a closure (frame, channel) -> sample; returns its path.
    public func wav(_ name: String, rate: Int = 48_000, channels: Int = 1, frames: Int,
                    format: OutputSampleFormat = .float32, _ f: (Int, Int) -> Float) throws -> String {
        try write(name, OutputSettings(format: .wav, sampleRate: rate, channelCount: channels, sampleFormat: format), frames: frames, f)
    }

    /// Writes an MP3 (LAME's variable bitrate, with its Xing/LAME header) made from a closure
    /// (frame, channel) -> sample; returns its path.
    public func mp3(_ name: String, rate: Int = 44_100, channels: Int = 1, frames: Int, quality: Double = 0.5,
                    _ f: (Int, Int) -> Float) throws -> String {
        try write(name, OutputSettings(format: .mp3, sampleRate: rate, channelCount: channels, vorbisQuality: quality), frames: frames, f)
    }

    /// Writes interleaved samples as Ogg Vorbis (libvorbis at `quality`, in blocks of 4096 frames); returns its path.
    public func oggVorbis(_ name: String, rate: Int = 48_000, channels: Int = 2, quality: Double = 0.4,
                          interleaved samples: [Float]) throws -> String {
        let p = path(name)
        let writer = try SoundFileWriter(path: p, settings: OutputSettings(format: .oggVorbis, sampleRate: rate,
                                                                           channelCount: channels, vorbisQuality: quality))
        try forEachBlock(of: samples, channels: channels) { try writer.write(interleaved: $0, frames: $1) }
        try writer.finish()
        return p
    }

    /// Stereo Ogg Vorbis of quiet noise with a loud burst every 0.1 s (`seconds` at 48 kHz): the encoder switches
    /// between long and short blocks all the time, the hardest case for a seek. Returns its path.
    public func vorbisBursts(_ name: String = "bursts.ogg", seconds: Int = 10, seed: UInt64 = 5) throws -> String {
        var noise = TestSignals.Noise(seed: seed)
        var samples = [Float](repeating: 0, count: 2 * seconds * 48_000)
        for i in samples.indices {
            samples[i] = ((i / 2) % 4_800 < 200 ? 0.8 : 0.02) * noise.sample()
        }
        return try oggVorbis(name, interleaved: samples)
    }

    private func write(_ name: String, _ settings: OutputSettings, frames: Int, _ f: (Int, Int) -> Float) throws -> String {
        let p = path(name)
        let writer = try SoundFileWriter(path: p, settings: settings)
        let data = TestSignals.interleaved(channels: settings.channelCount, frames: frames, f)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return p
    }
}

/// Byte surgery on MP3 files, to make the files users have from the ones LAME writes.
public enum MPEGBytes {
    /// The file without its first MPEG frame, which holds LAME's Xing/Info tag (the frame count, encoder
    /// delay and padding): a VBR file as many encoders leave it, whose header length is only an estimate.
    /// The file must start with that frame (libsndfile writes an ID3v2 tag only when given tags).
    public static func withoutTagFrame(_ bytes: [UInt8]) -> [UInt8] {
        let header = MPEGFrameHeader(bytes, at: 0)
        precondition(header != nil, "not an MPEG Layer III frame header")
        let length = header!.length
        return Array(bytes[length...])
    }
}

/// Every sample of a file, interleaved: reads until `read` returns 0, whatever the container claims.
public func readAll(_ reader: any AudioDecoder, blockFrames: Int = 4096) throws -> [Float] {
    var result: [Float] = []
    result.reserveCapacity(Int(max(0, reader.frameCount)) * reader.channelCount)
    var buffer = [Float](repeating: 0, count: blockFrames * reader.channelCount)
    while true {
        let count = try reader.read(into: &buffer, frames: blockFrames)
        if count == 0 { return result }
        result += buffer[0..<(count * reader.channelCount)]
    }
}

/// Seeks `reader` to each of `targets` and reads `frames` frames there: a line for each target where what it gives is
/// not exactly (`==`, every sample) `whole`'s frames there, or not as many as are left; empty when every seek is
/// exact. `whole` is every sample of the file, interleaved (`readAll`).
public func inexactSeeks(_ reader: any AudioDecoder, whole: [Float], targets: [Int], frames: Int = 1_000) throws -> [String] {
    let channels = reader.channelCount, count = whole.count / channels
    var buffer = [Float](repeating: 0, count: channels * frames)
    var failures: [String] = []
    for target in targets {
        try reader.seek(to: Int64(target))
        let n = try reader.read(into: &buffer, frames: frames)
        if n != min(frames, count - target) {
            failures.append("from frame \(target): \(n) frames read, \(min(frames, count - target)) expected")
        } else if !buffer[..<(channels * n)].elementsEqual(whole[(channels * target)..<(channels * (target + n))]) {
            failures.append("the \(n) frames read from frame \(target) are not those of a read from the start")
        }
    }
    return failures
}

/// The Xing/Info tag and its LAME extension in an MP3's first frame, read byte by byte (not through a decoder):
/// what a gapless player reads to trim the encoder's delay and padding.
/// (http://gabriel.mp3-tech.org/mp3infotag.html)
public struct LAMETag: Equatable, CustomStringConvertible {
    /// "Xing" for a variable bitrate, "Info" for a constant one.
    public var kind: String
    /// MPEG frames after the tag frame.
    public var frames: Int
    /// Samples per frame: 1152 (MPEG-1) or 576 (MPEG-2 and 2.5).
    public var samplesPerFrame: Int
    /// The encoder's delay and padding, in samples (12 bits each).
    public var delay: Int
    public var padding: Int
    /// The bitrate index of every audio frame after the tag frame, in kbit/s.
    public var frameBitrates: [Int]

    /// The samples a gapless decoder gives: the frames' samples less delay and padding.
    public var gaplessFrameCount: Int { frames * samplesPerFrame - delay - padding }
    public var description: String { "\(kind) frames \(frames) delay \(delay) padding \(padding)" }

    /// The tag of an MP3 file's bytes (after its ID3v2 tag, if it has one), or nil.
    public static func read(_ file: [UInt8]) -> LAMETag? {
        var bytes = file
        if bytes.count > 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {   // "ID3": a syncsafe size follows
            let size = bytes[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) } + 10 + (bytes[5] & 0x10 != 0 ? 10 : 0)
            guard size < bytes.count else { return nil }
            bytes = Array(bytes[size...])
        }
        guard let first = MPEGFrameHeader(bytes, at: 0) else { return nil }
        // The side information after the 4-byte header: 32 or 17 bytes (MPEG-1 stereo or mono), 17 or 9 (MPEG-2).
        let sideInfo = first.isMPEG1 ? (first.isMono ? 17 : 32) : (first.isMono ? 9 : 17)
        var i = 4 + sideInfo
        guard i + 8 <= bytes.count, let kind = String(bytes: bytes[i..<(i + 4)], encoding: .ascii), kind == "Xing" || kind == "Info" else { return nil }
        let flags = Int(bytes[i + 7])
        i += 8
        var frames = 0
        if flags & 1 != 0 { frames = bytes[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }; i += 4 }
        if flags & 2 != 0 { i += 4 }
        if flags & 4 != 0 { i += 100 }
        if flags & 8 != 0 { i += 4 }
        // LAME extension: encoder string (9), revision (1), low-pass (1), peak (4), gains (2 + 2), flags (1),
        // bitrate (1), then delay and padding in 3 bytes.
        guard i + 24 <= bytes.count, String(bytes: bytes[i..<(i + 4)], encoding: .ascii) == "LAME" else { return nil }
        let d = i + 21
        let delay = Int(bytes[d]) << 4 | Int(bytes[d + 1]) >> 4
        let padding = (Int(bytes[d + 1]) & 0x0F) << 8 | Int(bytes[d + 2])
        var bitrates: [Int] = []
        var offset = first.length
        while let header = MPEGFrameHeader(bytes, at: offset) {
            bitrates.append(header.bitrateKbps)
            offset += header.length
        }
        return LAMETag(kind: kind, frames: frames, samplesPerFrame: first.isMPEG1 ? 1152 : 576, delay: delay,
                       padding: padding, frameBitrates: bitrates)
    }
}

/// One MPEG audio Layer III frame header, parsed from 4 bytes.
public struct MPEGFrameHeader {
    public var isMPEG1: Bool
    public var isMono: Bool
    public var bitrateKbps: Int
    public var sampleRate: Int
    /// Bytes in the frame, header included.
    public var length: Int

    public init?(_ bytes: [UInt8], at offset: Int) {
        guard offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] & 0xE0 == 0xE0 else { return nil }
        let b1 = bytes[offset + 1], b2 = bytes[offset + 2], b3 = bytes[offset + 3]
        let version = (b1 >> 3) & 3
        guard version != 1, (b1 >> 1) & 3 == 1 else { return nil }   // a version, and Layer III
        isMPEG1 = version == 3
        let bitrates = isMPEG1 ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
                               : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0]
        let rates = isMPEG1 ? [44_100, 48_000, 32_000, 0] : version == 2 ? [22_050, 24_000, 16_000, 0] : [11_025, 12_000, 8000, 0]
        bitrateKbps = bitrates[Int(b2 >> 4)]
        sampleRate = rates[Int((b2 >> 2) & 3)]
        guard bitrateKbps > 0, sampleRate > 0 else { return nil }
        isMono = b3 >> 6 == 3
        length = (isMPEG1 ? 144 : 72) * bitrateKbps * 1000 / sampleRate + Int((b2 >> 1) & 1)
    }
}
