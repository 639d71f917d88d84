import RealModule

/// Surf on a beach from a seed: swells breaking at random intervals around a period, each one a roar whose
/// low-pass filter opens as it crests, followed by the hiss of the wash running back, over a low, constant
/// rumble of distant surf.
///
/// Swell k crests at cₖ = (k + jₖ) · P seconds, jₖ uniform in [−0.2, 0.2] (so crests are 0.6 P to 1.4 P
/// apart), with a height aₖ uniform in [0.5, 1] and a pan uniform in [−0.4, 0.4], all hashed from
/// (seed, k) (`SeededRandom`). With x = (t − cₖ) / P, each swell adds to two envelopes:
///
///   crash(x) = ((x + 0.5) / 0.5)²            for −0.5 ≤ x < 0     (the swell rears up)
///            = e^(−x / 0.22) · taper(x)       for 0 ≤ x < 1.3     (it breaks and spends itself)
///   wash(x)  = (x / 0.2)² · e^(2 (1 − x / 0.2)) · taper(x)     for 0 ≤ x < 1.3   (peaks 0.2 P after the crest)
///   taper(x) = 1 for x < 1, then (1.3 − x) / 0.3 down to 0
///
/// and each channel c hears them through the swell's equal-power pan. The sound of a channel, from its own
/// white noise w (a SplitMix64 hash of seed, frame and channel, as in `NoiseGenerator`):
///
///   roar  = LP₂(w; fc = 200 + (600 + 3400 · I) · min(1, crash)^1.5 Hz) · crash     (two one-poles, fc follows the crest)
///   hiss  = LP₂(HP(w; 800 Hz); 5000 Hz) · wash
///   bed   = LP₂(w; 140 Hz) · (0.35 + 0.3 · min(1, crash + wash))
///   y     = G · I · (roar + 0.35 · hiss + 1.2 · bed)
///
/// with I the intensity (0...1) and G a measured scale that puts intensity 1 at about −24 dBFS RMS over
/// minutes (see the tests), so that the crests, some 22 dB above that, stay below 0 dBFS. The envelopes and the filter coefficient are computed every 32 frames (from the
/// absolute frame number, so the same for any block size) and interpolated linearly between.
///
/// Positions: the swells are a pure function of the position; only the filters have state. Rendering on from
/// where the last call ended continues them; any other position restarts them `warmUpSeconds` (0.1 s) before
/// it (or at 0), which leaves them within 1e-6 of the continuous render (their slowest time constant is
/// 1.1 ms, so 0.1 s is ninety of them). Seeking costs 0.1 s of rendering, never O(position).
///
/// Layout: the settings, the next position, filter state (7 `Double`s per channel) and the two latest control
/// points (2 envelopes per channel each), in arrays made in `init`; `render` allocates nothing. Not thread-safe
/// (the filter state changes as it renders): one thread at a time.
public final class SurfGenerator: FrameSource, ShortWarmUp {
    public let intensity: Double
    public let periodSeconds: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    /// How far before a requested position the filters start when it is not where the last render ended.
    public static let warmUpSeconds = 0.1
    /// Frames between control points (envelopes, filter coefficient).
    static let controlFrames = 32
    /// Scale bringing intensity 1 to about −24 dBFS RMS; measured over 5 minutes of three seeds (the tests).
    /// Not −18 like the noise: the swells make a crest factor of about 22 dB, and −24 keeps the crests below 0 dBFS.
    static let scale = 0.96

    let warmUpFrames: Int64
    var nextPosition: Int64 = 0
    /// Per channel: roar LP 1 and 2, hiss HP's LP and hiss LP, bed LP 1 and 2.
    private var state: [Double]
    private static let stateSize = 7
    /// Control values at grid point `controlIndex` and the one after: per channel (crash, wash, coefficient).
    private var controls: [Double]
    private var controlIndex: Int64 = -2
    private static let controlSize = 3

    private let periodFrames: Double
    private let hissHP: Double, hissLP: Double, bedLP: Double
    private let roarBase: Double, roarSpan: Double
    private let noiseSeed: UInt64

    /// - Parameters: intensity 0...1 (size and loudness of the surf), periodSeconds the mean time between
    ///   crests (the kind allows 6 to 14), seed any whole number.
    public init(intensity: Double, periodSeconds: Double, seed: UInt64, sampleRate: Int, channelCount: Int) {
        self.intensity = min(max(intensity, 0), 1)
        self.periodSeconds = max(periodSeconds, 0.5)
        self.seed = seed
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        let rate = Double(sampleRate)
        warmUpFrames = Int64((SurfGenerator.warmUpSeconds * rate).rounded())
        periodFrames = self.periodSeconds * rate
        state = Array(repeating: 0, count: channelCount * SurfGenerator.stateSize)
        controls = Array(repeating: 0, count: 2 * channelCount * SurfGenerator.controlSize)
        // one-pole: y += a (x − y), a = 1 − e^(−2π fc / rate)
        func onePole(_ hz: Double) -> Double { 1 - Double.exp(-2 * Double.pi * min(hz, rate * 0.45) / rate) }
        hissHP = onePole(800); hissLP = onePole(5000); bedLP = onePole(140)
        roarBase = 200; roarSpan = 600 + 3400 * self.intensity
        noiseSeed = SeededRandom.bits(seed: seed, stream: 0x5355_5246, index: 0)   // "SURF"
    }

    /// Swell `k`'s crest: its time in seconds (from the generator's frame 0) and its height (0.5...1).
    public func crest(_ k: Int64) -> (seconds: Double, height: Double) {
        let jitter = (SeededRandom.unit(seed: seed, stream: 1, index: k, draw: 0) * 2 - 1) * 0.2
        return ((Double(k) + jitter) * periodSeconds, 0.5 + 0.5 * SeededRandom.unit(seed: seed, stream: 1, index: k, draw: 1))
    }

    /// The swells' envelopes for channel `c` at time `t` frames: (crash, wash).
    func envelopes(at t: Double, channel c: Int) -> (crash: Double, wash: Double) {
        let u = t / periodFrames
        var crash = 0.0, wash = 0.0
        let first = Int64((u - 1.5).rounded(.down)), last = Int64((u + 0.7).rounded(.up))
        var k = first
        while k <= last {
            let (crestSeconds, height) = crest(k)
            let x = u - crestSeconds / periodSeconds
            if x >= -0.5 && x < 1.3 {
                let pan = (SeededRandom.unit(seed: seed, stream: 1, index: k, draw: 2) * 2 - 1) * 0.4
                let g = height * GeneratorPan.gain(pan, channel: c, of: channelCount)
                if x < 0 {
                    let q = (x + 0.5) / 0.5
                    crash += g * q * q
                } else {
                    let taper = x < 1 ? 1 : (1.3 - x) / 0.3
                    crash += g * Double.exp(-x / 0.22) * taper
                    let r = x / 0.2
                    wash += g * r * r * Double.exp(2 * (1 - r)) * taper
                }
            }
            k += 1
        }
        return (crash, wash)
    }

    /// Fills the control values of grid point `g` into slot `slot` (0 or 1).
    private func computeControls(_ g: Int64, slot: Int) {
        let rate = Double(sampleRate)
        for c in 0..<channelCount {
            let (crash, wash) = envelopes(at: Double(g) * Double(SurfGenerator.controlFrames), channel: c)
            let open = min(1, crash)
            let fc = roarBase + roarSpan * open * open.squareRoot()
            let i = (slot * channelCount + c) * SurfGenerator.controlSize
            controls[i] = crash
            controls[i + 1] = wash
            controls[i + 2] = 1 - Double.exp(-2 * Double.pi * min(fc, rate * 0.45) / rate)
        }
    }

    /// Makes grid points g and g + 1 the two held in `controls`.
    private func loadControls(_ g: Int64) {
        if controlIndex == g { return }
        if controlIndex + 1 == g {
            let half = channelCount * SurfGenerator.controlSize
            for i in 0..<half { controls[i] = controls[half + i] }
        } else {
            computeControls(g, slot: 0)
        }
        computeControls(g + 1, slot: 1)
        controlIndex = g
    }

    func resetFilters() { for i in state.indices { state[i] = 0 } }
    func runFilters(into block: AudioBlock, offset: Int, count: Int) { generate(into: block, offset: offset, count: count) }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        warmUp(to: position, block: block, offset: offset, count: count)
        generate(into: block, offset: offset, count: count)
    }

    private func generate(into block: AudioBlock, offset: Int, count: Int) {
        let cf = Int64(SurfGenerator.controlFrames)
        let gain = SurfGenerator.scale * intensity
        var done = 0
        while done < count {
            let n0 = nextPosition + Int64(done)
            let g = n0 / cf
            let run = Int(min(Int64(count - done), (g + 1) * cf - n0))
            loadControls(g)
            let phase0 = Double(n0 - g * cf)
            for c in 0..<channelCount {
                let out = block.channel(c).baseAddress! + offset + done
                let i0 = c * SurfGenerator.controlSize, i1 = (channelCount + c) * SurfGenerator.controlSize
                let (crash0, wash0, a0) = (controls[i0], controls[i0 + 1], controls[i0 + 2])
                let dCrash = (controls[i1] - crash0) / Double(cf)
                let dWash = (controls[i1 + 1] - wash0) / Double(cf)
                let dA = (controls[i1 + 2] - a0) / Double(cf)
                let s = c * SurfGenerator.stateSize
                var (r1, r2, h1, h2, h3, b1, b2) = (state[s], state[s + 1], state[s + 2], state[s + 3], state[s + 4], state[s + 5], state[s + 6])
                for i in 0..<run {
                    let f = phase0 + Double(i)
                    let crash = crash0 + dCrash * f, wash = wash0 + dWash * f, a = a0 + dA * f
                    let w = NoiseGenerator.white(seed: noiseSeed, frame: n0 + Int64(i), channel: c)
                    r1 += a * (w - r1); r2 += a * (r1 - r2)
                    h1 += hissHP * (w - h1); h2 += hissLP * ((w - h1) - h2); h3 += hissLP * (h2 - h3)
                    b1 += bedLP * (w - b1); b2 += bedLP * (b1 - b2)
                    let bed = b2 * (0.35 + 0.3 * min(1, crash + wash))
                    out[i] = Float(gain * (r2 * crash + 0.35 * h3 * wash + 1.2 * bed))
                }
                (state[s], state[s + 1], state[s + 2], state[s + 3], state[s + 4], state[s + 5], state[s + 6]) = (r1, r2, h1, h2, h3, b1, b2)
            }
            done += run
        }
        nextPosition += Int64(count)
    }
}
