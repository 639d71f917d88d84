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

    /// Noise of changing level, mono and stereo, at 44.1, 48 and 96 kHz (the filter is designed for each rate):
    /// within 0.06 LU of libebur128. Below 44.1 kHz `LoudnessMeter` measures at 48 kHz after resampling, where the
    /// filter designed for the rate is off by up to 0.3 LU on white noise (`LoudnessResampler`); `LoudnessTap`
    /// resamples the same way, which `EBUComplianceTests` checks.
    @Test(arguments: [(1, 44_100), (2, 44_100), (2, 48_000), (1, 96_000)])
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

    /// Files of 3 to 10 channels are weighed by `ChannelLayout`'s rule in both meters: the same noise in every channel
    /// reads the loudness of one channel plus 10 log10 of the weights' sum (7.1: L R C at 1, the LFE at 0, the back
    /// pair at 1, the surrounds at 1.41, so 7.82), within 0.06 LU; and the downmix folds the same layout.
    @Test(arguments: [3, 4, 5, 6, 7, 8, 10])
    func everyLayoutIsWeighedByOneRule(_ channels: Int) throws {
        var state: UInt64 = 9
        let rate = 48_000, frames = 10 * rate
        var mono = [Float](repeating: 0, count: frames)
        for i in 0..<frames {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            mono[i] = 0.2 * Float(Double(state >> 11) / Double(1 << 53) - 0.5)
        }
        let samples = (0..<frames * channels).map { mono[$0 / channels] }
        let (ours, library) = try Self.meters(samples, channels: channels, rate: rate)
        let one = try Self.measure(mono, channels: 1, rate: rate).library
        let weights = ChannelLayout.loudnessWeights(channelCount: channels)
        let expected = one + 10 * log10(weights.reduce(0, +))
        #expect(abs(library.integrated - expected) <= 0.06, "\(channels) channels: \(library.integrated) vs \(expected)")
        #expect(abs(ours.integrated - expected) <= 0.06, "\(channels) channels: \(ours.integrated) vs \(expected)")
        if channels == 8 { #expect(weights == [1, 1, 1, 0, 1, 1, 1.41, 1.41]) }
        // The downmix drops the LFE and sends every other channel somewhere.
        let fold = ChannelMap(inputCount: channels, outputCount: 2).coefficients
        for (k, weight) in weights.enumerated() {
            #expect((fold[0][k] + fold[1][k] == 0) == (weight == 0), "\(channels) channels: channel \(k + 1)")
        }
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
