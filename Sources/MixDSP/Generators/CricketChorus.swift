import RealModule

/// A field of crickets at night from a seed: several individuals, each chirping at its own rate, pitch, level
/// and place in the stereo field, stopping and starting in bouts, over a quiet broadband night floor.
///
/// Individual j (of `individualCount`, 2 + 10 · I rounded, I the intensity) has, hashed from (seed, j):
/// a carrier fⱼ of 3.9 to 4.9 kHz, a level of 0.3 to 1, a place pⱼ in [−0.9, 0.9] (the field cut into equal
/// slots, one individual in each, jittered within it), an interaural phase θⱼ of ±(0.38 to 0.56) · π, a 2nd
/// harmonic 15 to 21 dB and a 3rd 18 to 25 dB below the carrier, a pulse spacing within ±4 % of the common one,
/// and a chirp rate of Dolbear's law within ±8 %:
///
///   chirps per minute N = 4 · (T°F − 50) + 40,  T°F = 1.8 · T°C + 32     (40 at 10 °C, 141 at 24 °C, 220 at 35 °C)
///
/// Chirp k of individual j starts at φⱼ + k · Pⱼ + jₖ (Pⱼ = 60 / N seconds, φⱼ in [0, Pⱼ), jₖ within ±4 % of Pⱼ)
/// and has 3 or 4 pulses (one chirp in eight 5), its own level (±10 %) and pitch (±0.4 %). Pulses are
/// S = 34 · 25 / (T°C + 3) ms apart (31 ms at 24 °C: the wing strokes quicken with warmth), each sounding for
/// L = 0.6 · S (19 ms at 24 °C) with a sharp onset, a slightly sagging body and a short decay:
///
///   e(d) = sin²(π d / 2A) for d < A (A = 1 ms), then (1 − 0.25 d / L) · (cos² of the last 4 ms)
///   pulse(d) = e(d) · (sin ψ + h₂ sin 2ψ + h₃ sin 3ψ) + click(d),  ψ = 2π f (d − 0.03 d² / 2L) / rate + θ
///   click(d) = 0.35 · (1 − d / τ) · e^(−d / τ),  τ = 0.08 ms   (the tooth strike; it sums to zero)
///
/// The carrier falls 3 % through each pulse. The left channel takes θ = 0, the right θⱼ: with the places' level
/// differences the field's inter-channel correlation stays near 0 to 0.3 (at most about cos(0.38 π) = 0.37 for any
/// seed), as in a real field where each cricket reaches the two ears by different paths. Every chirp's level is also scaled by
/// its bout's (16 chirps): silent with probability 0.25, else 0.6 to 1.
///
/// y = G · I / √(count) · Σⱼ levelⱼ · panⱼ · chirps + floor, G a measured scale that puts intensity 1 near
/// −18 dBFS RMS (see the tests). The floor is each channel's own counter-based white noise, smoothed by a
/// two-tap average (a gentle high cut), at 0.35 → −75 dBFS RMS, proportional to the intensity (−66 dBFS at 1):
/// between chirps the field never falls to digital silence. Carriers above 0.4 · rate are lowered to it,
/// harmonics at or above 0.45 · rate are dropped.
///
/// Stateless: every sample is a pure function of the position, so any block size and any partial render give
/// bit-identical samples, and seeking costs nothing. Silence between pulses costs no sine.
///
/// Layout: the individuals' parameters, the pulse envelope and the click (one table each) made in `init`;
/// `render` allocates nothing. It has no mutable state, so one chorus may render from several threads at once.
public final class CricketChorus: FrameSource {
    public let intensity: Double
    public let temperatureC: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    /// Scale bringing intensity 1 to about −18 dBFS RMS; measured (the tests).
    static let scale = 1.073
    static let boutChirps: Int64 = 16
    /// The floor's peak amplitude per unit intensity: two-tap average of uniform noise (RMS 0.408 of its peak),
    /// −75 dBFS RMS at intensity 0.35.
    static let floorScale = 1.245e-3
    static let clickLevel = 0.35

    /// One cricket. A plain value.
    struct Individual {
        var cyclesPerFrame: Double
        var harmonic2: Double
        var harmonic3: Double
        var level: Double
        var left: Double, right: Double      // equal-power gains of its place
        var cosTheta: Double, sinTheta: Double
        var pulsePeriodFrames: Double
        var periodFrames: Double
        var phaseFrames: Double
        var stream: UInt64
    }
    let individuals: [Individual]
    let pulseFrames: Int64
    /// e(d) for d in [0, pulseFrames); click(d) for its few dozen frames.
    private let envelope: [Float]
    private let click: [Float]
    private let chirpFrames: Int64
    private let amplitude: Double
    private let glide: Double
    private let floorGain: Float
    private let nyquistLimit: Double
    private let noiseSeed: UInt64

    /// Chirps per minute by Dolbear's law at `temperatureC`.
    public static func chirpsPerMinute(temperatureC: Double) -> Double { 4 * ((1.8 * temperatureC + 32) - 50) + 40 }

    /// How many crickets sing at `intensity`.
    public static func individualCount(intensity: Double) -> Int { Int((2 + 10 * min(max(intensity, 0), 1)).rounded()) }

    /// `individualCount` overrides the count that `intensity` gives (for tests and measurements).
    public init(intensity: Double, temperatureC: Double, seed: UInt64, sampleRate: Int, channelCount: Int, individualCount: Int? = nil) {
        self.intensity = min(max(intensity, 0), 1)
        self.temperatureC = min(max(temperatureC, 10), 35)
        self.seed = seed
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        let rate = Double(sampleRate)
        let perMinute = CricketChorus.chirpsPerMinute(temperatureC: self.temperatureC)
        let pulsePeriod = 0.034 * 25 / (self.temperatureC + 3) * rate
        pulseFrames = max(4, Int64((0.6 * pulsePeriod).rounded()))
        nyquistLimit = 0.45 * rate
        let count = min(max(individualCount ?? CricketChorus.individualCount(intensity: self.intensity), 1), 64)
        var list: [Individual] = []
        for j in 0..<count {
            let r = { (draw: UInt64) in SeededRandom.unit(seed: seed, stream: 40, index: Int64(j), draw: draw) }
            let hz = min(3900 + 1000 * r(0), 0.4 * rate)
            let period = 60 / (perMinute * (0.92 + 0.16 * r(1))) * rate
            // one slot of the field each (order does not matter: the other draws are independent of j)
            let place = -0.9 + 1.8 * (Double(j) + 0.5 + 0.7 * (r(3) - 0.5)) / Double(count)
            let pan = count == 1 ? (r(3) * 2 - 1) * 0.9 : place
            let theta = (r(6) < 0.5 ? -1.0 : 1.0) * Double.pi * (0.38 + 0.18 * r(7))
            let h2 = 2 * hz < nyquistLimit ? gain(fromDecibels: -15 - 6 * r(8)) : 0
            let h3 = 3 * hz < nyquistLimit ? gain(fromDecibels: -18 - 7 * r(9)) : 0
            list.append(Individual(cyclesPerFrame: hz / rate, harmonic2: h2, harmonic3: h3, level: 0.3 + 0.7 * r(2),
                                   left: GeneratorPan.gain(pan, channel: 0, of: 2), right: GeneratorPan.gain(pan, channel: 1, of: 2),
                                   cosTheta: Double.cos(theta), sinTheta: Double.sin(theta),
                                   pulsePeriodFrames: pulsePeriod * (0.96 + 0.08 * r(10)),
                                   periodFrames: period, phaseFrames: r(5) * period, stream: 41 + UInt64(j)))
        }
        individuals = list
        // Envelope: 1 ms sin² attack, a 25 % sag through the body, a 4 ms cos² release.
        let n = Int(pulseFrames)
        let attack = max(1.0, 0.001 * rate), release = min(max(2.0, 0.004 * rate), Double(n) / 2)
        envelope = (0..<n).map { i in
            let d = Double(i)
            var e = 1 - 0.25 * d / Double(n)
            if d < attack { let s = Double.sin(Double.pi / 2 * d / attack); e *= s * s }
            let tail = d - (Double(n) - release)
            if tail > 0 { let c = Double.cos(Double.pi / 2 * tail / release); e *= c * c }
            return Float(e)
        }
        let tau = 0.00008 * rate
        click = (0..<max(2, Int((14 * tau).rounded(.up)))).map { i in
            let u = Double(i) / tau
            return Float(CricketChorus.clickLevel * (1 - u) * Double.exp(-u))
        }
        glide = 0.03 / (2 * Double(n))
        chirpFrames = Int64((5 * 1.04 * pulsePeriod).rounded(.up)) + pulseFrames
        amplitude = CricketChorus.scale * self.intensity / Double(count).squareRoot()
        floorGain = Float(CricketChorus.floorScale * self.intensity)
        noiseSeed = SeededRandom.bits(seed: seed, stream: 42, index: 0x4E49_4748)           // "NIGH"
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        // The floor: each channel's white noise, averaged over two frames (w(n) + w(n − 1)) / 2.
        for c in 0..<channelCount {
            let out = block.channel(c).baseAddress! + offset
            let g = 0.5 * floorGain
            var previous = Float(NoiseGenerator.white(seed: noiseSeed, frame: position - 1, channel: c))
            for i in 0..<count {
                let w = Float(NoiseGenerator.white(seed: noiseSeed, frame: position + Int64(i), channel: c))
                out[i] = g * (w + previous)
                previous = w
            }
        }
        let end = position + Int64(count)
        for one in individuals {
            let jitterMax = 0.04 * one.periodFrames
            // chirps whose span [start, start + chirpFrames) may meet [position, end)
            var k = Int64(((Double(position - chirpFrames) - one.phaseFrames - jitterMax) / one.periodFrames).rounded(.down))
            let lastChirp = Int64(((Double(end) - one.phaseFrames + jitterMax) / one.periodFrames).rounded(.up))
            while k <= lastChirp {
                defer { k += 1 }
                guard k >= 0 else { continue }
                let bout = SeededRandom.unit(seed: seed, stream: one.stream, index: WarmStart.floorDiv(k, CricketChorus.boutChirps), draw: 7)
                guard bout >= 0.25 else { continue }
                let boutLevel = 0.6 + 0.4 * (bout - 0.25) / 0.75
                let r = { (draw: UInt64) in SeededRandom.unit(seed: self.seed, stream: one.stream, index: k, draw: draw) }
                let jitter = (r(0) * 2 - 1) * jitterMax
                let start = Int64((one.phaseFrames + Double(k) * one.periodFrames + jitter).rounded(.down))
                guard start < end && start + chirpFrames > position else { continue }
                let level = amplitude * one.level * boutLevel * (0.9 + 0.2 * r(1))
                let pitch = one.cyclesPerFrame * (0.996 + 0.008 * r(2))
                let pulses = r(3) < 0.125 ? 5 : (r(4) < 0.5 ? 3 : 4)
                for p in 0..<pulses {
                    let pulseStart = start + Int64((Double(p) * one.pulsePeriodFrames).rounded(.down))
                    let from = max(pulseStart, position), to = min(pulseStart + pulseFrames, end)
                    guard from < to else { continue }
                    addPulse(one, level: level, cyclesPerFrame: pitch, start: pulseStart, from: from, to: to,
                             into: block, offset: offset, at: position)
                }
            }
        }
    }

    /// Adds frames [from, to) of a pulse that starts at `start`.
    private func addPulse(_ one: Individual, level: Double, cyclesPerFrame: Double, start: Int64, from: Int64, to: Int64,
                          into block: AudioBlock, offset: Int, at position: Int64) {
        let left = Float(channelCount > 1 ? level * one.left : level)
        let right = Float(level * one.right)
        let h2 = Float(one.harmonic2), h3 = Float(one.harmonic3)
        let ct = Float(one.cosTheta), st = Float(one.sinTheta)
        let glide = self.glide
        let stereo = channelCount > 1
        envelope.withUnsafeBufferPointer { env in
            click.withUnsafeBufferPointer { tick in
                for n in from..<to {
                    let d = Int(n - start)
                    let dd = Double(d)
                    let cycles = cyclesPerFrame * (dd - glide * dd * dd)
                    let phase = 2 * Float.pi * Float(cycles - cycles.rounded(.down))
                    let s = Float.sin(phase), c = Float.cos(phase)
                    let e = env[d]
                    let k = d < tick.count ? tick[d] : 0
                    // sin 2ψ = 2 sin ψ cos ψ, sin 3ψ = sin ψ (3 − 4 sin² ψ): one sine and cosine per frame
                    let xl = e * s * (1 + 2 * h2 * c + h3 * (3 - 4 * s * s)) + k
                    let i = offset + Int(n - position)
                    block.channel(0)[i] += left * xl
                    guard stereo else { continue }
                    let sr = s * ct + c * st, cr = c * ct - s * st      // ψ + θ
                    let xr = e * sr * (1 + 2 * h2 * cr + h3 * (3 - 4 * sr * sr)) + k
                    block.channel(1)[i] += right * xr
                    for ch in stride(from: 2, to: channelCount, by: 1) {
                        block.channel(ch)[i] += ch % 2 == 0 ? left * xl : right * xr
                    }
                }
            }
        }
    }
}
