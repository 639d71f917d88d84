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
        precondition(bytes.count > 4 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0, "not an MPEG frame header")
        // MPEG-1 Layer III (bytes[1] bits 4-3 = 11): 144 x bitrate / rate bytes; MPEG-2 and 2.5: 72 x.
        let isMPEG1 = (bytes[1] >> 3) & 3 == 3
        let bitrates = isMPEG1 ? [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
                               : [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        let rates = isMPEG1 ? [44_100, 48_000, 32_000] : (bytes[1] >> 3) & 3 == 2 ? [22_050, 24_000, 16_000] : [11_025, 12_000, 8000]
        let bitrate = bitrates[Int(bytes[2] >> 4)] * 1000
        let rate = rates[Int((bytes[2] >> 2) & 3)]
        let length = (isMPEG1 ? 144 : 72) * bitrate / rate + Int((bytes[2] >> 1) & 1)
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
