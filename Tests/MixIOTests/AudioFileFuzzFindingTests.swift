import DSPTestSupport
import Foundation
import MixIO
import Testing
import TestSupport

/// What fuzzing `AudioFile.open` found (docs/fuzzing.md), each input written out here.
@Suite struct AudioFileFuzzFindingTests {
    /// A FLAC whose STREAMINFO gives 0 samples, the length unknown (as `flac` writes to a pipe): libsndfile said
    /// SF_COUNT_MAX frames (9.2e18), and planning the file overflowed Int64. The frames are now counted.
    @Test func aFLACOfUnknownLengthIsCounted() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("stream.flac")
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(format: .flac, sampleRate: 44_100, channelCount: 2,
                                                                              sampleFormat: .pcm16))
        let samples = TestSignals.interleaved(channels: 2, frames: 10_000) { n, c in Float(n % 100) / 400 - Float(c) / 8 }
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 10_000) }
        try writer.finish()
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // "fLaC", STREAMINFO's block header, then its data: the total samples are the low 36 bits of bytes 18...25.
        #expect(bytes[0..<5] == [0x66, 0x4C, 0x61, 0x43, 0x00])
        bytes[21] &= 0xF0
        for i in 22...25 { bytes[i] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let reader = try AudioFile.open(path: path)
        #expect(reader.frameCount == 10_000)
        #expect(try readAll(reader) == samples.map { ($0 * 32768).rounded() / 32768 })
    }

    /// The fuzzer's own input (its first byte chose .flac): STREAMINFO of unknown length, then no audio.
    @Test func theFuzzersFLACHasNoFrames() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("crash.flac")
        try Data(base64Encoded: "ZkxhQwAAACIQABAAAO8QAAIQAfQA8AAAAABlLgAAAAAAACBsCIKVSB2M")!.write(to: URL(fileURLWithPath: path))
        #expect(try AudioFile.open(path: path).frameCount == 0)
    }
}
