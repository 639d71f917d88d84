/// Wind from a seed: noise through a slowly moving resonant band-pass, with gusts (level and brightness
/// rising and falling over seconds), a low rumble under it, and a whistle (a narrow resonance gliding with
/// the gusts) at high intensity.
///
/// Model, per channel (each channel its own counter-based white noise, so the channels are decorrelated):
///   gust g(t) ∈ [0, 1]: two smooth random curves (knots every P and P/2.7 seconds, P = 6 − 2.5·intensity),
///       mixed 0.65/0.35 and sharpened by a smoothstep;
///   band-pass (SVF, unity gain at its centre): centre f0·2^(1.6·gustiness·g + 0.6·(w(t) − ½)) with
///       f0 = 180·2^(1.4·intensity) Hz and w a slower wander (knots every 13 s), Q = 1.5 + 2.5·intensity;
///   rumble: a low-pass at 90 Hz of the same noise; whistle: a band-pass with Q 45 at 650 + 300·intensity Hz,
///       raised up to an octave by the gust, its level 6·`whistle`·g³ times the band's;
///   level: 20·gustiness dB below the gust's peak when g = 0, and 12·(1 − intensity) dB lower at lower
///       intensity (about 15 dB from 1 to 0 in all, with the narrower band). At intensity 1 (gustiness ½)
///       the long-run level is about -18 dBFS RMS (see the tests).
/// Parameters move at a control rate of one value every 32 frames, from the absolute frame position; the
/// gains are interpolated linearly between control points. The filters run through `WarmStart` (epochs of
/// 16 s, a warm-up of 1 s), so the output at any frame is the same whatever the block sizes and wherever
/// rendering started; a seek costs at most 17 s of generation (about 10 ms).
///
/// Layout: the settings, the filter state (6 doubles per channel, twice) and a 1024-frame scratch block,
/// allocated in `init`; `render` allocates nothing. Not thread-safe (the filter state changes as it renders).
public final class WindGenerator: FrameSource {
    public let intensity: Double
    public let gustiness: Double
    public let whistle: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    static let controlFrames: Int64 = 32
    static let stateSize = 6
    /// Brings the long-run RMS at intensity 1, gustiness ½ to about -18 dBFS; measured, see the tests.
    static let outputScale = 1.62   // measured over seeds 1 to 8, 10 minutes each: within 0.6 dB of -18 dBFS

    private var warm: WarmStart
    private let noiseSeed: UInt64
    private let rumble: SVF

    /// The default whistle for an intensity: none up to 0.6, rising to 1 at intensity 1.
    public static func defaultWhistle(intensity: Double) -> Double { max(0, min(1, (intensity - 0.6) / 0.4)) }

    public init(intensity: Double, gustiness: Double = 0.5, whistle: Double? = nil, seed: UInt64,
                sampleRate: Int, channelCount: Int) {
        self.intensity = min(max(intensity, 0), 1)
        self.gustiness = min(max(gustiness, 0), 1)
        self.whistle = min(max(whistle ?? WindGenerator.defaultWhistle(intensity: intensity), 0), 1)
        self.seed = seed
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        noiseSeed = SeededRandom.bits(seed: seed, stream: 1, index: 0x57_494E_44)          // "WIND"
        rumble = SVF(cutoffHz: 90, q: 0.7, sampleRate: Double(sampleRate))
        warm = WarmStart(stateSize: channelCount * WindGenerator.stateSize, epochFrames: Int64(sampleRate) * 16,
                         warmUpFrames: Int64(sampleRate), channelCount: channelCount)
    }

    /// The parameters at control point `k` (frame 32k).
    struct Control {
        var band: SVF, whistle: SVF
        var bandGain: Double, rumbleGain: Double, whistleGain: Double
    }

    /// The gust curve g(t) ∈ [0, 1] at `t` seconds.
    func gust(seconds t: Double) -> Double {
        let period = 6 - 2.5 * intensity
        let g = 0.65 * valueNoise(seed: seed ^ 0x6775_7374, seconds: t, period: period)
            + 0.35 * valueNoise(seed: seed ^ 0x6775_7375, seconds: t, period: period / 2.7)
        return g * g * (3 - 2 * g)
    }

    func control(_ k: Int64) -> Control {
        let rate = Double(sampleRate)
        let t = Double(max(k, 0) * WindGenerator.controlFrames) / rate
        let g = gust(seconds: t)
        let wander = valueNoise(seed: seed ^ 0x7761_6E64, seconds: t, period: 13)
        let base = 180 * _pow(2, 1.4 * intensity)
        let centre = base * _pow(2, 1.6 * gustiness * g + 0.6 * (wander - 0.5))
        let band = SVF(cutoffHz: centre, q: 1.5 + 2.5 * intensity, sampleRate: rate)
        let whistleHz = (650 + 300 * intensity) * _pow(2, g + 0.3 * (valueNoise(seed: seed ^ 0x7768_6973, seconds: t, period: 5) - 0.5))
        let whistleFilter = SVF(cutoffHz: whistleHz, q: 45, sampleRate: rate)
        // Level in dB: −20·gustiness·(1 − g) − 12·(1 − intensity), then the calibration.
        let level = gain(fromDecibels: -20 * gustiness * (1 - g) - 12 * (1 - intensity)) * WindGenerator.outputScale
        return Control(band: band, whistle: whistleFilter, bandGain: level, rumbleGain: 2.2 * level,
                       whistleGain: 6 * whistle * g * g * g * level)
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        warm.render(into: block, offset: offset, count: count, at: position) { s, from, n, out, at in
            self.run(s, from: from, count: n, into: out, offset: at)
        }
    }

    /// Frames [from, from + count) through the filters with state `s`, written into `block` at `offset`.
    private func run(_ s: UnsafeMutablePointer<Double>, from: Int64, count: Int, into block: AudioBlock, offset: Int) {
        let step = WindGenerator.controlFrames
        var i = 0
        var k = WarmStart.floorDiv(from, step)
        var c = control(k)                   // a pure function of k: computed once per control period
        while i < count {
            let p = from + Int64(i)
            let n = Int(min(Int64(count - i), (k + 1) * step - p))
            let next = control(k + 1)
            let phase0 = Double(p - k * step) / Double(step)
            let slope = 1 / Double(step)
            for ch in 0..<channelCount {
                let out = block.channel(ch).baseAddress! + offset + i
                let st = s + ch * WindGenerator.stateSize
                var (b1, b2, r1, r2, w1, w2) = (st[0], st[1], st[2], st[3], st[4], st[5])
                for j in 0..<n {
                    let x = NoiseGenerator.white(seed: noiseSeed, frame: p + Int64(j), channel: ch)
                    let f = phase0 + Double(j) * slope
                    let band = c.band.tick(x, &b1, &b2).band * c.band.k
                    let low = rumble.tick(x, &r1, &r2).low
                    let whistle = c.whistle.tick(x, &w1, &w2).band * c.whistle.k
                    let y = band * (c.bandGain + (next.bandGain - c.bandGain) * f)
                        + low * (c.rumbleGain + (next.rumbleGain - c.rumbleGain) * f)
                        + whistle * (c.whistleGain + (next.whistleGain - c.whistleGain) * f)
                    out[j] = Float(y)
                }
                (st[0], st[1], st[2], st[3], st[4], st[5]) = (b1, b2, r1, r2, w1, w2)
            }
            i += n
            k += 1
            c = next
        }
    }
}
