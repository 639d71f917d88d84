import RealModule

/// The true peak of a stream, frame by frame: the largest |x| over each sample and the three values a
/// 4x oversampling interpolator puts between it and the next one (ITU-R BS.1770-4, Annex 2), channels linked.
///
/// The interpolator is a polyphase FIR: a Kaiser-windowed sinc cut off at the input's Nyquist frequency,
/// `tapsPerPhase` = 24 taps per phase (96 at the 4x rate, against the recommendation's example of 48),
/// window β = 6.25 (the β that keeps the values closest to an ideal interpolator's up to 20 kHz at 48 kHz;
/// scaling each phase to a DC gain of exactly 1 made that worse, 0.0014). Phase 0 is the sample itself
/// (the sinc is 0 at every other input sample), so sample peaks are never missed. Figures at 48 kHz: the
/// interpolated values are within 0.0011 (0.0096 dB) of an ideal interpolator's for any sine up to
/// 20 kHz (0.833 of Nyquist), each phase's gain within 0.0096 dB (0.9998 at DC); images are at least
/// 64.8 dB down from 28 kHz (the image of 20 kHz) up. The design scales with the rate: at 44.1 kHz it
/// is as exact up to 18.4 kHz and under-reads a 20 kHz tone's inter-sample values by up to 15 %; above
/// 0.833 of Nyquist it under-reads more (−6 dB at Nyquist), as every 4x meter with a short filter does.
///
/// Each value comes out `latency` = 12 frames after the sample it starts at (the filter needs the 12
/// frames after it): `process` gives, for input frame t, the peak of the interval [t − 12, t − 11)
/// (the first 12 values describe the silence the detector starts with). Every value depends on the
/// input frames within `supportRadius` (12) of its interval. Streaming: the filter history carries over
/// from one call to the next, so any block sizes give the same values.
///
/// Layout: `tapsPerPhase` coefficients as `SIMD4<Float>` (lane p = phase p/4), and per channel a history
/// ring of the last `tapsPerPhase` samples stored twice (2 × 24 floats, so the taps read it contiguously).
/// All memory is allocated in `init`; `process`, `advance` and `reset` allocate nothing. Not
/// thread-safe: one thread at a time.
public final class TruePeakDetector {
    /// Interpolated values per input sample, the sample itself included.
    public static let oversampling = 4
    /// Taps per phase of the polyphase interpolator.
    public static let tapsPerPhase = 24
    /// Kaiser window shape parameter of the design (best flatness to 0.833 of Nyquist for 24 taps per phase).
    public static let kaiserBeta = 6.25

    public let channelCount: Int
    /// Frames between a sample entering and the value of its interval coming out: `tapsPerPhase` / 2.
    public var latency: Int { TruePeakDetector.tapsPerPhase / 2 }
    /// A value depends on the input frames within this many frames of its interval (either side).
    public static var supportRadius: Int { tapsPerPhase / 2 }
    /// The largest value one phase can give for samples within ±1 (the sum of its coefficients' magnitudes):
    /// a stream whose samples stay within ±p has values at most p times this (Float rounding aside).
    public let gainBound: Float

    private let coefficients: UnsafeMutablePointer<SIMD4<Float>>
    private let history: UnsafeMutablePointer<Float>
    private var writeIndex = 0

    public init(channelCount: Int) {
        precondition(channelCount > 0, "a detector needs at least one channel")
        self.channelCount = channelCount
        let k = TruePeakDetector.tapsPerPhase
        let design = TruePeakDetector.design(tapsPerPhase: k, beta: TruePeakDetector.kaiserBeta)
        coefficients = .allocate(capacity: k)
        coefficients.initialize(from: design, count: k)
        var bound: Float = 0
        for p in 0..<4 { bound = max(bound, design.reduce(0) { $0 + abs($1[p]) }) }
        gainBound = bound
        history = .allocate(capacity: 2 * k * channelCount)
        history.initialize(repeating: 0, count: 2 * k * channelCount)
    }

    deinit { coefficients.deallocate(); history.deallocate() }

    /// The interpolator's coefficients: entry j (0 = the oldest sample of the window, `tapsPerPhase` − 1
    /// the newest) holds in lane p the weight of that sample in the value at p/4 of the way from sample
    /// `tapsPerPhase`/2 − 1 to the next:
    ///   c_p[j] = sinc(τ) · I0(β √(1 − (τ / (K/2))²)) / I0(β),   τ = p/4 + K/2 − 1 − j,   K = tapsPerPhase
    /// (phase 0 exactly 1 at τ = 0 and 0 elsewhere). Computed in Double.
    public static func design(tapsPerPhase k: Int, beta: Double) -> [SIMD4<Float>] {
        let half = Double(k) / 2
        var lanes = [[Double]](repeating: [Double](repeating: 0, count: k), count: 4)
        for p in 0..<4 {
            for j in 0..<k {
                let tau = Double(p) / 4 + half - 1 - Double(j)
                let x = tau / half
                let window = besselI0(beta * max(0, 1 - x * x).squareRoot()) / besselI0(beta)
                let sinc = tau == 0 ? 1 : Double.sin(Double.pi * tau) / (Double.pi * tau)
                lanes[p][j] = sinc * window
            }
            if p == 0 {
                // The sinc's zeros, exactly: the sample itself.
                for j in 0..<k { lanes[0][j] = j == k / 2 - 1 ? 1 : 0 }
            }
        }
        return (0..<k).map { j in SIMD4(Float(lanes[0][j]), Float(lanes[1][j]), Float(lanes[2][j]), Float(lanes[3][j])) }
    }

    /// The modified Bessel function of the first kind, order 0: Σ ((x/2)^m / m!)², summed until the terms
    /// no longer change the sum.
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, m = 1.0
        while true {
            term *= (x / 2) / m
            let t = term * term
            if t < sum * 1e-17 { return sum }
            sum += t
            m += 1
        }
    }

    /// Writes the peak value of each of `count` frames of `block` from `offset` to `peaks[0 ..< count]`
    /// (value i is that of the interval `latency` frames before frame i, as above). NaN samples are ignored.
    public func process(_ block: AudioBlock, offset: Int = 0, count: Int, peaks: UnsafeMutablePointer<Float>) {
        for i in 0..<count { peaks[i] = push(block, at: offset + i) }
    }

    /// Takes frame `index` of `block` into the history and returns the peak of the interval that is now
    /// complete (`latency` frames before it): the largest |value| over its four phases and all channels.
    @inline(__always) func push(_ block: AudioBlock, at index: Int) -> Float {
        let k = TruePeakDetector.tapsPerPhase
        let w = writeIndex
        var peak: Float = 0
        for c in 0..<channelCount {
            let h = history + c * 2 * k
            let x = block.channel(c)[index]
            h[w] = x
            h[w + k] = x
            // The window, oldest first: [w + 1, w + k].
            let window = h + w + 1
            var acc = SIMD4<Float>()
            for j in 0..<k { acc += coefficients[j] * window[j] }
            // |value| of each phase; comparisons that are false for NaN leave it out.
            let a = acc.replacing(with: -acc, where: acc .< 0)
            if a[0] > peak { peak = a[0] }
            if a[1] > peak { peak = a[1] }
            if a[2] > peak { peak = a[2] }
            if a[3] > peak { peak = a[3] }
        }
        writeIndex = w + 1 == k ? 0 : w + 1
        return peak
    }

    /// Takes `count` frames into the history without computing their values: what `process` would leave,
    /// bit for bit (only the last `tapsPerPhase` frames matter).
    public func advance(_ block: AudioBlock, offset: Int = 0, count: Int) {
        let k = TruePeakDetector.tapsPerPhase
        let skipped = max(0, count - k)
        var w = (writeIndex + skipped) % k
        for i in skipped..<count {
            for c in 0..<channelCount {
                let x = block.channel(c)[offset + i]
                history[c * 2 * k + w] = x
                history[c * 2 * k + w + k] = x
            }
            w = w + 1 == k ? 0 : w + 1
        }
        writeIndex = w
    }

    /// The largest |sample| in the history (the last `tapsPerPhase` frames of every channel). NaN is ignored.
    public var historyPeak: Float {
        let k = TruePeakDetector.tapsPerPhase
        var peak: Float = 0
        for c in 0..<channelCount { peak = max(peak, Kernels.peak(history + c * 2 * k, count: k)) }
        return peak
    }

    /// Back to the state of a new detector: a history of silence.
    public func reset() {
        history.update(repeating: 0, count: 2 * TruePeakDetector.tapsPerPhase * channelCount)
        writeIndex = 0
    }
}
