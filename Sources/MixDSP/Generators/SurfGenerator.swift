import RealModule

/// Surf on a beach from a seed: waves that break with a sharp crash (and, most of them, again on the shore a
/// moment later), leaving a fizzing foam of tiny bubble bursts and a darker swash running up and back, over the
/// constant roar of the surf further along the beach.
///
/// Waves: wave k breaks at tₖ = (k + ½ + jₖ) · P seconds, jₖ = 0.35 (u₁ + u₂ − 1) (a bell within ±0.35, so
/// successive breaks come 0.3 P to 1.7 P apart, spread 0.2 P), height hₖ = (0.5 + 0.5 u₃) · (0.75 + 0.5 S(tₖ))
/// with S a smooth random curve over 6 P (sets of bigger waves), pan uniform in ±0.7; all hashed from (seed, k)
/// (`SeededRandom`), so a break is a pure function of k. Each wave has plunges m at offsets oₘ: 1 to 3 crashes
/// along the crest (0.07 to 0.32 s apart, the first at 1, the others 0.35 to 0.85 of hₖ), and with chance 0.8 a
/// shore break at 0.3 to 0.5 P (1 or 2 plunges at 0.48 to 0.8 hₖ), each panned within ±0.3 of the wave.
/// With x = t − tₖ, xₘ = x − oₘ, τₚ = 0.08 + 0.015 P s, τf = 0.3 P, xₛ = 0.28 P:
///
///   crash(t) = Σ 3 aₘ · (xₘ / 8 ms)²  for xₘ < 8 ms, else 3 aₘ · e^(−(xₘ − 8 ms) / τₚ)     (a fast attack)
///   foam(t)  = Σ hₖ (1 − e^(−x / 0.05)) e^(−x / τf) · taper
///   swash(t) = Σ 0.8 hₖ (x / xₛ)² e^(2 (1 − x / xₛ)) · taper       (runs up, peaks 0.28 P after the break)
///
/// each through the event's equal-power pan, over 0 ≤ x < W = 2.2 P + 1 s (taper: 1, then linearly to 0 over
/// the last 0.3 P). The sound of channel c, from its own white noise w (a hash of seed, frame and channel, as in
/// `NoiseGenerator`), with LP/HP one-pole filters:
///
///   water = LP²(w; 1.4 kHz) · (1 + swash)                      (the distant surf, constant, and the swash)
///   roar  = LP²(HP(w; 200 Hz); 2 + I kHz) · crash               (the break: broadband, brighter when bigger)
///   fizz  = LP(HP(e · w; 1 kHz); 3 kHz),  e = Σ grains aᵢ e^(−(t − tᵢ) / 2.5 ms)
///   y     = G · I · (water + roar + fizz)
///
/// Foam grains: each 32-frame slot of a channel holds one grain with chance 600 · foam · 32 / rate, at a frame
/// of the slot and with amplitude aᵢ = (0.3 + 4 u⁵) √foam hashed from (seed, channel, slot): many small
/// bubbles and, now and then, a loud spray. I is the intensity (0...1), G a measured scale putting intensity 1
/// at about −28 dBFS RMS (see the tests): the grains make a crest factor of 16 to 21 (as in a recording of
/// waves), and −28 keeps the peaks below 0 dBFS. The envelopes are computed every 32 frames (from the absolute
/// frame number, so the same for any block size) and interpolated linearly between.
///
/// Positions: the waves and grains are a pure function of the position; only the filters and the grains'
/// decay have state. Rendering on from where the last call ended continues them; any other position restarts
/// them `warmUpSeconds` (0.1 s) before it (or at 0), which leaves them within 1e-6 of the continuous render
/// (their slowest time constant is the grains' 2.5 ms, so 0.1 s is forty of them). Seeking costs 0.1 s of
/// rendering, never O(position).
///
/// Layout: the settings, the next position, filter state (8 `Double`s per channel), the two latest control
/// points (3 envelopes per channel each) and a 16-wave cache of the waves' draws (times, heights, plunges,
/// pan gains; a pure function of k, so caching changes nothing), in buffers allocated in `init`; `render`
/// allocates nothing. Not thread-safe (the state changes as it renders): one thread at a time.
public final class SurfGenerator: FrameSource, ShortWarmUp {
    public let intensity: Double
    public let periodSeconds: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    /// How far before a requested position the filters start when it is not where the last render ended.
    public static let warmUpSeconds = 0.1
    /// Frames between control points (envelopes), and the foam's grain slots.
    static let controlFrames = 32
    /// Scale bringing intensity 1 to about −28 dBFS RMS (measured, see the tests): the foam's grains make a crest
    /// factor of 16 to 21, and −28 keeps them below 0 dBFS.
    static let scale = 0.172
    // Layer levels (relative to the constant distant surf, 1).
    static let swashGain = 0.8, crashGain = 3.0, foamGain = 1.0
    // Foam grains: up to 600 a second at foam 1, each an exponential burst of noise (τ 2.5 ms) of amplitude
    // (0.3 + 4 u⁵)·√foam: mostly small, now and then a loud spray.
    static let grainRate = 600.0, grainTau = 0.0025, grainPow = 5.0, grainSpan = 4.0
    // Plunges: 8 ms square-law attack, decay τ = 0.08 s + 0.015 P.
    static let plungeTau = 0.08, plungeTauPerP = 0.015, attack = 0.008
    // Shore break: 80 % of the waves break again 0.3 to 0.5 P later, at 0.48 to 0.8 of their height.
    static let shoreChance = 0.8, shoreDelayPerP = 0.4, shoreGain = 0.8
    // Sets: heights scaled by 0.75 + 0.5 · (a smooth random curve over 6 periods).
    static let setDepth = 0.5
    static let foamTauPerP = 0.3, swashPeakPerP = 0.28
    // Filters (Hz): the dark water (distant surf, swash), the bright crash, the foam's band.
    static let darkHz = 1400.0, brightHz = 2000.0, brightHzPerI = 1000.0, brightHP = 200.0, foamHP = 1000.0, foamLP = 3000.0

    let warmUpFrames: Int64
    var nextPosition: Int64 = 0
    // The buffers below are allocated in `init` and written through their pointers (as `RainGenerator`'s): arrays
    // held by a class would pay a dynamic exclusivity check on every element read in the loops.
    private let state: UnsafeMutablePointer<Double>
    private static let stateSize = 8
    private let controls: UnsafeMutablePointer<Double>
    private var controlIndex: Int64 = -2
    private static let controlSize = 3
    /// The draws of the last 16 waves looked up (slot k mod 16; a control point needs at most 6), each with up
    /// to 5 plunges: a pure function of k, kept so that each wave is hashed once, not every 32 frames.
    private static let cacheSize = 16, plunges = 5
    private let breakIndex: UnsafeMutablePointer<Int64>, breakTime: UnsafeMutablePointer<Double>
    private let breakHeight: UnsafeMutablePointer<Double>, breakGain: UnsafeMutablePointer<Double>
    private let plungeCount: UnsafeMutablePointer<Int>, plungeTime: UnsafeMutablePointer<Double>
    private let plungeAmp: UnsafeMutablePointer<Double>, plungeGain: UnsafeMutablePointer<Double>

    private let rate: Double
    private let darkA: Double, brightA: Double, brightHPA: Double, foamHPA: Double, foamLPA: Double, grainDecay: Double
    private let noiseSeed: UInt64, grainSeed: UInt64, setSeed: UInt64

    /// - Parameters: intensity 0...1 (size and loudness of the surf), periodSeconds the mean time between
    ///   breaking waves (the kind allows 2 to 14; 3 is a beach like the recordings), seed any whole number.
    public init(intensity: Double, periodSeconds: Double, seed: UInt64, sampleRate: Int, channelCount: Int) {
        self.intensity = min(max(intensity, 0), 1)
        self.periodSeconds = max(periodSeconds, 1)
        self.seed = seed
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        rate = Double(sampleRate)
        warmUpFrames = Int64((SurfGenerator.warmUpSeconds * rate).rounded())
        func zeros<T: Numeric>(_ count: Int, _ value: T = 0) -> UnsafeMutablePointer<T> {
            let p = UnsafeMutablePointer<T>.allocate(capacity: count)
            p.initialize(repeating: value, count: count)
            return p
        }
        state = zeros(channelCount * SurfGenerator.stateSize)
        controls = zeros(2 * channelCount * SurfGenerator.controlSize)
        let n = SurfGenerator.cacheSize, m = n * SurfGenerator.plunges
        breakIndex = zeros(n, Int64.min); breakTime = zeros(n); breakHeight = zeros(n); breakGain = zeros(n * channelCount)
        plungeCount = zeros(n); plungeTime = zeros(m); plungeAmp = zeros(m); plungeGain = zeros(m * channelCount)
        let r = rate
        func onePole(_ hz: Double) -> Double { 1 - Double.exp(-2 * Double.pi * min(hz, r * 0.45) / r) }
        darkA = onePole(SurfGenerator.darkHz)
        brightA = onePole(SurfGenerator.brightHz + SurfGenerator.brightHzPerI * self.intensity)
        brightHPA = onePole(SurfGenerator.brightHP)
        foamHPA = onePole(SurfGenerator.foamHP); foamLPA = onePole(SurfGenerator.foamLP)
        grainDecay = Double.exp(-1 / (SurfGenerator.grainTau * r))
        noiseSeed = SeededRandom.bits(seed: seed, stream: 0x5355_5246, index: 0)   // "SURF"
        grainSeed = SeededRandom.bits(seed: seed, stream: 0x4752_4149, index: 0)   // "GRAI"
        setSeed = SeededRandom.bits(seed: seed, stream: 0x5345_5453, index: 0)     // "SETS"
    }

    deinit {
        state.deallocate(); controls.deallocate()
        breakIndex.deallocate(); breakTime.deallocate(); breakHeight.deallocate(); breakGain.deallocate()
        plungeCount.deallocate(); plungeTime.deallocate(); plungeAmp.deallocate(); plungeGain.deallocate()
    }

    @inline(__always) private func u(_ k: Int64, _ d: UInt64) -> Double { SeededRandom.unit(seed: seed, stream: 1, index: k, draw: d) }

    /// Wave `k`'s break: its time in seconds (from the generator's frame 0) and its height (0.375...1.25).
    public func crest(_ k: Int64) -> (seconds: Double, height: Double) {
        let p = periodSeconds
        let t = (Double(k) + 0.5 + 0.35 * (u(k, 0) + u(k, 1) - 1)) * p
        let set = 1 - SurfGenerator.setDepth / 2 + SurfGenerator.setDepth * valueNoise(seed: setSeed, seconds: max(t, 0) + 1000 * p, period: 6 * p)
        return (t, (0.5 + 0.5 * u(k, 2)) * set)
    }

    /// Fills the control values of grid point `g` into slot `slot` (0 or 1): per channel (water, crash, foam).
    private func computeControls(_ g: Int64, slot: Int) {
        let t = Double(g) * Double(SurfGenerator.controlFrames) / rate
        let p = periodSeconds
        let base = slot * channelCount * SurfGenerator.controlSize
        for c in 0..<channelCount {
            controls[base + c * 3] = 1
            controls[base + c * 3 + 1] = 0
            controls[base + c * 3 + 2] = 0
        }
        // a wave sounds for W = 2.2 P + 1 s after its break, and breaks within its slot's [0.15, 0.85] P
        let window = 2.2 * p + 1
        let first = Int64(((t - window) / p - 1).rounded(.down))
        let last = Int64((t / p).rounded(.down))
        let tauP = SurfGenerator.plungeTau + SurfGenerator.plungeTauPerP * p
        let tauF = SurfGenerator.foamTauPerP * p
        let xs = SurfGenerator.swashPeakPerP * p
        let att = SurfGenerator.attack
        var k = first
        while k <= last {
            defer { k += 1 }
            let b = loadBreak(k)
            let x = t - breakTime[b]
            guard x >= 0 && x < window else { continue }
            let h = breakHeight[b]
            let taper = x < window - 0.3 * p ? 1 : (window - x) / (0.3 * p)
            let foam = h * (1 - Double.exp(-x / 0.05)) * Double.exp(-x / tauF) * taper * SurfGenerator.foamGain
            let r = x / xs
            let swash = SurfGenerator.swashGain * h * r * r * Double.exp(2 * (1 - r)) * taper
            let pb = b * SurfGenerator.plunges
            for m in 0..<plungeCount[b] {
                let xm = x - plungeTime[pb + m]
                if xm < 0 { break }
                if xm > 8 * tauP { continue }
                let e = plungeAmp[pb + m] * (xm < att ? (xm / att) * (xm / att) : Double.exp(-(xm - att) / tauP))
                let gi = (pb + m) * channelCount
                for c in 0..<channelCount { controls[base + c * 3 + 1] += e * plungeGain[gi + c] }
            }
            for c in 0..<channelCount {
                let gc = breakGain[b * channelCount + c]
                controls[base + c * 3] += swash * gc
                controls[base + c * 3 + 2] += foam * gc
            }
        }
    }

    /// The cache slot holding break `k`'s draws, filling it if it holds another break.
    private func loadBreak(_ k: Int64) -> Int {
        let b = Int(UInt64(bitPattern: k) % UInt64(SurfGenerator.cacheSize))
        if breakIndex[b] == k { return b }
        breakIndex[b] = k
        let (t, h) = crest(k)
        breakTime[b] = t; breakHeight[b] = h
        let pan = 1.4 * (u(k, 3) - 0.5)
        for c in 0..<channelCount { breakGain[b * channelCount + c] = GeneratorPan.gain(pan, channel: c, of: channelCount) }
        // plunges: the break (1 to 3 crashes along the crest), then, for most waves, the shore break (1 or 2)
        let n = 1 + Int(u(k, 4) * 3)
        let shore = u(k, 20) < SurfGenerator.shoreChance
        let pb = b * SurfGenerator.plunges
        var count = 0, o = 0.0
        for m in 0..<5 {
            if m >= n && m < 3 { continue }
            if m >= 3 && !shore { break }
            if m == 4 && u(k, 22) < 0.5 { break }
            if m == 3 { o = periodSeconds * SurfGenerator.shoreDelayPerP * (0.75 + 0.5 * u(k, 21)) }
            else if m > 0 { o += 0.07 + 0.25 * u(k, 4 + UInt64(m)) }
            let a = h * (m == 0 ? 1 : m == 3 ? SurfGenerator.shoreGain * (0.6 + 0.4 * u(k, 23)) : 0.35 + 0.5 * u(k, 8 + UInt64(m)))
            let pm = min(1, max(-1, pan + 0.6 * (u(k, 12 + UInt64(m)) - 0.5)))
            plungeTime[pb + count] = o
            plungeAmp[pb + count] = SurfGenerator.crashGain * a
            for c in 0..<channelCount { plungeGain[(pb + count) * channelCount + c] = GeneratorPan.gain(pm, channel: c, of: channelCount) }
            count += 1
        }
        plungeCount[b] = count
        return b
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

    func resetFilters() { state.update(repeating: 0, count: channelCount * SurfGenerator.stateSize) }
    func runFilters(into block: AudioBlock, offset: Int, count: Int) { generate(into: block, offset: offset, count: count) }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        warmUp(to: position, block: block, offset: offset, count: count)
        generate(into: block, offset: offset, count: count)
    }

    private func generate(into block: AudioBlock, offset: Int, count: Int) {
        let cf = Int64(SurfGenerator.controlFrames)
        let gain = SurfGenerator.scale * intensity
        let slotSeconds = Double(cf) / rate
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
                let (dark0, crash0, foam0) = (controls[i0], controls[i0 + 1], controls[i0 + 2])
                let dDark = (controls[i1] - dark0) / Double(cf)
                let dCrash = (controls[i1 + 1] - crash0) / Double(cf)
                // this block's grain: at most one, at a hashed frame of the block
                let bits = SeededRandom.bits(seed: grainSeed, stream: UInt64(c), index: UInt64(bitPattern: g))
                let chance = SurfGenerator.grainRate * foam0 * slotSeconds
                let grainAt = SeededRandom.unit(bits) < chance ? Int64(bits & 31) : -1
                let ua = Double((bits >> 5) & 0xFFFF) * (1.0 / 65536)
                let grainAmp = (0.3 + SurfGenerator.grainSpan * Double.pow(ua, SurfGenerator.grainPow)) * foam0.squareRoot()
                let s = c * SurfGenerator.stateSize
                var (d1, d2, bh, b1, b2, e, fh, fl) = (state[s], state[s + 1], state[s + 2], state[s + 3], state[s + 4], state[s + 5], state[s + 6], state[s + 7])
                for i in 0..<run {
                    let f = phase0 + Double(i)
                    let dark = dark0 + dDark * f, crash = crash0 + dCrash * f
                    let n = n0 + Int64(i)
                    let w = NoiseGenerator.white(seed: noiseSeed, frame: n, channel: c)
                    d1 += darkA * (w - d1); d2 += darkA * (d1 - d2)
                    bh += brightHPA * (w - bh); b1 += brightA * ((w - bh) - b1); b2 += brightA * (b1 - b2)
                    e *= grainDecay
                    if n - g * cf == grainAt { e += grainAmp }
                    let x = e * w
                    fh += foamHPA * (x - fh); fl += foamLPA * ((x - fh) - fl)
                    out[i] = Float(gain * (d2 * dark + b2 * crash + fl))
                }
                (state[s], state[s + 1], state[s + 2], state[s + 3], state[s + 4], state[s + 5], state[s + 6], state[s + 7]) = (d1, d2, bh, b1, b2, e, fh, fl)
            }
            done += run
        }
        nextPosition += Int64(count)
    }
}
