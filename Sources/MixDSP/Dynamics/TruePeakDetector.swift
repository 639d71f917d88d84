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
/// Where only values above a floor matter (a limiter's ceiling, or the largest value so far of a meter: `process`'s
/// `above`, `largestValue`), eight frames are computed only when a bound on their values is above it: no value
/// exceeds Σ_j b_j · |x_j| over its taps, where b_j is the largest |coefficient| any phase has at tap j (the
/// sample's own 1 included); with each |x_j| taken as the largest of the eight frames' (a sliding maximum), one
/// sum bounds all eight, and 1e-4 of it to spare covers Float rounding. Frames computed give the same values as
/// ever, so what comes out is the same as computing every value. Over a mix whose level holds steady, about a
/// quarter of the frames of a 48 kHz night mix needed computing against the largest value so far.
///
/// Layout: the three interpolating phases' coefficients (3 × 24 floats; phase 0 is the sample), the taps' bounds
/// (24 floats), per channel a line of 23 + `chunkFrames` floats: the 23 samples before the chunk being computed,
/// then it (the taps read it contiguously, eight frames at a time), and one such line of sliding maxima.
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

    /// Frames `process` computes at a time (longer calls are cut into pieces of this size).
    public static let chunkFrames = 256

    // Coefficients by phase: phase p (1 ... 3) at [(p - 1) * K, p * K), oldest sample first.
    private let phases: UnsafeMutablePointer<Float>
    // Per tap, the largest |coefficient| of any phase, the sample's own 1 included (K floats).
    private let tapBounds: UnsafeMutablePointer<Float>
    // For the channel being computed: at t, the largest |sample| of line[t ..< t + 8] (NaN taken as infinity).
    private let envelope: UnsafeMutablePointer<Float>
    // Per channel, a line of K - 1 + chunkFrames samples: the K - 1 before the chunk, then the chunk.
    private let lines: UnsafeMutablePointer<Float>
    private var lineStride: Int { TruePeakDetector.tapsPerPhase - 1 + TruePeakDetector.chunkFrames }

    public init(channelCount: Int) {
        precondition(channelCount > 0, "a detector needs at least one channel")
        self.channelCount = channelCount
        let k = TruePeakDetector.tapsPerPhase
        let design = TruePeakDetector.design(tapsPerPhase: k, beta: TruePeakDetector.kaiserBeta)
        phases = .allocate(capacity: 3 * k)
        for p in 1..<4 { for j in 0..<k { phases[(p - 1) * k + j] = design[j][p] } }
        tapBounds = .allocate(capacity: k)
        for j in 0..<k { tapBounds[j] = max(j == k / 2 - 1 ? 1 : 0, abs(design[j][1]), abs(design[j][2]), abs(design[j][3])) }
        var bound: Float = 0
        for p in 0..<4 { bound = max(bound, design.reduce(0) { $0 + abs($1[p]) }) }
        gainBound = bound
        let stride = k - 1 + TruePeakDetector.chunkFrames
        lines = .allocate(capacity: stride * channelCount)
        lines.initialize(repeating: 0, count: stride * channelCount)
        envelope = .allocate(capacity: stride)
        envelope.initialize(repeating: 0, count: stride)
    }

    deinit { phases.deallocate(); tapBounds.deallocate(); lines.deallocate(); envelope.deallocate() }

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
    /// (value i is that of the interval `latency` frames before frame i, as above), or 0 where that value is not
    /// above `floor` (the default, 0, gives every value; a limiter passes its ceiling). NaN samples are ignored.
    public func process(_ block: AudioBlock, offset: Int = 0, count: Int, peaks: UnsafeMutablePointer<Float>, above floor: Float = 0) {
        var done = 0
        while done < count {
            let m = min(TruePeakDetector.chunkFrames, count - done)
            _ = processChunk(block, offset: offset + done, count: m, floor: floor, peaks: peaks + done)
            done += m
        }
    }

    /// The largest of `floor` and the peak values of `count` frames of `block` from `offset` (what the largest of
    /// `process`'s `peaks` would be), taking the frames into the history as `process` does: a meter's true peak so
    /// far, passed as `floor`, makes most frames quick.
    public func largestValue(_ block: AudioBlock, offset: Int = 0, count: Int, above floor: Float) -> Float {
        var largest = floor
        var done = 0
        while done < count {
            let m = min(TruePeakDetector.chunkFrames, count - done)
            largest = processChunk(block, offset: offset + done, count: m, floor: largest, peaks: nil)
            done += m
        }
        return largest
    }

    /// Up to `chunkFrames` frames. Each channel's chunk is copied behind its history, then eight frames at
    /// a time each phase's value is summed tap by tap, oldest first (value = value + c · x, in Float: the
    /// same operations, in the same order, for every frame, so the values do not depend on where a chunk
    /// starts), and the largest |value| kept; a remainder of fewer than eight frames is summed one by one.
    /// Eight frames whose bound is not above the floor are left out (see the type's description). With `peaks`,
    /// writes each frame's value there (0 where it is not above `floor`) and returns the floor; without, the floor
    /// rises to each larger value found, and the largest of the floor and the values is returned.
    private func processChunk(_ block: AudioBlock, offset: Int, count m: Int, floor: Float, peaks: UnsafeMutablePointer<Float>?) -> Float {
        typealias V = SIMD8<Float>
        let k = TruePeakDetector.tapsPerPhase, history = k - 1
        let c1 = phases, c2 = phases + k, c3 = phases + 2 * k
        let b1 = UnsafeRawPointer(tapBounds).loadUnaligned(as: V.self)
        let b2 = UnsafeRawPointer(tapBounds + 8).loadUnaligned(as: V.self)
        let b3 = UnsafeRawPointer(tapBounds + 16).loadUnaligned(as: V.self)
        var largest = floor
        if let peaks { for i in 0..<m { peaks[i] = 0 } }
        for c in 0..<channelCount {
            let line = lines + c * lineStride
            (line + history).update(from: block.channel(c).baseAddress! + offset, count: m)
            computeEnvelope(line, count: history + m)
            var i = 0
            while i + V.scalarCount <= m {
                // One bound for the eight frames: Σ_j b_j · (largest |x| tap j reads for any of them).
                let e = envelope + i
                let terms = b1 * UnsafeRawPointer(e).loadUnaligned(as: V.self)
                    + b2 * UnsafeRawPointer(e + 8).loadUnaligned(as: V.self)
                    + b3 * UnsafeRawPointer(e + 16).loadUnaligned(as: V.self)
                if terms.sum() * 1.0001 <= largest { i += V.scalarCount; continue }
                var a1 = V(), a2 = V(), a3 = V()
                for j in 0..<k {
                    let x = UnsafeRawPointer(line + i + j).loadUnaligned(as: V.self)
                    a1 += c1[j] * x; a2 += c2[j] * x; a3 += c3[j] * x
                }
                let x0 = UnsafeRawPointer(line + i + k / 2 - 1).loadUnaligned(as: V.self)
                // |value| of each phase; a NaN compares false, and is ignored.
                var peak = peaks.map { UnsafeRawPointer($0 + i).loadUnaligned(as: V.self) } ?? V()
                var a = x0.replacing(with: -x0, where: x0 .< 0); peak.replace(with: a, where: peak .< a)
                a = a1.replacing(with: -a1, where: a1 .< 0); peak.replace(with: a, where: peak .< a)
                a = a2.replacing(with: -a2, where: a2 .< 0); peak.replace(with: a, where: peak .< a)
                a = a3.replacing(with: -a3, where: a3 .< 0); peak.replace(with: a, where: peak .< a)
                if let peaks {
                    UnsafeMutableRawPointer(peaks + i).storeBytes(of: peak, as: V.self)
                } else {
                    // (SIMD8's `max()` was a call per vector, not inlined.)
                    for l in 0..<V.scalarCount where peak[l] > largest { largest = peak[l] }
                }
                i += V.scalarCount
            }
            while i < m {
                var a1: Float = 0, a2: Float = 0, a3: Float = 0
                for j in 0..<k {
                    let x = line[i + j]
                    a1 += c1[j] * x; a2 += c2[j] * x; a3 += c3[j] * x
                }
                let x0 = line[i + k / 2 - 1]
                var peak = peaks?[i] ?? 0
                if abs(x0) > peak { peak = abs(x0) }
                if abs(a1) > peak { peak = abs(a1) }
                if abs(a2) > peak { peak = abs(a2) }
                if abs(a3) > peak { peak = abs(a3) }
                if let peaks { peaks[i] = peak } else { largest = max(largest, peak) }
                i += 1
            }
            // The last K - 1 samples become the history (moving down: a forward copy is safe).
            for j in 0..<history { line[j] = line[j + m] }
        }
        // Computed values not above the floor become 0, as those of the frames left out are.
        if let peaks, floor > 0 {
            for i in 0..<m where peaks[i] <= floor { peaks[i] = 0 }
        }
        return largest
    }

    /// `envelope[t]` = the largest |sample| of `line[t ..< t + 8]`, for t up to `count` − 8 (a NaN counts as
    /// infinity, so that frames near one are always computed): |x|, then the larger of each and the one 1, 2 and
    /// 4 further on.
    private func computeEnvelope(_ line: UnsafeMutablePointer<Float>, count n: Int) {
        for t in 0..<n {
            let a = abs(line[t])
            envelope[t] = a == a ? a : .infinity
        }
        var width = 1
        while width < 8 {
            for t in 0..<(n - width) {
                let next = envelope[t + width]
                envelope[t] = next > envelope[t] ? next : envelope[t]
            }
            width *= 2
        }
    }

    /// Takes `count` frames into the history without computing their values: what `process` would leave,
    /// bit for bit (only the last `tapsPerPhase` − 1 frames matter).
    public func advance(_ block: AudioBlock, offset: Int = 0, count: Int) {
        let history = TruePeakDetector.tapsPerPhase - 1
        let kept = min(count, history)
        for c in 0..<channelCount {
            let line = lines + c * lineStride
            for j in 0..<(history - kept) { line[j] = line[j + kept] }
            (line + history - kept).update(from: block.channel(c).baseAddress! + offset + count - kept, count: kept)
        }
    }

    /// The largest |sample| in the history (the last `tapsPerPhase` − 1 frames of every channel). NaN is ignored.
    public var historyPeak: Float {
        var peak: Float = 0
        for c in 0..<channelCount { peak = max(peak, Kernels.peak(lines + c * lineStride, count: TruePeakDetector.tapsPerPhase - 1)) }
        return peak
    }

    /// Back to the state of a new detector: a history of silence.
    public func reset() {
        lines.update(repeating: 0, count: lineStride * channelCount)
    }
}
