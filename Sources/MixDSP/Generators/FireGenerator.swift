import RealModule

/// A wood fire from a seed: a low roar under the hiss of the flames, sparse sharp crackles, now and then a pop.
/// Shaped on a recorded fireplace (see the tests): 40 % of the energy below 160 Hz, 55 % from 4 to 16 kHz, a
/// crest factor near 50 (34 dB).
///
///   roar  = 1.3 · I · F(t) · LP₂(HP₁(w_r; 30 Hz); 110 Hz, Q 0.9)
///   hiss  = LP₂(HP₁(0.1 · I · w_h + e(t); 1.5 kHz); 12.5 kHz, Q 2)       (e: the crackles' excitation)
///   y     = G · (roar + hiss) + Σ pops
///
/// w_r and w_h are each channel's own white noise (two halves of one SplitMix64 hash of seed, frame and channel),
/// so the roar and the hiss are uncorrelated between channels; I the intensity (0...1); G a measured scale
/// (0.195) that puts intensity 1 near −36 dBFS RMS. LP₂ is a state-variable low-pass, HP₁ a one-pole high-pass.
/// F is the roar's wander, 1 + 0.6 · (v(t / 0.12 s) + v(t / 1 s) − 1) with v value noise hashed per slot
/// (0.4...1.6): the puffs of turbulent combustion, which make most of the level's swells (the recording's 1 s
/// level spread is only 0.57 dB, its 100 ms spread 1.3 dB).
///
/// Crackles (gas bursting from the wood): time is cut into 10 ms slots; slot k holds one crackle with probability
/// 0.01 · λ · A(t), λ = 12.5 · (0.3 + 1.27 · I) per second (12.5 at the presets' 0.55), A the activity
/// 0.2 + 3.2 · a³ (a: value noise over 0.3 s slots, so crackles come in clusters; mean of A 0.9). Its start,
/// level, pan, decays and sign are hashed from (seed, k). The level is Pareto-distributed, 0.3 · I · u^(−1/1.8),
/// capped at 9 times its floor: most crackles are faint, a few are 20 to 30 dB louder, which gives the recording's
/// peaks. The excitation is a signed unit impulse then hashed noise, A · (e^(−d/τc) + r · e^(−d/τt)) · v(d),
/// τc 0.04–0.12 ms (the snap), τt 0.8–3 ms (its rattle), r 0.09–0.51, cut at 7 τt. It goes through the hiss's
/// filters, which give it the flames' bright colour (the recording's crackles and hiss share one spectrum).
/// Crackles are panned at random, equal-power.
/// Pops (wood splitting): 0.25 s slots, probability (0.04 + 0.29 · I) · 0.25, each a damped sine of 120 to
/// 400 Hz (τ 2 to 8 ms, cut at 8 τ) with a 0.5 ms noise burst at its start, panned at random.
///
/// Level: about −36 dBFS RMS at intensity 1, −41 at 0.55; the crackles' peaks reach about 50 times the RMS, so
/// this is the level at which they stay below full scale (a recording of a fire has its RMS as far below its peaks).
///
/// Positions: as `SurfGenerator`: only the filters have state (6 `Double`s per channel); rendering on continues
/// them, any other position restarts them `warmUpSeconds` (0.1 s) before it, re-exciting them with the same
/// noise and crackles (pure functions of the position), which leaves them within 1e-6 of the continuous render
/// (slowest time constant 5.3 ms, the roar's high-pass). Seeking costs 0.1 s of rendering, wherever it lands.
///
/// Layout: the settings and the filter state in one array made in `init`; `render` allocates nothing.
/// Not thread-safe: one thread at a time.
public final class FireGenerator: FrameSource, ShortWarmUp {
    public let intensity: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    public static let warmUpSeconds = 0.1
    static let controlFrames = 32
    static let stateSize = 6
    /// G: brings intensity 1 to about −36 dBFS RMS (measured, the tests), where the crackles' peaks stay below 0 dBFS.
    static let levelScale = 0.195
    static let roarScale = 1.3, hissScale = 0.1, crackleScale = 0.3, popScale = 0.3
    /// λ's scale: crackles a second at intensity 0.55, before the clusters' mean activity (0.9).
    static let crackleRate = 12.5
    /// The level distribution's tail exponent, and its cap over the floor.
    static let crackleTail = 1.8, crackleCap = 9.0

    let warmUpFrames: Int64
    var nextPosition: Int64 = 0
    private var state: [Double]
    private let rate: Double
    private let noiseSeed: UInt64
    private let roarHP: Double, roarLP: SVF, hissHP: Double, hissLP: SVF
    private let roarGain: Double, hissGain: Double
    private let crackleSlot: Int64, crackleMax: Int64
    private let crackleProbability: Double, crackleFloor: Double
    private let clickTau: Double, tailTauMin: Double, tailTauMax: Double
    private let popSlot: Int64, popMax: Int64, popProbability: Double, popGain: Double

    public init(intensity: Double, seed: UInt64, sampleRate: Int, channelCount: Int) {
        self.intensity = min(max(intensity, 0), 1)
        self.seed = seed
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        rate = Double(sampleRate)
        warmUpFrames = Int64((FireGenerator.warmUpSeconds * rate).rounded())
        state = Array(repeating: 0, count: channelCount * FireGenerator.stateSize)
        let r = rate
        func onePole(_ hz: Double) -> Double { 1 - Double.exp(-2 * Double.pi * min(hz, r * 0.45) / r) }
        roarHP = onePole(30)
        roarLP = SVF(cutoffHz: 110, q: 0.9, sampleRate: r)
        hissHP = onePole(1500)
        hissLP = SVF(cutoffHz: 12_500, q: 2, sampleRate: r)
        let I = self.intensity, G = FireGenerator.levelScale
        roarGain = G * FireGenerator.roarScale * I
        // the crackles enter the hiss's filters, so G scales them there
        hissGain = FireGenerator.hissScale * I
        noiseSeed = SeededRandom.bits(seed: seed, stream: 0x4649_5245, index: 0)   // "FIRE"
        crackleSlot = max(1, Int64((0.010 * rate).rounded()))
        crackleProbability = FireGenerator.crackleRate * (0.3 + 1.27 * I) * 0.010
        crackleFloor = FireGenerator.crackleScale * I
        clickTau = 0.00008 * rate
        tailTauMin = 0.0008 * rate
        tailTauMax = 0.003 * rate
        crackleMax = Int64((7 * tailTauMax).rounded(.up)) + 1
        popSlot = max(1, Int64((0.25 * rate).rounded()))
        popMax = Int64((8 * 0.008 * rate).rounded(.up)) + 1
        popProbability = (0.04 + 0.29 * I) * 0.25
        popGain = G * FireGenerator.popScale * I
    }

    /// Value noise: slot levels in [0, 1) joined by cosine interpolation; `t` in slots.
    @inline(__always)
    private func valueNoise(_ t: Double, stream: UInt64) -> Double {
        let k = t.rounded(.down)
        let f = t - k
        let a = SeededRandom.unit(seed: seed, stream: stream, index: Int64(k)), b = SeededRandom.unit(seed: seed, stream: stream, index: Int64(k) + 1)
        let s = (1 - Double.cos(Double.pi * f)) / 2
        return a + (b - a) * s
    }

    /// The roar's wander F at frame `n`, 0.4...1.6.
    func wander(at n: Int64) -> Double {
        let t = Double(n) / rate
        return 1 + 0.6 * (valueNoise(t / 0.12, stream: 10) + valueNoise(t / 1.0, stream: 11) - 1)
    }

    func resetFilters() { for i in state.indices { state[i] = 0 } }

    /// The bed from `nextPosition`: the crackles' excitation first, then the filters over it (in place).
    func runFilters(into block: AudioBlock, offset: Int, count: Int) {
        for c in 0..<channelCount { (block.channel(c).baseAddress! + offset).update(repeating: 0, count: count) }
        addCrackles(into: block, offset: offset, count: count, at: nextPosition)
        generateBed(into: block, offset: offset, count: count)
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        warmUp(to: position, block: block, offset: offset, count: count)
        runFilters(into: block, offset: offset, count: count)
        addPops(into: block, offset: offset, count: count, at: position)
    }

    /// Roar and hiss, continuing the filters from `nextPosition`; the block holds the crackles' excitation.
    private func generateBed(into block: AudioBlock, offset: Int, count: Int) {
        let cf = Int64(FireGenerator.controlFrames)
        let G = FireGenerator.levelScale
        var done = 0
        while done < count {
            let n0 = nextPosition + Int64(done)
            let g = n0 / cf
            let run = Int(min(Int64(count - done), (g + 1) * cf - n0))
            // the wander at grid frames g·cf and (g+1)·cf, interpolated linearly
            let f0 = wander(at: g * cf), f1 = wander(at: (g + 1) * cf)
            let phase0 = Double(n0 - g * cf)
            let dF = (f1 - f0) / Double(cf)
            for c in 0..<channelCount {
                let out = block.channel(c).baseAddress! + offset + done
                let s = c * FireGenerator.stateSize
                var (a1, b1, b2, h1, l1, l2) = (state[s], state[s + 1], state[s + 2], state[s + 3], state[s + 4], state[s + 5])
                for i in 0..<run {
                    let f = f0 + dF * (phase0 + Double(i))
                    let bits = FireGenerator.bits(noiseSeed, n0 + Int64(i), c)
                    let wr = Double(Int32(truncatingIfNeeded: bits)) * 0x1p-31
                    let wh = Double(Int32(truncatingIfNeeded: bits >> 32)) * 0x1p-31
                    a1 += roarHP * (wr - a1)
                    let roar = roarLP.tick(wr - a1, &b1, &b2).low
                    let x = hissGain * wh + Double(out[i])
                    h1 += hissHP * (x - h1)
                    let hiss = hissLP.tick(x - h1, &l1, &l2).low
                    out[i] = Float(roarGain * f * roar + G * hiss)
                }
                (state[s], state[s + 1], state[s + 2], state[s + 3], state[s + 4], state[s + 5]) = (a1, b1, b2, h1, l1, l2)
            }
            done += run
        }
        nextPosition += Int64(count)
    }

    /// Adds the crackles' excitation for [position, position + count): each a pure function of its slot.
    private func addCrackles(into block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        let end = position + Int64(count)
        var k = floorDiv(position - crackleMax, crackleSlot)
        let lastSlot = floorDiv(end - 1, crackleSlot)
        let slotsPerCluster = 0.3 * rate / Double(crackleSlot)
        while k <= lastSlot {
            defer { k += 1 }
            guard k >= 0 else { continue }
            // clusters: the activity A = 0.2 + 3.2 a³ (mean 0.9), a value noise over 0.3 s slots
            let a = valueNoise(Double(k) / slotsPerCluster, stream: 12)
            let p = crackleProbability * (0.2 + 3.2 * a * a * a)
            guard SeededRandom.unit(seed: seed, stream: 20, index: k) < p else { continue }
            let start = k * crackleSlot + Int64(SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 1) * Double(crackleSlot))
            let tt = tailTauMin + (tailTauMax - tailTauMin) * SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 5)
            let from = max(start, position), to = min(start + Int64((7 * tt).rounded(.up)), end)
            guard from < to else { continue }
            // Pareto level, capped: most faint, a few 20 to 30 dB up
            let u = max(SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 2), 1e-12)
            let level = crackleFloor * min(Double.pow(u, -1 / FireGenerator.crackleTail), FireGenerator.crackleCap)
            let pan = SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 3) * 2 - 1
            let ct = clickTau * (0.5 + SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 4))
            let tr = 0.3 * (0.3 + 1.4 * SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 6))
            let sign: Double = SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 7) < 0.5 ? -1 : 1
            let eventSeed = SeededRandom.bits(seed: seed, stream: 21, index: k)
            let g0 = level * GeneratorPan.gain(pan, channel: 0, of: channelCount)
            let g1 = channelCount > 1 ? level * GeneratorPan.gain(pan, channel: 1, of: channelCount) : 0
            let cDamp = 1 / ct, tDamp = 1 / tt, clickEnd = Int64(8 * ct)
            for n in from..<to {
                let d = n - start
                let dd = Double(d)
                let v = NoiseGenerator.white(seed: eventSeed, frame: d, channel: 0)
                var e = tr * Double.exp(-dd * tDamp) * v
                if d == 0 { e += sign } else if d < clickEnd { e += Double.exp(-dd * cDamp) * v }
                let i = offset + Int(n - position)
                block.channel(0)[i] += Float(g0 * e)
                for c in 1..<max(1, channelCount) { block.channel(c)[i] += Float((c % 2 == 0 ? g0 : g1) * e) }
            }
        }
    }

    /// Adds the pops that sound in [position, position + count).
    private func addPops(into block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        let end = position + Int64(count)
        var k = floorDiv(position - popMax, popSlot)
        let lastSlot = floorDiv(end - 1, popSlot)
        while k <= lastSlot {
            defer { k += 1 }
            guard k >= 0, SeededRandom.unit(seed: seed, stream: 30, index: k) < popProbability else { continue }
            let start = k * popSlot + Int64(SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 1) * Double(popSlot))
            let tau = (0.002 + 0.006 * SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 2)) * rate
            let hz = 120 + 280 * SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 3)
            let u = SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 4)
            let level = popGain * (0.3 + 0.7 * u * u)
            let pan = SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 5) * 2 - 1
            let length = Int64((8 * tau).rounded(.up))
            let from = max(start, position), to = min(start + length, end)
            guard from < to else { continue }
            let damping = 1 / tau, burst = 1 / (0.0005 * rate), step = hz / rate
            let eventSeed = SeededRandom.bits(seed: seed, stream: 31, index: k)
            for c in 0..<channelCount {
                let g = level * GeneratorPan.gain(pan, channel: c, of: channelCount)
                let out = block.channel(c).baseAddress! + offset
                for n in from..<to {
                    let d = Double(n - start)
                    // A e^(−d/τ) sin(2π f d / rate) + A e^(−d / 0.5 ms) w(d)
                    let tone = Double.exp(-d * damping) * Double.sin(2 * Double.pi * step * d)
                    let click = Double.exp(-d * burst) * NoiseGenerator.white(seed: eventSeed, frame: n - start, channel: 0)
                    out[Int(n - position)] += Float(g * (tone + click))
                }
            }
        }
    }

    /// 64 hashed bits for (seed, frame, channel), as `NoiseGenerator.white` (SplitMix64's finaliser): two noises a draw.
    @inline(__always)
    static func bits(_ seed: UInt64, _ n: Int64, _ c: Int) -> UInt64 {
        var z = seed &+ (UInt64(bitPattern: n) &* 8 &+ UInt64(c)) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// ⌊a / b⌋ for b > 0 (Swift's `/` rounds towards zero).
@inline(__always)
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && a < 0) ? q - 1 : q
}
