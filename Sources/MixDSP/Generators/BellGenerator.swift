import RealModule

/// A struck bell: a sum of inharmonic partials, each dying away exponentially, the higher ones sooner,
/// started by a few milliseconds' raised-cosine attack so the strike does not click:
///
///   y(n) = S · a(n) · r(n) · Σₖ gₖ · e^(−n / (τₖ · rate)) · sin(2π · fract(ρₖ · f0 · n / rate))
///   τₖ   = Tₖ / ln 1000                  (Tₖ: the partial's time to fall 60 dB; the longest is `decaySeconds`)
///   a(n) = (1 − cos(π n / attack)) / 2   for n < attack (5 ms), else 1
///   r(n) = (1 + cos(π (n − (N − release)) / release)) / 2   in the last 50 ms before N, else 1
///
/// where S scales the bell's peak to `amplitude` (found in `init` from its first quarter second) and
/// N = `frameCount` = decaySeconds · rate, when the longest partial is 60 dB below where it started and the
/// sum more than 60 dB below its peak; the last 50 ms fade to exact silence, so the end does not click either.
///
/// The partials (`BellGenerator.partials`) are those of a tuned church bell, which is also how a meditation
/// bell (a small bronze bell or a bowl struck once) is heard: hum 0.5, prime 1, tierce 1.2 (the minor third
/// that makes a bell sound like a bell), quint 1.5, nominal 2, and above them 2.5, 2.66, 3 and 4, whose
/// near neighbours (2.5 and 2.66) shimmer against each other. The hum is the quiet, long drone that remains;
/// the prime and the nominal carry the pitch; the upper partials are the bright strike and are gone within a
/// fifth of the decay. Partials at or above Nyquist are dropped.
///
/// Deterministic from the position (0 is the strike), so any block size and any partial render give
/// bit-identical samples; silent before 0 and from `frameCount` on. Each partial's phase is reduced to [0, 1)
/// in Double; its sine and its decay are taken in Float (a third faster than in Double, and exact to 1e-7 of
/// the partial, far below what a −60 dB tail needs), and the partials are summed in Double.
///
/// Layout: the sounding partials, and their increments, gains and dampings, in four short arrays made in
/// `init`; `render` allocates nothing. It has no mutable state, so one bell may render from several threads
/// at once.
public final class BellGenerator: FrameSource {
    /// One partial: its frequency as a multiple of the fundamental, its amplitude before scaling, and its
    /// time to fall 60 dB as a fraction of `decaySeconds`. A value, `Sendable`; allocates nothing.
    public struct Partial: Sendable, Equatable {
        public var ratio: Double
        public var amplitude: Double
        public var decay: Double
    }

    /// The partials of the bell, lowest first.
    public static let partials: [Partial] = [
        Partial(ratio: 0.5, amplitude: 0.35, decay: 1.0),     // hum
        Partial(ratio: 1.0, amplitude: 1.0, decay: 0.75),     // prime (strike note)
        Partial(ratio: 1.2, amplitude: 0.45, decay: 0.55),    // tierce
        Partial(ratio: 1.5, amplitude: 0.25, decay: 0.45),    // quint
        Partial(ratio: 2.0, amplitude: 0.55, decay: 0.4),     // nominal
        Partial(ratio: 2.5, amplitude: 0.2, decay: 0.25),
        Partial(ratio: 2.66, amplitude: 0.18, decay: 0.22),
        Partial(ratio: 3.0, amplitude: 0.12, decay: 0.18),
        Partial(ratio: 4.0, amplitude: 0.08, decay: 0.12),
    ]

    /// The attack and the final release, in seconds.
    public static let attackSeconds = 0.005
    public static let releaseSeconds = 0.05

    public let fundamentalHz: Double
    public let decaySeconds: Double
    public let sampleRate: Int
    /// The bell's peak (linear), exact when the peak lies in the first quarter second (as it does for these partials).
    public let amplitude: Float
    public let channelCount: Int
    public let frameCount: Int64?
    /// The partials below Nyquist.
    public let sounding: [Partial]

    /// Per sounding partial: cycles per frame, gain (scale included) and 1 / (τ · rate).
    private let increments: [Double]
    private let gains: [Double]
    private let dampings: [Double]
    private let attackFrames: Int64
    private let releaseFrames: Int64

    public init(fundamentalHz: Double, decaySeconds: Double, sampleRate: Int, amplitude: Float, channelCount: Int) {
        precondition(sampleRate > 0 && channelCount > 0, "a bell needs a positive rate and at least one channel")
        precondition(fundamentalHz.isFinite && fundamentalHz > 0 && fundamentalHz < Double(sampleRate) / 2,
                     "a bell's fundamental must lie between 0 and half the sample rate")
        precondition(decaySeconds.isFinite && decaySeconds >= 4 * BellGenerator.releaseSeconds,
                     "a bell's decay must be finite and at least 0.2 s")
        precondition(amplitude.isFinite, "a bell's amplitude must be finite")
        self.fundamentalHz = fundamentalHz
        self.decaySeconds = decaySeconds
        self.sampleRate = sampleRate
        self.amplitude = amplitude
        self.channelCount = channelCount
        let rate = Double(sampleRate)
        sounding = BellGenerator.partials.filter { $0.ratio * fundamentalHz < rate / 2 }
        increments = sounding.map { $0.ratio * fundamentalHz / rate }
        // τ = T / ln 1000, per frame: 1 / (τ rate) = ln 1000 / (T rate)
        dampings = sounding.map { Double.log(1000) / ($0.decay * decaySeconds * rate) }
        frameCount = Int64((decaySeconds * rate).rounded())
        attackFrames = max(1, Int64((BellGenerator.attackSeconds * rate).rounded()))
        releaseFrames = max(1, Int64((BellGenerator.releaseSeconds * rate).rounded()))

        // S: amplitude / the unscaled bell's peak over its first quarter second.
        let unscaled = sounding.map(\.amplitude)
        var largest = 0.0
        for n in 0..<min(frameCount!, Int64(rate / 4)) {
            let y = BellGenerator.sum(at: n, increments: increments, gains: unscaled, dampings: dampings)
            largest = max(largest, abs(y) * BellGenerator.attack(n, frames: attackFrames))
        }
        gains = unscaled.map { $0 * Double(amplitude) / largest }
    }

    /// The sum of the partials at frame n, without the attack and the release.
    @inline(__always)
    private static func sum(at n: Int64, increments: [Double], gains: [Double], dampings: [Double]) -> Double {
        var sum = 0.0
        for k in 0..<gains.count {
            let cycles = Double(n) * increments[k]
            // gₖ e^(−n / (τₖ rate)) sin(2π fract(ρₖ f0 n / rate))
            let decay = Float.exp(Float(-Double(n) * dampings[k]))
            sum += gains[k] * Double(decay * Float.sin(2 * Float.pi * cycleFraction(cycles)))
        }
        return sum
    }

    /// The attack at frame n: a = (1 − cos(π n / attack)) / 2 for n < attack, else 1.
    @inline(__always)
    private static func attack(_ n: Int64, frames: Int64) -> Double {
        n < frames ? (1 - _cos(Double.pi * Double(n) / Double(frames))) / 2 : 1
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let out = block.channel(0).baseAddress! + offset
        let end = frameCount!, releaseStart = end - releaseFrames
        for i in 0..<count {
            let n = position + Int64(i)
            if n < 0 || n >= end { out[i] = 0; continue }
            var y = BellGenerator.sum(at: n, increments: increments, gains: gains, dampings: dampings)
            if n < attackFrames { y *= BellGenerator.attack(n, frames: attackFrames) }
            if n >= releaseStart {
                // r = (1 + cos(π (n − (N − release)) / release)) / 2
                y *= (1 + _cos(Double.pi * Double(n - releaseStart) / Double(releaseFrames))) / 2
            }
            out[i] = Float(y)
        }
        for c in 1..<channelCount {
            Kernels.copy(out, to: block.channel(c).baseAddress! + offset, count: count)
        }
    }
}
