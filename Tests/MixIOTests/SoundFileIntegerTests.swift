import DSPTestSupport
import Foundation
@testable import MixIO
import TestSupport
import Testing

/// Integer and float round trips through libsndfile, for `mixrender join`'s claim that parts are copied
/// sample-exactly: every 16-bit value, and 24-bit values across the whole range, come back as they were.
@Suite struct SoundFileIntegerTests {
    /// Every 16-bit value (both extremes included), or 24-bit values in steps of 7 plus both extremes, as
    /// full-scale `Int32` (libsndfile's `sf_readf_int` scale).
    static func values(_ depth: OutputSampleFormat) -> [Int32] {
        switch depth {
        case .pcm16: return (Int32(Int16.min)...Int32(Int16.max)).map { $0 << 16 }
        default: return (Array(stride(from: -(1 << 23), to: 1 << 23, by: 7)) + [(1 << 23) - 1]).map { Int32($0) << 8 }
        }
    }

    func write(_ samples: [Int32], to path: String, format: OutputFileFormat, depth: OutputSampleFormat, channels: Int = 1) throws {
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(format: format, sampleRate: 48_000, channelCount: channels, sampleFormat: depth))
        try samples.withUnsafeBufferPointer { try writer.write(interleavedIntegers: $0.baseAddress!, frames: samples.count / channels) }
        try writer.finish()
    }

    func readIntegers(_ path: String) throws -> [Int32] {
        let reader = try SoundFileReader(path: path)
        let channels = reader.info.channelCount
        var out = [Int32](repeating: 0, count: (Int(reader.info.frameCount) + 1) * channels)
        let count = try out.withUnsafeMutableBufferPointer { try reader.readIntegers(into: $0.baseAddress!, frames: $0.count / channels) }
        return Array(out[0..<(count * channels)])
    }

    static let cases: [(OutputFileFormat, OutputSampleFormat)] = [
        (.wav, .pcm16), (.flac, .pcm16), (.aiff, .pcm16), (.caf, .pcm16),
        (.wav, .pcm24), (.flac, .pcm24), (.aiff, .pcm24),
    ]

    /// `sf_writef_int` then `sf_readf_int`: shifts both ways, so exact.
    @Test(arguments: cases)
    func integersComeBackExactly(format: OutputFileFormat, depth: OutputSampleFormat) throws {
        let s = try TemporaryFolder()
        let values = Self.values(depth)
        let path = s.path("v.\(format.fileExtension)")
        try write(values, to: path, format: format, depth: depth)
        let back = try readIntegers(path)
        #expect(back.count == values.count)
        #expect(zip(back, values).filter { $0 != $1 }.count == 0)
    }

    /// Read as float (x / 2^15 or x / 2^23, `SFC_SET_NORM_FLOAT`) and written back as float by `SoundFileWriter`:
    /// exact too, because it turns `SFC_SET_CLIPPING` on for integer output, and with clipping libsndfile 1.2.0
    /// scales float by 2^15 (2^23) on writing. Without clipping it scales by 2^15 - 1 (2^23 - 1), and about half
    /// the positive values came back one step lower when this was measured (a C program against the same library).
    @Test(arguments: cases)
    func floatRoundTripThroughSoundFileWriterIsExact(format: OutputFileFormat, depth: OutputSampleFormat) throws {
        let s = try TemporaryFolder()
        let values = Self.values(depth)
        let path = s.path("v.\(format.fileExtension)"), copy = s.path("copy.\(format.fileExtension)")
        try write(values, to: path, format: format, depth: depth)
        let floats = try readAll(try SoundFileReader(path: path))
        let writer = try SoundFileWriter(path: copy, settings: OutputSettings(format: format, sampleRate: 48_000, channelCount: 1, sampleFormat: depth))
        try floats.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: floats.count) }
        try writer.finish()
        let back = try readIntegers(copy)
        #expect(back.count == values.count)
        #expect(zip(back, values).filter { $0 != $1 }.count == 0)
    }

    /// A sentinel for a libsndfile bug that `mixrender join` works around by refusing 24-bit CAF output of more than
    /// one channel: libsndfile 1.2.0's 24-bit ALAC encoder writes channel pairs (stereo) of loud noise (full-range
    /// white noise at about -6 dBFS and up) that do not decode back (FFmpeg decodes the same wrong samples, so it
    /// is the encoder). Mono, and noise 12 dB lower, are exact. If a newer libsndfile fixes it, this test fails:
    /// then lift the refusal in `JoinJob`.
    @Test func libsndfiles24BitALACEncoderCorruptsLoudNoise() throws {
        let s = try TemporaryFolder()
        var state: UInt64 = 1
        let noise: [Int32] = (0..<8192).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32(truncatingIfNeeded: state >> 32) & Int32(bitPattern: 0xFFFF_FF00)
        }
        let quieter = noise.map { ($0 >> 2) & Int32(bitPattern: 0xFFFF_FF00) }
        try write(noise, to: s.path("loud.caf"), format: .caf, depth: .pcm24, channels: 2)
        try write(quieter, to: s.path("quiet.caf"), format: .caf, depth: .pcm24, channels: 2)
        try write(noise, to: s.path("mono.caf"), format: .caf, depth: .pcm24, channels: 1)
        let loudBack = try readIntegers(s.path("loud.caf")), quietBack = try readIntegers(s.path("quiet.caf"))
        #expect(zip(quietBack, quieter).filter { $0 != $1 }.count == 0)
        #expect(zip(try readIntegers(s.path("mono.caf")), noise).filter { $0 != $1 }.count == 0)
        #expect(zip(loudBack, noise).filter { $0 != $1 }.count > noise.count / 2, "libsndfile's 24-bit ALAC now keeps loud noise: lift JoinJob's refusal of 24-bit CAF")
    }
}

/// The one rounding every integer output goes through: to nearest, ties to even, clipped, NaN to 0.
@Suite struct IntegerSampleRoundingTests {
    @Test(arguments: [16, 24])
    func samplesRoundToNearestTiesToEvenAndClip(bits: Int) {
        let scale = Float(1 << (bits - 1))
        let inputs: [Float] = [0, 0.5 / scale, 1.5 / scale, 2.5 / scale, -0.5 / scale, -1.5 / scale, 0.49 / scale, 0.51 / scale,
                               1, -1, 2, -2, .infinity, -.infinity, .nan, 0.25, -0.75, (scale - 1.5) / scale]
        let expected: [Int64] = [0, 0, 2, 2, 0, -2, 0, 1,
                                 Int64(scale) - 1, -Int64(scale), Int64(scale) - 1, -Int64(scale), Int64(scale) - 1, -Int64(scale), 0,
                                 Int64(scale) / 4, -Int64(scale) * 3 / 4, Int64(scale) - 2]
        var output = [Int32](repeating: 7, count: inputs.count)
        inputs.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer { SoundFileWriter.integerSamples(i.baseAddress!, count: inputs.count, bits: bits, into: $0.baseAddress!) }
        }
        #expect(output.map { Int64($0) >> (32 - bits) } == expected)
        #expect(output.allSatisfy { $0 & ((1 << (32 - bits)) - 1) == 0 })
        if bits == 16 {
            var shorts = [Int16](repeating: 7, count: inputs.count)
            inputs.withUnsafeBufferPointer { i in
                shorts.withUnsafeMutableBufferPointer { SoundFileWriter.shortSamples(i.baseAddress!, count: inputs.count, into: $0.baseAddress!) }
            }
            #expect(shorts.map { Int64($0) } == expected)
        }
    }

    /// The 16-bit path (in Float) against a reference in Double that rounds with `rounded()`, over noise from
    /// -1.2 to 1.2 (clipping included), quiet noise (many ties and values near zero) and every half-step near full scale.
    @Test func shortSamplesEqualTheReferenceRounding() {
        var random = TestSignals.Noise(seed: 27)
        var inputs: [Float] = (0..<200_000).map { _ in Float.random(in: -1.2...1.2, using: &random) }
        inputs += (0..<50_000).map { _ in Float((Int.random(in: -2000...2000, using: &random))) / 2 / 32768 }
        inputs += (0..<64).map { Float(32_768 * 2 - $0) / 2 / 32768 } + (0..<64).map { -Float(32_768 * 2 - $0) / 2 / 32768 }
        var shorts = [Int16](repeating: 0, count: inputs.count), integers = [Int32](repeating: 0, count: inputs.count)
        inputs.withUnsafeBufferPointer { i in
            shorts.withUnsafeMutableBufferPointer { SoundFileWriter.shortSamples(i.baseAddress!, count: inputs.count, into: $0.baseAddress!) }
            integers.withUnsafeMutableBufferPointer { SoundFileWriter.integerSamples(i.baseAddress!, count: inputs.count, bits: 16, into: $0.baseAddress!) }
        }
        let reference = inputs.map { Int16(max(-32768, min(32767, (Double($0) * 32768).rounded(.toNearestOrEven)))) }
        #expect(zip(shorts, reference).filter { $0 != $1 }.count == 0)
        #expect(zip(integers, reference).filter { $0 >> 16 != Int32($1) }.count == 0)
    }
}
