import DSPTestSupport
import Foundation
import MixDSP
@testable import MixIO
import TestSupport
import Testing

/// `OutputSettings.bitrateKbps`: MP3 at a constant bitrate, Opus at a target bitrate, and the LAME header that
/// makes MP3 gapless, read byte by byte.
@Suite struct BitrateTests {
    /// Seeded noise, a little quieter than full scale: what an encoder finds hardest, so its bitrate shows.
    static func noise(frames: Int, channels: Int, seed: UInt64 = 7) -> [Float] {
        var state = seed
        return (0..<(frames * channels)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state) >> 40) / Float(1 << 23) * 0.3
        }
    }

    static func write(_ path: String, _ settings: OutputSettings, _ samples: [Float]) throws {
        let writer = try SoundFileWriter(path: path, settings: settings)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: samples.count / settings.channelCount) }
        try writer.finish()
    }

    struct CBRCase: Sendable, CustomStringConvertible {
        var rate: Int, channels: Int, kbps: Int
        var description: String { "\(rate) Hz \(channels) ch \(kbps) kbit/s" }
    }

    /// Every audio frame carries the bitrate asked for; the first frame is LAME's "Info" tag (the constant-bitrate
    /// name of the Xing tag) with the delay and padding that leave exactly the written frames; the decoder gives
    /// exactly those frames; and the file's size is the bitrate times the length, within one frame.
    @Test(arguments: [CBRCase(rate: 48_000, channels: 2, kbps: 128), CBRCase(rate: 44_100, channels: 2, kbps: 320),
                      CBRCase(rate: 24_000, channels: 1, kbps: 64), CBRCase(rate: 8000, channels: 1, kbps: 24)])
    func mp3AtAConstantBitrateIsGapless(_ c: CBRCase) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("cbr.mp3")
        let frames = c.rate * 3 + 17
        var settings = OutputSettings(format: .mp3, sampleRate: c.rate, channelCount: c.channels)
        settings.bitrateKbps = c.kbps
        #expect(SoundFileWriter.validate(settings: settings) == nil)
        try Self.write(path, settings, Self.noise(frames: frames, channels: c.channels))

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let tag = try #require(LAMETag.read(bytes))
        #expect(tag.kind == "Info")
        #expect(tag.frameBitrates.count == tag.frames)
        #expect(Set(tag.frameBitrates) == [c.kbps])
        #expect(tag.gaplessFrameCount == frames, "\(tag)")
        #expect(try AudioFile.open(path: path).frameCount == Int64(frames))
        let expectedBytes = Double(c.kbps * 1000 / 8) * Double(tag.frames * tag.samplesPerFrame) / Double(c.rate)
        let frameBytes = Double(c.kbps * 1000 / 8 * tag.samplesPerFrame / c.rate)
        #expect(abs(Double(bytes.count) - expectedBytes) <= 2 * frameBytes + Double(tag.frames), "\(bytes.count) bytes, \(expectedBytes) expected")
    }

    /// Without a bitrate, MP3 is LAME's variable bitrate: a "Xing" tag, frames of several bitrates, still gapless.
    @Test func mp3AtAQualityIsVariableAndGapless() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("vbr.mp3")
        let frames = 48_000 * 3 + 5
        // Noise, then silence: a variable bitrate spends far less on the silence.
        let samples = Self.noise(frames: frames / 2, channels: 2) + [Float](repeating: 0, count: (frames - frames / 2) * 2)
        try Self.write(path, OutputSettings(format: .mp3, sampleRate: 48_000, channelCount: 2, vorbisQuality: 0.5), samples)
        let tag = try #require(LAMETag.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        #expect(tag.kind == "Xing")
        #expect(Set(tag.frameBitrates).count > 1)
        #expect(tag.gaplessFrameCount == frames, "\(tag)")
        #expect(try AudioFile.open(path: path).frameCount == Int64(frames))
    }

    /// Opus's bitrate is a target its variable bitrate meets on average: within 15 % over 10 s of noise, the
    /// hardest material (Ogg pages add about 1 %). Without a bitrate, quality 0.5 targets 48 kbit/s a channel.
    @Test(arguments: [(2, 64 as Int?, 64.0), (2, 160, 160), (1, 24, 24), (2, nil, 96)])
    func opusMeetsItsTargetBitrate(channels: Int, kbps: Int?, expected: Double) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("target.opus")
        var settings = OutputSettings(format: .opus, sampleRate: 48_000, channelCount: channels, vorbisQuality: 0.5)
        settings.bitrateKbps = kbps
        #expect(SoundFileWriter.validate(settings: settings) == nil)
        try Self.write(path, settings, Self.noise(frames: 480_000, channels: channels))
        let size = try #require(FileSystem.identity(of: path)?.size)
        let measured = Double(size) * 8 / 10 / 1000
        #expect(abs(measured / expected - 1) < 0.15, "\(measured) kbit/s for a target of \(expected)")
        #expect(try AudioFile.open(path: path).frameCount == 480_000)
    }

    /// The threshold is LAME's own: at one step below it, LAME writes no tag; at it, it does.
    @Test(arguments: [(48_000, 2), (44_100, 1), (32_000, 2), (24_000, 1), (22_050, 2), (16_000, 1), (12_000, 2), (8000, 1)])
    func theGaplessMinimumIsWhereLAMEStopsWritingItsTag(rate: Int, channels: Int) throws {
        let folder = try TemporaryFolder()
        let least = OutputFileFormat.mp3GaplessMinimumKbps(sampleRate: rate, channelCount: channels)
        let table = OutputFileFormat.mp3Bitrates(sampleRate: rate)
        let below = table.last { $0 < least }
        for (kbps, hasTag) in [(least, true)] + (below.map { [($0, false)] } ?? []) {
            let path = folder.path("\(rate)-\(kbps).mp3")
            // Written around validate, which refuses the bitrate below.
            var settings = OutputSettings(format: .mp3, sampleRate: rate, channelCount: channels)
            settings.bitrateKbps = kbps
            let writer = try SoundFileWriter(path: path, settings: settings, displayPath: nil, validating: false)
            let samples = Self.noise(frames: rate, channels: channels)
            try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: rate) }
            try writer.finish()
            let tag = LAMETag.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            #expect((tag != nil) == hasTag, "\(rate) Hz \(channels) ch \(kbps) kbit/s")
        }
    }

    @Test func opusQualityMapsOntoItsBitrateRange() {
        #expect(abs(SoundFileWriter.opusBitratePerChannel(quality: 0) - 6) < 1e-9)
        #expect(abs(SoundFileWriter.opusBitratePerChannel(quality: 0.5) - 48) < 1e-9)
        #expect(abs(SoundFileWriter.opusBitratePerChannel(quality: 1) - 256) < 1e-9)
        // It rises all the way: more quality is never a smaller file.
        let steps = stride(from: 0.0, through: 1.0, by: 0.05).map(SoundFileWriter.opusBitratePerChannel(quality:))
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func bitratesAFormatCannotTakeAreRefused() {
        func problem(_ format: OutputFileFormat, rate: Int = 48_000, channels: Int = 2, kbps: Int) -> String? {
            var settings = OutputSettings(format: format, sampleRate: rate, channelCount: channels)
            settings.bitrateKbps = kbps
            return SoundFileWriter.validate(settings: settings)
        }
        #expect(problem(.mp3, kbps: 100) == "an MP3 at 48000 Hz has no bitrate of 100 kbit/s (it takes 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)")
        #expect(problem(.mp3, rate: 22_050, kbps: 320)?.contains("(it takes 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160)") == true)
        #expect(problem(.mp3, rate: 11_025, kbps: 80)?.contains("(it takes 8, 16, 24, 32, 40, 48, 56, 64)") == true)
        #expect(problem(.opus, channels: 1, kbps: 5) == "Ogg Opus takes 6 to 256 kbit/s for 1 channel (6 to 256 each), not 5")
        #expect(problem(.opus, kbps: 513) == "Ogg Opus takes 12 to 512 kbit/s for 2 channels (6 to 256 each), not 513")
        #expect(problem(.oggVorbis, kbps: 128)?.hasPrefix("Ogg Vorbis takes a quality, not a bitrate") == true)
        // Too small a frame for LAME's Info tag: refused, since the file would not be gapless.
        #expect(problem(.mp3, rate: 8000, channels: 1, kbps: 16) == "an MP3 at 8000 Hz and 16 kbit/s has no room for LAME's header, which tells players to trim the encoder's delay and padding (it would not be gapless); use 24 kbit/s or more")
        #expect(problem(.mp3, kbps: 56)?.hasSuffix("use 64 kbit/s or more") == true)
        #expect(problem(.mp3, rate: 32_000, channels: 1, kbps: 40) == nil)
        // The lossless formats have no bitrate to set, as they have no quality: it is not theirs to refuse.
        #expect(problem(.flac, kbps: 128) == nil)
        #expect(problem(.mp3, kbps: 192) == nil)
        #expect(problem(.opus, channels: 1, kbps: 6) == nil)
    }
}
