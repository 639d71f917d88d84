import Testing
import Foundation
import DSPTestSupport
import MixDSP

/// The 4x interpolator of `TruePeakDetector`: its design (response of each phase against an ideal
/// fractional delay, images), and its values against the long reference interpolator of the test support.
@Suite struct TruePeakDetectorTests {
    static let rate = 48_000.0
    static let k = TruePeakDetector.tapsPerPhase
    static let design = TruePeakDetector.design(tapsPerPhase: k, beta: TruePeakDetector.kaiserBeta)

    /// Phase p's response to e^{iωm} relative to the ideal value e^{iω(n + p/4)}: tap j holds sample
    /// n − K/2 + 1 + j, so the response is Σ_j c_p[j] e^{iω(j − K/2 + 1)}. Returns (real, imaginary) of
    /// the response and the magnitude of its difference from e^{iωp/4}.
    static func response(phase p: Int, frequency f: Double) -> (magnitude: Double, error: Double) {
        let w = 2 * Double.pi * f / rate
        var re = 0.0, im = 0.0
        for j in 0..<k {
            let c = Double(design[j][p]), a = w * Double(j - k / 2 + 1)
            re += c * cos(a); im += c * sin(a)
        }
        let ideal = w * Double(p) / 4
        return ((re * re + im * im).squareRoot(), hypot(re - cos(ideal), im - sin(ideal)))
    }

    /// Every interpolated value of a sine up to 20 kHz (at 48 kHz) is within 0.0012 of the exact value
    /// (the design's worst: 0.0011 near 20 kHz, 0.0096 dB), and each phase's gain within ±0.01 dB.
    /// (Computed from the Float coefficients, in Double, every 10 Hz.)
    @Test func interpolatesWithinATenthOfAPercentUpTo20kHz() {
        var worstError = 0.0, worstGainDb = 0.0
        for p in 1..<4 {
            for f in stride(from: 0.0, through: 20_000, by: 10) {
                let r = TruePeakDetectorTests.response(phase: p, frequency: f)
                worstError = max(worstError, r.error)
                worstGainDb = max(worstGainDb, abs(20 * log10(r.magnitude)))
            }
        }
        #expect(worstError <= 0.0012, "worst error \(worstError)")
        #expect(worstGainDb <= 0.01, "worst gain \(worstGainDb) dB")
    }

    /// As a 4x interpolation filter (all 96 taps at 192 kHz, DC gain 4): the images of a 0–20 kHz band,
    /// from 28 kHz up to 96 kHz, are at least 64 dB down.
    @Test func imagesAreAtLeast64dBDown() {
        func gain(_ f: Double) -> Double {
            var re = 0.0, im = 0.0
            for p in 0..<4 {
                for j in 0..<TruePeakDetectorTests.k {
                    let tau = Double(p) / 4 + Double(TruePeakDetectorTests.k / 2 - 1 - j)
                    let a = 2 * Double.pi * f / TruePeakDetectorTests.rate * tau
                    let c = Double(TruePeakDetectorTests.design[j][p])
                    re += c * cos(a); im -= c * sin(a)
                }
            }
            return (re * re + im * im).squareRoot() / 4
        }
        #expect(abs(gain(0) - 1) < 2e-4)
        let worst = stride(from: 28_000.0, through: 96_000, by: 25).map { 20 * log10(gain($0)) }.max()!
        #expect(worst <= -64, "strongest image \(worst) dB")
    }

    /// Sines from 1 to 19.9 kHz, amplitude 0.5, at odd phases: each value the detector gives is the
    /// largest |value| of the reference's four points of the same interval within 0.0012 × 0.5 + 1e-6.
    @Test(arguments: [997.0, 5_000, 12_000, 17_321, 19_900])
    func agreesWithTheReferenceInterpolatorOnSines(frequency: Double) {
        let n = 1_200, amplitude = 0.5, phase = 0.3 + frequency / 10_000
        let input = TestSignals.block(channels: 1, frames: n) { i, _ in
            Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / TruePeakDetectorTests.rate + phase))
        }
        let detector = TruePeakDetector(channelCount: 1)
        let values = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { values.deallocate() }
        detector.process(input, count: n, peaks: values)
        let reference = ReferenceOversampler(factor: 4)
        let x = UnsafeBufferPointer(start: input.channel(0).baseAddress!, count: n)
        var worst = 0.0
        // Away from both ends, where the reference's longer window sees the silence around the signal.
        for t in 200..<(n - 100) {
            let interval = t - detector.latency
            let expected = (0..<4).map { abs(reference.value(x, at: interval, phase: $0)) }.max()!
            worst = max(worst, abs(Double(values[t]) - expected))
        }
        #expect(worst <= 0.0012 * amplitude + 1e-6, "\(frequency) Hz: worst difference \(worst)")
    }

    /// Phase 0 is the sample itself: a value is never below the |sample| its interval starts at.
    @Test func neverMissesASample() {
        var noise = TestSignals.Noise(seed: 5)
        let n = 5_000
        let input = TestSignals.block(channels: 2, frames: n) { _, _ in noise.sample() }
        let detector = TruePeakDetector(channelCount: 2)
        let values = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { values.deallocate() }
        detector.process(input, count: n, peaks: values)
        let d = detector.latency
        let missed = (d..<n).filter { t in values[t] < max(abs(input.channel(0)[t - d]), abs(input.channel(1)[t - d])) }
        #expect(missed.isEmpty)
    }

    /// The same values for any block sizes, and `advance` leaves the history `process` leaves.
    @Test func blockSizesDoNotMatter() {
        var noise = TestSignals.Noise(seed: 9)
        let n = 12_000
        let input = TestSignals.block(channels: 2, frames: n) { _, _ in noise.sample() }
        func values(_ sizes: [Int], advancing: Range<Int>? = nil) -> [UInt32] {
            let detector = TruePeakDetector(channelCount: 2)
            let out = UnsafeMutablePointer<Float>.allocate(capacity: n)
            defer { out.deallocate() }
            Self.inCalls(of: sizes, frames: n) { p, count in
                if let advancing, advancing.contains(p) {
                    detector.advance(input, offset: p, count: count)
                    for i in 0..<count { out[p + i] = 0 }
                } else {
                    detector.process(input, offset: p, count: count, peaks: out + p)
                }
            }
            return (0..<n).map { out[$0].bitPattern }
        }
        let one = values([1])
        for sizes in [[64], [4096], [4097], [7, 1000, 3]] { #expect(values(sizes) == one, "\(sizes)") }
        // Advancing over frames 4096 ..< 8192 (values not computed there) changes nothing after them.
        let advanced = values([4096], advancing: 4096..<8192)
        #expect(Array(advanced[8192...]) == Array(one[8192...]))
    }

    /// Calls `body(offset, count)` over frames 0 ..< `n`, in calls of `sizes` frames in turn.
    static func inCalls(of sizes: [Int], frames n: Int, _ body: (Int, Int) -> Void) {
        var p = 0, call = 0
        while p < n {
            let count = min(sizes[call % sizes.count], n - p)
            body(p, count)
            p += count; call += 1
        }
    }

    /// Every value, summed here as the detector sums it (in Float, tap by tap, oldest first, from the design's
    /// Float coefficients), the largest |value| of each frame over phases and channels, NaN ignored: what frames
    /// left out for being under a floor would have given.
    static func everyValue(_ input: AudioBlock, frames n: Int) -> [Float] {
        let half = k / 2
        return (0..<n).map { t in
            var peak: Float = 0
            for c in 0..<input.channelCount {
                let x = { (i: Int) -> Float in i < 0 ? 0 : input.channel(c)[i] }   // the silence a detector starts with
                let start = t - (k - 1)
                if abs(x(start + half - 1)) > peak { peak = abs(x(start + half - 1)) }
                for p in 1..<4 {
                    var a: Float = 0
                    for j in 0..<k { a += design[j][p] * x(start + j) }
                    if abs(a) > peak { peak = abs(a) }
                }
            }
            return peak
        }
    }

    /// Left-out frames change nothing: `process` above a floor gives every value above it (0 for the rest) and
    /// `largestValue` the largest, bit for bit, for floors from 0 (every value) to above everything, over noise
    /// whose level rises and falls (so that frames are both left out and computed), silence, and NaN and infinite
    /// samples (a NaN is ignored, and infinity is a value above any floor); in calls of odd sizes.
    @Test func framesUnderTheFloorAreLeftOutExactly() {
        var noise = TestSignals.Noise(seed: 12)
        let n = 9_000
        let input = TestSignals.block(channels: 2, frames: n) { i, c in
            if i >= 3_000 && i < 3_500 { return 0 }
            if i == 5_001 && c == 1 { return .nan }
            if i == 7_003 && c == 0 { return .infinity }
            let level = Float(0.5 + 0.45 * sin(Double(i) / 300))
            return level * noise.sample() * (c == 0 ? 1 : 0.7)
        }
        let truth = Self.everyValue(input, frames: n)
        let sizes = [7, 1000, 3, 256, 4096]
        for floor: Float in [0, 0.2, 0.6, 0.9, .greatestFiniteMagnitude] {
            let detector = TruePeakDetector(channelCount: 2)
            let out = UnsafeMutablePointer<Float>.allocate(capacity: n)
            defer { out.deallocate() }
            Self.inCalls(of: sizes, frames: n) { p, count in
                detector.process(input, offset: p, count: count, peaks: out + p, above: floor)
            }
            let expected = truth.map { $0 > floor ? $0.bitPattern : 0 }
            #expect((0..<n).map { out[$0].bitPattern } == expected, "floor \(floor)")
        }
        for start: Float in [0, 0.5, 3] {
            let detector = TruePeakDetector(channelCount: 2)
            var largest = start
            // Up to the infinite sample, then after it (where the largest so far is infinity and nothing is computed).
            Self.inCalls(of: sizes, frames: 7_000) { p, count in
                largest = detector.largestValue(input, offset: p, count: count, above: largest)
            }
            #expect(largest == max(start, truth[..<7_000].max()!), "from \(start)")
            #expect(detector.largestValue(input, offset: 7_000, count: n - 7_000, above: largest) == .infinity)
        }
    }
}

/// The reference interpolator itself, against sines computed exactly.
@Suite struct ReferenceOversamplerTests {
    @Test(arguments: [1_000.0, 12_000, 19_900])
    func isExactOnSines(frequency: Double) {
        let rate = 48_000.0, n = 600
        let samples = (0..<n).map { Float(0.9 * sin(2 * Double.pi * frequency * Double($0) / rate + 0.7)) }
        let reference = ReferenceOversampler()
        samples.withUnsafeBufferPointer { x in
            var worst = 0.0
            for m in stride(from: 250, to: 350, by: 7) {
                for p in 0..<16 {
                    let exact = 0.9 * sin(2 * Double.pi * frequency * (Double(m) + Double(p) / 16) / rate + 0.7)
                    worst = max(worst, abs(reference.value(x, at: m, phase: p) - exact))
                }
            }
            // The design's error (1e-6) and the Float input's rounding (6e-8 times the sum of |weights|).
            #expect(worst <= 2e-6, "\(frequency) Hz: \(worst)")
        }
    }
}
