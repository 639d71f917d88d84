import DSPTestSupport
import Foundation
import MixDSP
import MixIO

extension TemporaryFolder {
    /// Writes a WAV (32-bit float unless told) made from a closure (frame, channel) -> sample; returns its path.
    public func wav(_ name: String, rate: Int = 48_000, channels: Int = 1, frames: Int,
                    format: OutputSampleFormat = .float32, _ f: (Int, Int) -> Float) throws -> String {
        let p = path(name)
        let writer = try SoundFileWriter(path: p, settings: OutputSettings(format: .wav, sampleRate: rate,
                                                                           channelCount: channels, sampleFormat: format))
        let data = TestSignals.interleaved(channels: channels, frames: frames, f)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return p
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
