/// What a sound measures like, to set a generator beside a recording of the real thing (`bench --only realism`,
/// the generators' tests): its spectrum's shape, its brightness, how peaky and how steady it is, how often
/// something happens in it, how wide it is, and its DC.
///
/// - `spectrum`: the mono mix's mean power per FFT bin (Welch: 4096-point periodic Hann frames, hop 2048, one-sided,
///   window-compensated as `SpectralFrameAnalyzer`'s bands: a sine of amplitude A sums to A²/2 over its lobe),
///   `binHz` apart. `magnitude`: the mean |X_k| per bin, for the centroid.
/// - `crestFactor`: the largest |sample| of any channel over the RMS of all channels (linear; 1.41 for a sine).
/// - `levels100ms`, `levels1s`: the mono mix's RMS in dBFS over consecutive 100 ms and 1 s windows (floored at
///   -150); their spreads are their standard deviations.
/// - `onsets`: the frames where something starts: over 10 ms frames of the mono mix, a frame whose level is at least
///   6 dB over the median of the second before it and 3 dB over the frame before, at least 50 ms after the last
///   onset, and above -80 dBFS (so no floor's flicker counts).
/// - `swells`: the slow events (a wave breaking): a 100 ms level at least 4 dB over the lowest of the second before
///   it, at least 1 s after the last swell.
/// - `correlation`: Pearson's correlation of channels 0 and 1 (1 for mono).
/// - `dc`: each channel's mean.
///
/// Comparisons (`SoundComparison`) read the spectrum in octave bands over the range both sounds hold.
/// Plain values; `Sendable`.
public struct SoundStatistics: Sendable {
    public var sampleRate: Int
    public var channelCount: Int
    public var frameCount: Int64
    public var binHz: Double
    public var spectrum: [Double]
    public var magnitude: [Double]
    public var crestFactor: Double
    public var levels100ms: [Double]
    public var levels1s: [Double]
    public var onsets: [Int64]
    public var swells: [Int64]
    public var correlation: Double
    public var dc: [Double]

    public var seconds: Double { Double(frameCount) / Double(sampleRate) }
    public var onsetsPerSecond: Double { Double(onsets.count) / max(seconds, 1e-9) }
    public var swellsPerSecond: Double { Double(swells.count) / max(seconds, 1e-9) }
    public var spread100ms: Double { Self.standardDeviation(levels100ms) }
    public var spread1s: Double { Self.standardDeviation(levels1s) }
    /// The largest |mean| of any channel, in dBFS (-200 for none).
    public var dcDBFS: Double { decibels(fromGain: max(dc.map(abs).max() ?? 0, 1e-10)) }
    /// The highest frequency the sound can hold (its Nyquist frequency).
    public var nyquistHz: Double { Double(sampleRate) / 2 }

    /// The octave bands' centres, 63 Hz to 16 kHz (nominal names; exact centres 1000·2^k).
    public static let octaveCentres: [Double] = (-4...4).map { 1000 * _pow(2, Double($0)) }
    public static let octaveNames = ["63", "125", "250", "500", "1k", "2k", "4k", "8k", "16k"]

    /// Mean power in each octave band (centre/√2 to centre·√2) whose centre is at most `upperHz`, cut at `upperHz`,
    /// in dB relative to their sum (the shape, level-matched); bands above are nil.
    public func octaveShape(upTo upperHz: Double) -> [Double?] {
        let powers = Self.octaveCentres.map { c -> Double? in
            c <= upperHz ? power(from: c / 2.0.squareRoot(), to: min(c * 2.0.squareRoot(), upperHz)) : nil
        }
        let total = powers.compactMap { $0 }.reduce(0, +)
        return powers.map { $0.map { 10 * _log10(max($0 / max(total, 1e-300), 1e-30)) } }
    }

    /// Mean power between two frequencies (bins whose centre lies in [low, high)).
    public func power(from low: Double, to high: Double) -> Double {
        var sum = 0.0
        for k in spectrum.indices {
            let f = Double(k) * binHz
            if f >= low && f < high { sum += spectrum[k] }
        }
        return sum
    }

    /// The spectral centroid in Hz over [20 Hz, `upperHz`): Σ f |X| / Σ |X| of the mean magnitudes.
    public func centroid(upTo upperHz: Double) -> Double {
        var num = 0.0, den = 0.0
        for k in magnitude.indices {
            let f = Double(k) * binHz
            guard f >= 20 && f < upperHz else { continue }
            num += f * magnitude[k]; den += magnitude[k]
        }
        return den > 0 ? num / den : 0
    }

    static func standardDeviation(_ x: [Double]) -> Double {
        guard x.count > 1 else { return 0 }
        let mean = x.reduce(0, +) / Double(x.count)
        return (x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(x.count - 1)).squareRoot()
    }
}

/// Measures a sound as it streams past (`add` each block in order), then `finish()` gives its `SoundStatistics`.
/// Memory: the FFT frame, the spectrum sums and one level per 10 ms (14 KB an hour); nothing per sample.
/// Not thread-safe; its `RealFFT` (of 4096 points) must not be used elsewhere meanwhile.
public final class SoundStatisticsMeter {
    public let sampleRate: Int
    public let channelCount: Int
    private static let size = 4096, hopSize = 2048
    private let fft: RealFFT
    private let window: [Float]
    private let powerScale: Double
    private var frame: [Float]          // the last `size` mono samples, in order once `frameFill` reaches `size`
    private var frameFill = 0
    private var input: [Float], real: [Float], imaginary: [Float]
    private var spectrumFrames = 0
    private var spectrum: [Double]
    private var magnitude: [Double]
    private var frames: Int64 = 0
    private var peak: Float = 0
    private var sumSquares = 0.0
    private var sums: [Double]
    private var cross = 0.0, square0 = 0.0, square1 = 0.0
    // Mean squares of the mono mix over consecutive 10 ms, and the one being summed.
    private let tenMs: Int
    private var tenMsSum = 0.0, tenMsFill = 0
    private var tenMsLevels: [Double] = []

    public init(sampleRate: Int, channelCount: Int, fft: RealFFT) {
        precondition(fft.size == SoundStatisticsMeter.size && sampleRate > 0 && channelCount > 0)
        let n = SoundStatisticsMeter.size
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.fft = fft
        var w = [Float](repeating: 0, count: n)
        w.withUnsafeMutableBufferPointer { AnalysisKernels.hannWindow(into: $0.baseAddress!, count: n) }
        window = w
        powerScale = 1 / (Double(n) * w.reduce(0.0) { $0 + Double($1) * Double($1) })
        frame = Array(repeating: 0, count: n)
        input = Array(repeating: 0, count: n)
        real = Array(repeating: 0, count: n / 2 + 1)
        imaginary = Array(repeating: 0, count: n / 2 + 1)
        spectrum = Array(repeating: 0, count: n / 2 + 1)
        magnitude = Array(repeating: 0, count: n / 2 + 1)
        sums = Array(repeating: 0, count: channelCount)
        tenMs = max(1, sampleRate / 100)
    }

    /// Adds `count` frames of `block` from `offset`.
    public func add(_ block: AudioBlock, offset: Int = 0, count: Int) {
        let scale = 1 / Float(channelCount)
        for j in 0..<count {
            var mono: Float = 0
            for c in 0..<channelCount {
                let x = block.channel(c)[offset + j]
                mono += x
                peak = max(peak, abs(x))
                let d = Double(x)
                sumSquares += d * d
                sums[c] += d
            }
            if channelCount >= 2 {
                let a = Double(block.channel(0)[offset + j]), b = Double(block.channel(1)[offset + j])
                cross += a * b; square0 += a * a; square1 += b * b
            }
            mono *= scale
            let m = Double(mono)
            tenMsSum += m * m
            tenMsFill += 1
            if tenMsFill == tenMs { tenMsLevels.append(tenMsSum / Double(tenMs)); tenMsSum = 0; tenMsFill = 0 }
            frame[frameFill] = mono
            frameFill += 1
            if frameFill == SoundStatisticsMeter.size {
                analyzeFrame()
                let h = SoundStatisticsMeter.hopSize
                for i in 0..<h { frame[i] = frame[h + i] }
                frameFill = h
            }
        }
        frames += Int64(count)
    }

    private func analyzeFrame() {
        let n = SoundStatisticsMeter.size, half = n / 2
        for i in 0..<n { input[i] = frame[i] * window[i] }
        input.withUnsafeBufferPointer { x in
            real.withUnsafeMutableBufferPointer { re in
                imaginary.withUnsafeMutableBufferPointer { im in fft.forward(x.baseAddress!, real: re.baseAddress!, imaginary: im.baseAddress!) }
            }
        }
        for k in 0...half {
            let p = Double(real[k]) * Double(real[k]) + Double(imaginary[k]) * Double(imaginary[k])
            spectrum[k] += (k == 0 || k == half ? 1 : 2) * p * powerScale
            magnitude[k] += p.squareRoot()
        }
        spectrumFrames += 1
    }

    public func finish() -> SoundStatistics {
        let n = max(Double(frames), 1)
        let frameCount = Double(max(spectrumFrames, 1))
        let dB10 = tenMsLevels.map { max(10 * _log10(max($0, 1e-30)), -150) }
        func windows(_ size: Int) -> [Double] {
            stride(from: 0, to: tenMsLevels.count - size + 1, by: size).map { start in
                let ms = tenMsLevels[start..<(start + size)].reduce(0, +) / Double(size)
                return max(10 * _log10(max(ms, 1e-30)), -150)
            }
        }
        var onsets: [Int64] = []
        var last = Int.min / 2
        for i in 1..<max(dB10.count, 1) where i - last >= 5 && dB10[i] > -80 && dB10[i] - dB10[i - 1] >= 3 {
            let before = dB10[max(0, i - 100)..<i].sorted()
            if dB10[i] >= before[before.count / 2] + 6 { onsets.append(Int64(i * tenMs)); last = i }
        }
        let slow = windows(10)
        var swells: [Int64] = []
        var lastSwell = Int.min / 2
        for i in 1..<max(slow.count, 1) where i - lastSwell >= 10 && slow[i] > -80 {
            if slow[i] >= slow[max(0, i - 10)..<i].min()! + 4 { swells.append(Int64(i * 10 * tenMs)); lastSwell = i }
        }
        let means = sums.map { $0 / n }
        var correlation = 1.0
        if channelCount >= 2 {
            let c = cross / n - means[0] * means[1]
            let v0 = square0 / n - means[0] * means[0], v1 = square1 / n - means[1] * means[1]
            correlation = v0 > 0 && v1 > 0 ? c / (v0 * v1).squareRoot() : 0
        }
        return SoundStatistics(
            sampleRate: sampleRate, channelCount: channelCount, frameCount: frames,
            binHz: Double(sampleRate) / Double(SoundStatisticsMeter.size),
            spectrum: spectrum.map { $0 / frameCount }, magnitude: magnitude.map { $0 / frameCount },
            crestFactor: sumSquares > 0 ? Double(peak) / (sumSquares / (n * Double(channelCount))).squareRoot() : 0,
            levels100ms: windows(10), levels1s: windows(100), onsets: onsets, swells: swells,
            correlation: correlation, dc: means)
    }
}

/// One sound set beside another (a generator beside its recording): each measure of both, and whether the first is
/// within the targets of the second (`bench --only realism`, the generators' tests; issue 25's targets):
/// octave bands 63 Hz-16 kHz within ±4 dB of the reference's shape after level matching, over the bands both hold;
/// centroid within 20 %; crest factor and level spreads within 35 %; onset rate within 30 % (when the reference has
/// events); correlation below 0.5 (for a wide sound); DC below -80 dBFS.
public struct SoundComparison: Sendable {
    public struct Row: Sendable {
        public var name: String
        public var measured: Double?
        public var reference: Double?
        /// The difference as printed: dB for bands, a ratio's percent for the rest.
        public var difference: String
        public var withinTarget: Bool?
    }
    public var rows: [Row]
    public var withinTargets: Bool { rows.allSatisfy { $0.withinTarget != false } }
    /// The rows outside their targets.
    public var misses: [Row] { rows.filter { $0.withinTarget == false } }

    /// `wide`: whether `a` should be wide (correlation below 0.5); nil: when the reference is (stereo, below 0.5).
    public init(_ a: SoundStatistics, against b: SoundStatistics, wide: Bool? = nil) {
        let upper = min(a.nyquistHz, b.nyquistHz, 22_627)
        var rows: [Row] = []
        let sa = a.octaveShape(upTo: upper), sb = b.octaveShape(upTo: upper)
        for (k, name) in SoundStatistics.octaveNames.enumerated() {
            guard let x = sa[k], let y = sb[k] else { continue }
            rows.append(Row(name: "band \(name) Hz (dB)", measured: x, reference: y,
                            difference: SoundComparison.format(x - y, "dB"), withinTarget: abs(x - y) <= 4))
        }
        func ratio(_ name: String, _ x: Double, _ y: Double, _ tolerance: Double, applies: Bool = true) {
            let r = y != 0 ? x / y - 1 : (x == 0 ? 0 : .infinity)
            rows.append(Row(name: name, measured: x, reference: y, difference: SoundComparison.format(100 * r, "%"),
                            withinTarget: applies ? abs(r) <= tolerance : nil))
        }
        ratio("centroid (Hz)", a.centroid(upTo: upper), b.centroid(upTo: upper), 0.20)
        ratio("crest factor", a.crestFactor, b.crestFactor, 0.35)
        ratio("100 ms level spread (dB)", a.spread100ms, b.spread100ms, 0.35)
        ratio("1 s level spread (dB)", a.spread1s, b.spread1s, 0.35)
        ratio("onsets per second", a.onsetsPerSecond, b.onsetsPerSecond, 0.30, applies: b.onsetsPerSecond >= 0.2)
        ratio("swells per second", a.swellsPerSecond, b.swellsPerSecond, 0.30, applies: b.swellsPerSecond >= 0.1)
        let wide = wide ?? (b.channelCount >= 2 && b.correlation < 0.5)
        rows.append(Row(name: "channel correlation", measured: a.correlation, reference: b.correlation,
                        difference: SoundComparison.format(a.correlation - b.correlation, ""),
                        withinTarget: wide ? a.correlation < 0.5 : nil))
        rows.append(Row(name: "DC (dBFS)", measured: a.dcDBFS, reference: b.dcDBFS,
                        difference: SoundComparison.format(a.dcDBFS - b.dcDBFS, "dB"), withinTarget: a.dcDBFS < -80))
        self.rows = rows
    }

    static func format(_ x: Double, _ unit: String) -> String {
        guard x.isFinite else { return "n/a" }
        let r = (x * 100).rounded() / 100
        return (r >= 0 ? "+" : "") + "\(r)" + (unit.isEmpty ? "" : " " + unit)
    }
}
