/// Wind from a seed, as a microphone outdoors hears it: most of its energy below 500 Hz (the turbulence's low
/// roar), a faint hiss above, gusts that swell it by tens of dB over seconds, and a whistle at high intensity.
///
/// Model, per channel (each channel its own counter-based white noise, so the channels are decorrelated):
///   gust g(t) ∈ [0, 1]: three smooth random curves (knots every P, P/2.7 and P/7 seconds, P = 9 − 4·intensity:
///       7 s at ½), mixed 0.5/0.2/0.3 and sharpened by a smoothstep (the fast one gives the puffs within a gust);
///   body: a low-pass (SVF, Q 0.75) at fc = 180·2^(0.5·(intensity − ½))·2^(0.8·gustiness·g + 0.5·(w(t) − ½)) Hz,
///       w a slower wander (knots every 13 s): 150 to 300 Hz at the night preset;
///   hiss: a band-pass (Q 3, unity at its centre) at 13·fc, 0.026 (−32 dB) of the body's gain: the 2-16 kHz tail;
///   rumble: a low-pass (Q 0.7) at 75 Hz, 2.0 times the body's gain, swinging with the gust 2 dB less;
///   whistle: a band-pass with Q 45 at 650 + 300·intensity Hz, raised up to an octave by the gust, its gain
///       1.0·`whistle`·g³ times the body's;
///   level: 28·gustiness dB below the gust's peak when g = 0 (26 for the rumble), and 12·(1 − intensity) dB lower
///       at lower intensity. At intensity 1 (gustiness ½) the long-run level is about -18 dBFS RMS (see the tests).
/// Measured against a recording of wind (blanket_wind.wav) at the night preset (intensity 0.5, gustiness 0.6):
/// octave bands 63 Hz-16 kHz within ±4 dB of its shape, centroid ≈ 900 Hz, level spreads and onsets within 30 %.
/// Parameters move at a control rate of one value every 32 frames, from the absolute frame position; the
/// gains are interpolated linearly between control points. The filters run through `WarmStart` (epochs of
/// 4 s, a warm-up of 0.5 s; the slowest filter, the whistle's Q 45 band-pass at 586 Hz or more, decays with a
/// time constant of at most 24 ms, so e^-20 of its past is left after the warm-up: 50 times below a Float's
/// resolution), so the output at any frame is the same whatever the block sizes and wherever rendering started;
/// a seek costs at most 4.5 s of generation (about 6 ms).
///
/// Layout: the settings, the filter state (8 doubles per channel, twice) and a 1024-frame scratch block,
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
    static let stateSize = 8
    /// The rumble's and the hiss's gains relative to the body's (fitted to the recording's octave shape).
    static let rumbleGain = 2.0
    static let hissGain = 0.026
    /// The whistle's gain relative to the body's at the height of a gust (g = 1) with `whistle` 1.
    static let whistleGain = 1.0
    /// Brings the long-run RMS at intensity 1, gustiness ½ to about -18 dBFS; measured, see the tests.
    static let outputScale = 2.15   // measured over seeds 1 to 3, 10 minutes each (the tests)

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
        rumble = SVF(cutoffHz: 75, q: 0.7, sampleRate: Double(sampleRate))
        warm = WarmStart(stateSize: channelCount * WindGenerator.stateSize, epochFrames: Int64(sampleRate) * 4,
                         warmUpFrames: max(1, Int64(sampleRate) / 2), channelCount: channelCount)
    }

    /// The parameters at control point `k` (frame 32k).
    struct Control {
        var body: SVF, hiss: SVF, whistle: SVF
        var bodyGain: Double, hissGain: Double, rumbleGain: Double, whistleGain: Double
    }

    /// The body's low-pass cutoff before gusts and wander: 150 Hz at intensity 0, 180 at ½, 214 at 1.
    static func bodyHz(intensity: Double) -> Double { 180 * _pow(2, 0.5 * (intensity - 0.5)) }

    /// The gust curve g(t) ∈ [0, 1] at `t` seconds.
    func gust(seconds t: Double) -> Double {
        let period = 9 - 4 * intensity
        let g = 0.5 * valueNoise(seed: seed ^ 0x6775_7374, seconds: t, period: period)
            + 0.2 * valueNoise(seed: seed ^ 0x6775_7375, seconds: t, period: period / 2.7)
            + 0.3 * valueNoise(seed: seed ^ 0x6775_7376, seconds: t, period: period / 7)
        return g * g * (3 - 2 * g)
    }

    func control(_ k: Int64) -> Control {
        let rate = Double(sampleRate)
        let t = Double(max(k, 0) * WindGenerator.controlFrames) / rate
        let g = gust(seconds: t)
        let wander = valueNoise(seed: seed ^ 0x7761_6E64, seconds: t, period: 13)
        let cutoff = WindGenerator.bodyHz(intensity: intensity) * _pow(2, 0.8 * gustiness * g + 0.5 * (wander - 0.5))
        let body = SVF(cutoffHz: cutoff, q: 0.75, sampleRate: rate)
        let hiss = SVF(cutoffHz: 13 * cutoff, q: 3, sampleRate: rate)
        let whistleHz = (650 + 300 * intensity) * _pow(2, g + 0.3 * (valueNoise(seed: seed ^ 0x7768_6973, seconds: t, period: 5) - 0.5))
        let whistleFilter = SVF(cutoffHz: whistleHz, q: 45, sampleRate: rate)
        // Level in dB: −28·gustiness·(1 − g) − 12·(1 − intensity), then the calibration; the rumble swings 2 dB less
        // (the gust brings the body up over it, so the wind brightens as it rises).
        let level = gain(fromDecibels: -28 * gustiness * (1 - g) - 12 * (1 - intensity)) * WindGenerator.outputScale
        let rumbleLevel = gain(fromDecibels: -26 * gustiness * (1 - g) - 12 * (1 - intensity)) * WindGenerator.outputScale
        return Control(body: body, hiss: hiss, whistle: whistleFilter, bodyGain: level, hissGain: WindGenerator.hissGain * level,
                       rumbleGain: WindGenerator.rumbleGain * rumbleLevel, whistleGain: WindGenerator.whistleGain * whistle * g * g * g * level)
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
                var (b1, b2, r1, r2, w1, w2, h1, h2) = (st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7])
                for j in 0..<n {
                    let x = NoiseGenerator.white(seed: noiseSeed, frame: p + Int64(j), channel: ch)
                    let f = phase0 + Double(j) * slope
                    let body = c.body.tick(x, &b1, &b2).low
                    let hiss = c.hiss.tick(x, &h1, &h2).band * c.hiss.k
                    let low = rumble.tick(x, &r1, &r2).low
                    let whistle = c.whistle.tick(x, &w1, &w2).band * c.whistle.k
                    let y = body * (c.bodyGain + (next.bodyGain - c.bodyGain) * f)
                        + hiss * (c.hissGain + (next.hissGain - c.hissGain) * f)
                        + low * (c.rumbleGain + (next.rumbleGain - c.rumbleGain) * f)
                        + whistle * (c.whistleGain + (next.whistleGain - c.whistleGain) * f)
                    out[j] = Float(y)
                }
                (st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7]) = (b1, b2, r1, r2, w1, w2, h1, h2)
            }
            i += n
            k += 1
            c = next
        }
    }
}
