import RealModule

/// A chorus of field crickets from a seed: several individuals, each chirping at its own rate, pitch, level
/// and place in the stereo field, stopping and starting in bouts.
///
/// Individual j (of `individualCount`, 2 + 10 · I rounded, I the intensity) has, hashed from (seed, j):
/// a carrier fⱼ of 3.8 to 4.8 kHz, a level of 0.3 to 1, a pan in [−0.9, 0.9], 3 to 5 pulses a chirp, and a
/// chirp rate of Dolbear's law within ±10 %:
///
///   chirps per minute N = 4 · (T°F − 50) + 40,  T°F = 1.8 · T°C + 32     (40 at 10 °C, 112 at 20 °C, 220 at 35 °C)
///
/// Chirp k of individual j starts at φⱼ + k · Pⱼ + jₖ (Pⱼ = 60 / N seconds, φⱼ in [0, Pⱼ), jₖ within ±4 % of Pⱼ).
/// Its pulses are 34 · 25 / (T°C + 3) ms apart (the wing strokes also quicken with warmth), each sounding for
/// 60 % of that with a sin² envelope:
///
///   pulse(d) = sin²(π d / L) · (sin(2π fⱼ d / rate) + 0.06 · sin(4π fⱼ d / rate))   (d from the pulse's start)
///
/// Every chirp's level is scaled by its bout's (16 chirps): silent with probability 0.25, else 0.6 to 1, and
/// by ±10 % of its own. y = G · I / √(count) · Σⱼ levelⱼ · pan · chirps, G a measured scale that puts
/// intensity 1 near −18 dBFS RMS (see the tests). Carriers above 0.4 · rate are lowered to it, harmonics at or
/// above Nyquist are dropped.
///
/// Stateless: every sample is a pure function of the position, so any block size and any partial render give
/// bit-identical samples, and seeking costs nothing. Silence between pulses costs no sine.
///
/// Layout: the individuals' parameters in one array made in `init`; `render` allocates nothing. It has no
/// mutable state, so one chorus may render from several threads at once.
public final class CricketChorus: FrameSource {
    public let intensity: Double
    public let temperatureC: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    /// Scale bringing intensity 1 to about −18 dBFS RMS; measured (the tests).
    static let scale = 1.29
    static let boutChirps: Int64 = 16

    /// One cricket. A plain value.
    struct Individual {
        var cyclesPerFrame: Double
        var harmonic: Double
        var level: Double
        var pan: Double
        var pulses: Int
        var periodFrames: Double
        var phaseFrames: Double
        var stream: UInt64
    }
    let individuals: [Individual]
    let pulsePeriodFrames: Double
    let pulseFrames: Int64
    private let chirpFrames: Int64
    private let gain: Double

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
        pulsePeriodFrames = 0.034 * 25 / (self.temperatureC + 3) * rate
        pulseFrames = max(2, Int64((0.6 * pulsePeriodFrames).rounded()))
        let count = min(max(individualCount ?? CricketChorus.individualCount(intensity: self.intensity), 1), 64)
        var list: [Individual] = []
        for j in 0..<count {
            let r = { (draw: UInt64) in SeededRandom.unit(seed: seed, stream: 40, index: Int64(j), draw: draw) }
            let hz = min(3800 + 1000 * r(0), 0.4 * rate)
            let period = 60 / (perMinute * (0.9 + 0.2 * r(1))) * rate
            list.append(Individual(cyclesPerFrame: hz / rate, harmonic: 2 * hz < rate / 2 ? 0.06 : 0,
                                   level: 0.3 + 0.7 * r(2), pan: (r(3) * 2 - 1) * 0.9, pulses: 3 + Int(r(4) * 3),
                                   periodFrames: period, phaseFrames: r(5) * period, stream: 41 + UInt64(j)))
        }
        individuals = list
        chirpFrames = Int64((5 * pulsePeriodFrames).rounded(.up)) + pulseFrames
        gain = CricketChorus.scale * self.intensity / Double(count).squareRoot()
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        for c in 0..<channelCount {
            let out = block.channel(c).baseAddress! + offset
            for i in 0..<count { out[i] = 0 }
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
                let bout = SeededRandom.unit(seed: seed, stream: one.stream, index: floorDiv(k, CricketChorus.boutChirps), draw: 7)
                guard bout >= 0.25 else { continue }
                let boutLevel = 0.6 + 0.4 * (bout - 0.25) / 0.75
                let jitter = (SeededRandom.unit(seed: seed, stream: one.stream, index: k, draw: 0) * 2 - 1) * jitterMax
                let start = Int64((one.phaseFrames + Double(k) * one.periodFrames + jitter).rounded(.down))
                let level = gain * one.level * boutLevel * (0.9 + 0.2 * SeededRandom.unit(seed: seed, stream: one.stream, index: k, draw: 1))
                for p in 0..<one.pulses {
                    let pulseStart = start + Int64((Double(p) * pulsePeriodFrames).rounded(.down))
                    let from = max(pulseStart, position), to = min(pulseStart + pulseFrames, end)
                    guard from < to else { continue }
                    addPulse(one, level: level, start: pulseStart, from: from, to: to, into: block, offset: offset, at: position)
                }
            }
        }
    }

    /// Adds frames [from, to) of a pulse that starts at `start`.
    private func addPulse(_ one: Individual, level: Double, start: Int64, from: Int64, to: Int64,
                          into block: AudioBlock, offset: Int, at position: Int64) {
        let shape = Double.pi / Double(pulseFrames)
        let left = Float(level * GeneratorPan.gain(one.pan, channel: 0, of: channelCount))
        let right = Float(level * GeneratorPan.gain(one.pan, channel: 1, of: channelCount))
        let harmonic = Float(one.harmonic)
        for n in from..<to {
            let d = Double(n - start)
            let e = Double.sin(shape * d)
            let cycles = one.cyclesPerFrame * d
            let phase = Float(cycles - cycles.rounded(.down))
            let x = Float(e * e) * (Float.sin(2 * Float.pi * phase) + harmonic * Float.sin(4 * Float.pi * phase))
            let i = offset + Int(n - position)
            for c in 0..<channelCount {
                block.channel(c)[i] += (c % 2 == 0 ? left : right) * x
            }
        }
    }
}
