import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import Testing

/// MixDSP's `GatedLoudness` (the measuring passes' meter) against EBU Tech 3341's expected values and
/// against libebur128 (`LoudnessMeter`, whose histogram mode reads within about 0.05 LU of the exact value).
@Suite struct GatedLoudnessTests {
    static func measure(_ samples: [Float], channels: Int, rate: Int, pieces: Int = 1000) throws -> (ours: Double, library: Double) {
        let (ours, library) = try meters(samples, channels: channels, rate: rate, pieces: pieces)
        return (ours.integrated, library.integrated)
    }

    static func meters(_ samples: [Float], channels: Int, rate: Int, pieces: Int = 1000) throws -> (ours: GatedLoudness, library: LoudnessMeasurement) {
        let frames = samples.count / channels
        let block = AudioBlock(channelCount: channels, capacity: frames)
        for i in 0..<frames { for c in 0..<channels { block.channel(c)[i] = samples[i * channels + c] } }
        let ours = GatedLoudness(channelCount: channels, sampleRate: rate)
        var done = 0, piece = pieces
        while done < frames {
            let run = min(piece, frames - done)
            ours.add(block, offset: done, count: run)
            done += run
            piece = piece * 7 % 4099 + 1
        }
        let library = try LoudnessMeter(channelCount: channels, sampleRate: rate, truePeak: false)
        try samples.withUnsafeBufferPointer { try library.add(interleaved: $0.baseAddress!, frames: frames) }
        return (ours, library.measurement)
    }

    /// Tech 3341 cases 1, 2 and 4 (a gated sequence), stereo at 48 kHz: within 0.02 LU of the expected value.
    @Test(arguments: [([(-23.0, 20.0)], -23.0), ([(-33.0, 20.0)], -33.0),
                      ([(-72.0, 10.0), (-36.0, 10.0), (-23.0, 60.0), (-36.0, 10.0), (-72.0, 10.0)], -23.0)])
    func techCases(_ segments: [(Double, Double)], _ expected: Double) throws {
        let samples = LoudnessMeterTests.sine(segments.map { (dBFS: $0.0, seconds: $0.1) })
        let (ours, library) = try Self.measure(samples, channels: 2, rate: 48_000)
        #expect(abs(ours - expected) <= 0.02, "\(ours)")
        #expect(abs(ours - library) <= 0.1, "\(ours) vs \(library)")
    }

    /// Noise of changing level, mono and stereo, at 44.1 and 48 kHz (the filter is designed for each rate):
    /// within 0.06 LU of libebur128.
    @Test(arguments: [(1, 44_100), (2, 44_100), (2, 48_000), (1, 22_050)])
    func noiseAgreesWithLibebur128(_ channels: Int, _ rate: Int) throws {
        var state: UInt64 = 5
        let frames = 30 * rate
        let samples = (0..<(frames * channels)).map { i -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let level: Float = (i / channels / rate) % 7 < 3 ? 0.4 : 0.02
            return level * Float(Double(state >> 11) / Double(1 << 53) - 0.5)
        }
        let (ours, library) = try Self.measure(samples, channels: channels, rate: rate)
        #expect(abs(ours - library) <= 0.06, "\(ours) vs \(library)")
    }

    /// Parts measured apart and combined read as the whole, but for the three blocks that straddle the
    /// boundary and the second part's filter starting from rest: 0.03 LU on 40 s cut at 13 s (on the minutes
    /// long parts of a measuring pass, thousandths).
    @Test func partsCombine() throws {
        let samples = LoudnessMeterTests.sine([(-30, 20), (-20, 20)])
        let frames = samples.count / 2
        let block = AudioBlock(channelCount: 2, capacity: frames)
        for i in 0..<frames { for c in 0..<2 { block.channel(c)[i] = samples[i * 2 + c] } }
        let whole = GatedLoudness(channelCount: 2, sampleRate: 48_000)
        whole.add(block, offset: 0, count: frames)
        let a = GatedLoudness(channelCount: 2, sampleRate: 48_000), b = GatedLoudness(channelCount: 2, sampleRate: 48_000)
        a.add(block, offset: 0, count: frames / 3)
        b.add(block, offset: frames / 3, count: frames - frames / 3)
        #expect(abs(GatedLoudness.integrated(combining: [a, b]) - whole.integrated) <= 0.03)
        #expect(GatedLoudness(channelCount: 2, sampleRate: 48_000).integrated == -.infinity)
    }

    /// The render summary's other figures: loudness range within 0.5 LU of libebur128 (Tech 3342 allows ±1),
    /// momentary and short-term maxima within 0.1 LU, on noise that changes level.
    @Test func rangeAndMaximaAgreeWithLibebur128() throws {
        var state: UInt64 = 9
        let rate = 48_000, frames = 60 * rate
        let samples = (0..<(frames * 2)).map { i -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let second = i / 2 / rate
            let level: Float = second % 10 < 4 ? 0.3 : second % 10 < 7 ? 0.08 : 0.02
            return level * Float(Double(state >> 11) / Double(1 << 53) - 0.5)
        }
        let (ours, library) = try Self.meters(samples, channels: 2, rate: rate)
        #expect(abs(ours.range - library.range) <= 0.5, "\(ours.range) vs \(library.range)")
        #expect(ours.range > 5, "\(ours.range)")
        #expect(abs(ours.momentaryMax - library.momentaryMax) <= 0.1, "\(ours.momentaryMax) vs \(library.momentaryMax)")
        #expect(abs(ours.shortTermMax - library.shortTermMax) <= 0.1, "\(ours.shortTermMax) vs \(library.shortTermMax)")
    }
}
