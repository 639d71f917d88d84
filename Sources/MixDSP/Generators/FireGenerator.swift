import RealModule

/// A wood fire from a seed: a low, flickering roar, a faint hiss of gas, and random crackles and pops.
///
///   roar  = 3 · LP₂(w; 120 + 260 · F(t) Hz) · F(t)          (F: the flicker, 0.35...1, see below)
///   hiss  = LP(HP(w; 3000 Hz); 9000 Hz) · (0.5 + 0.5 · F(t))
///   y     = G · I · (roar + 0.18 · hiss) + Σ crackles + Σ pops
///
/// with w each channel's own white noise (SplitMix64 hash of seed, frame and channel), I the intensity (0...1)
/// and G a measured scale that puts the whole fire at intensity 1 near −18 dBFS RMS (see the tests).
/// The flicker F is value noise: a random level per 0.23 s and per 1.7 s slot, hashed from (seed, slot),
/// joined by cosine interpolation, F = 0.35 + 0.65 · fast · slow; it also sets how often crackles come, so
/// they cluster where the fire flares.
///
/// Crackles: time is cut into 10 ms slots; slot k holds one crackle with probability
/// min(0.9, λ · 0.01 · (0.4 + 1.2 · F)), λ = 6 + 44 · I per second; its start (within the slot), decay
/// τ (0.08 to 0.8 ms), level (0.1 + 0.9 u², a heavy tail: most are faint, a few are sharp) and pan are hashed from
/// (seed, k). A crackle is a burst of differentiated (bright) hashed noise, A · e^(−d / τ) · (v(d) − 0.8 v(d − 1)),
/// cut at 8 τ. Pops: 0.25 s slots, probability (0.15 + 1.2 · I) · 0.25, each a damped sine of 150 to 700 Hz
/// (τ 3 to 12 ms, cut at 8 τ) with a 1 ms noise burst at its start, panned at random. Crackles and pops have no
/// state: they are a pure function of the position.
///
/// Positions: as `SurfGenerator`: only the roar's and the hiss's filters have state; rendering on continues
/// them, any other position restarts them `warmUpSeconds` (0.1 s) before it, leaving them within 1e-6 of the
/// continuous render (slowest time constant 1.3 ms). Seeking costs 0.1 s of rendering.
///
/// Layout: the settings, the next position and the filter state (4 `Double`s per channel) in one array made
/// in `init`; `render` allocates nothing. Not thread-safe: one thread at a time.
public final class FireGenerator: FrameSource, ShortWarmUp {
    public let intensity: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    public static let warmUpSeconds = 0.1
    static let controlFrames = 32
    /// Scales (roar and hiss; crackles; pops) bringing intensity 1 to about −18 dBFS RMS; measured (the tests).
    static let bedScale = 1.0
    static let crackleScale = 0.35
    static let popScale = 0.3

    let warmUpFrames: Int64
    var nextPosition: Int64 = 0
    private var state: [Double]
    private static let stateSize = 4
    private let rate: Double
    private let hissHP: Double, hissLP: Double
    private let noiseSeed: UInt64
    private let crackleSlot: Int64, popSlot: Int64
    private let crackleMax: Int64, popMax: Int64
    private let crackleRate: Double, popProbability: Double

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
        hissHP = onePole(3000); hissLP = onePole(9000)
        noiseSeed = SeededRandom.bits(seed: seed, stream: 0x4649_5245, index: 0)   // "FIRE"
        crackleSlot = max(1, Int64((0.010 * rate).rounded()))
        popSlot = max(1, Int64((0.25 * rate).rounded()))
        crackleMax = Int64((8 * 0.0008 * rate).rounded(.up)) + 1
        popMax = Int64((8 * 0.012 * rate).rounded(.up)) + 1
        crackleRate = 6 + 44 * self.intensity
        popProbability = (0.15 + 1.2 * self.intensity) * 0.25
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

    /// The flicker F at frame `n`, 0.35...1.
    func flicker(at n: Int64) -> Double {
        let t = Double(n) / rate
        let fast = 0.3 + 0.7 * valueNoise(t / 0.23, stream: 10)
        let slow = 0.5 + 0.5 * valueNoise(t / 1.7, stream: 11)
        return 0.35 + 0.65 * fast * slow
    }

    func resetFilters() { for i in state.indices { state[i] = 0 } }
    func runFilters(into block: AudioBlock, offset: Int, count: Int) { generateBed(into: block, offset: offset, count: count) }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        warmUp(to: position, block: block, offset: offset, count: count)
        generateBed(into: block, offset: offset, count: count)
        addCrackles(into: block, offset: offset, count: count, at: position)
        addPops(into: block, offset: offset, count: count, at: position)
    }

    /// Roar and hiss, continuing the filters from `nextPosition`.
    private func generateBed(into block: AudioBlock, offset: Int, count: Int) {
        let cf = Int64(FireGenerator.controlFrames)
        let gain = FireGenerator.bedScale * intensity
        var done = 0
        while done < count {
            let n0 = nextPosition + Int64(done)
            let g = n0 / cf
            let run = Int(min(Int64(count - done), (g + 1) * cf - n0))
            // control points at grid frames g·cf and (g+1)·cf, interpolated linearly
            let f0 = flicker(at: g * cf), f1 = flicker(at: (g + 1) * cf)
            func coefficient(_ f: Double) -> Double { 1 - Double.exp(-2 * Double.pi * (120 + 260 * f) / rate) }
            let a0 = coefficient(f0), a1 = coefficient(f1)
            let phase0 = Double(n0 - g * cf)
            let dF = (f1 - f0) / Double(cf), dA = (a1 - a0) / Double(cf)
            for c in 0..<channelCount {
                let out = block.channel(c).baseAddress! + offset + done
                let s = c * FireGenerator.stateSize
                var (r1, r2, h1, h2) = (state[s], state[s + 1], state[s + 2], state[s + 3])
                for i in 0..<run {
                    let p = phase0 + Double(i)
                    let f = f0 + dF * p, a = a0 + dA * p
                    let w = NoiseGenerator.white(seed: noiseSeed, frame: n0 + Int64(i), channel: c)
                    r1 += a * (w - r1); r2 += a * (r1 - r2)
                    h1 += hissHP * (w - h1); h2 += hissLP * ((w - h1) - h2)
                    // roar: its raw level is about 0.577 · √(π fc / rate / 2), 0.05 here; × 3 lifts it over the hiss
                    out[i] = Float(gain * (3 * r2 * f + 0.18 * h2 * (0.5 + 0.5 * f)))
                }
                (state[s], state[s + 1], state[s + 2], state[s + 3]) = (r1, r2, h1, h2)
            }
            done += run
        }
        nextPosition += Int64(count)
    }

    /// Adds the crackles that sound in [position, position + count).
    private func addCrackles(into block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        let end = position + Int64(count)
        var k = floorDiv(position - crackleMax, crackleSlot)
        let lastSlot = floorDiv(end - 1, crackleSlot)
        let amplitude = FireGenerator.crackleScale * intensity.squareRoot()
        while k <= lastSlot {
            defer { k += 1 }
            guard k >= 0 else { continue }
            let slotStart = k * crackleSlot
            let p = min(0.9, crackleRate * 0.01 * (0.4 + 1.2 * flicker(at: slotStart)))
            guard SeededRandom.unit(seed: seed, stream: 20, index: k) < p else { continue }
            let start = slotStart + Int64(SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 1) * Double(crackleSlot))
            let tau = (0.08 + 0.72 * SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 2)) * 0.001 * rate
            let u = SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 3)
            let level = amplitude * (0.1 + 0.9 * u * u)
            let pan = SeededRandom.unit(seed: seed, stream: 20, index: k, draw: 4) * 2 - 1
            let length = Int64((8 * tau).rounded(.up))
            let from = max(start, position), to = min(start + length, end)
            guard from < to else { continue }
            let damping = 1 / tau
            let eventSeed = SeededRandom.bits(seed: seed, stream: 21, index: k)
            for c in 0..<channelCount {
                let g = level * GeneratorPan.gain(pan, channel: c, of: channelCount)
                let out = block.channel(c).baseAddress! + offset
                for n in from..<to {
                    let d = n - start
                    let v = NoiseGenerator.white(seed: eventSeed, frame: d, channel: 0)
                        - 0.8 * (d > 0 ? NoiseGenerator.white(seed: eventSeed, frame: d - 1, channel: 0) : 0)
                    out[Int(n - position)] += Float(g * Double.exp(-Double(d) * damping) * v)
                }
            }
        }
    }

    /// Adds the pops that sound in [position, position + count).
    private func addPops(into block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        let end = position + Int64(count)
        var k = floorDiv(position - popMax, popSlot)
        let lastSlot = floorDiv(end - 1, popSlot)
        let amplitude = FireGenerator.popScale * intensity.squareRoot()
        while k <= lastSlot {
            defer { k += 1 }
            guard k >= 0, SeededRandom.unit(seed: seed, stream: 30, index: k) < popProbability else { continue }
            let start = k * popSlot + Int64(SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 1) * Double(popSlot))
            let tau = (0.003 + 0.009 * SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 2)) * rate
            let hz = 150 + 550 * SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 3)
            let level = amplitude * (0.4 + 0.6 * SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 4))
            let pan = SeededRandom.unit(seed: seed, stream: 30, index: k, draw: 5) * 2 - 1
            let length = Int64((8 * tau).rounded(.up))
            let from = max(start, position), to = min(start + length, end)
            guard from < to else { continue }
            let damping = 1 / tau, burst = 1 / (0.001 * rate), step = hz / rate
            let eventSeed = SeededRandom.bits(seed: seed, stream: 31, index: k)
            for c in 0..<channelCount {
                let g = level * GeneratorPan.gain(pan, channel: c, of: channelCount)
                let out = block.channel(c).baseAddress! + offset
                for n in from..<to {
                    let d = Double(n - start)
                    // A e^(−d/τ) sin(2π f d / rate) + A e^(−d / 1 ms) w(d)
                    let tone = Double.exp(-d * damping) * Double.sin(2 * Double.pi * step * d)
                    let click = Double.exp(-d * burst) * NoiseGenerator.white(seed: eventSeed, frame: n - start, channel: 0)
                    out[Int(n - position)] += Float(g * (tone + 0.6 * click))
                }
            }
        }
    }
}

/// ⌊a / b⌋ for b > 0 (Swift's `/` rounds towards zero).
@inline(__always)
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && a < 0) ? q - 1 : q
}
