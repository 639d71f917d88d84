import RealModule

/// A soft tone that breathes: it swells on the inhale, stays while the breath is held, fades on the exhale
/// and stays down while resting, cycle after cycle, from the event's own frame 0. The pitch may rise with the
/// breath (`glideSemitones`) and fall back with it.
///
/// A pattern is a list of phases (inhale, hold, exhale, rest), each a number of frames, repeated as cycles.
/// Within one cycle (m = n − k · cycleFrames, k = ⌊n / cycleFrames⌋):
///
///   level(m) = an `Envelope` through the phase boundaries: an inhale rises to 1 and an exhale falls to
///              `floor` along an s-curve, (1 − cos πt) / 2, with zero slope at both ends; a hold or a rest
///              keeps the level the phase before it reached (1 after an inhale, the floor after an exhale)
///   f(m)     = a `RateSchedule` through the same boundaries, f0 at the floor and f0 · 2^(glide / 12) at 1,
///              along the same s-curve (in Hz between the two: a glide of a few semitones sounds the same)
///   φ(n)     = k · C + cycles(m)                  (C = the cycles of one whole cycle, the same every time)
///   y(n)     = A · level(m) · (sin 2πφ + h · sin 4πφ) / peak     (h = 0.1, peak = 1.019: the wave's own peak)
///
/// The timbre is a sine with its octave 20 dB down: a pure sine is the softest sound there is, but the low
/// pacer tones (100 to 250 Hz) vanish on phone and laptop speakers, and one quiet octave keeps the tone
/// audible there while staying round (no higher harmonics, nothing that buzzes).
///
/// The level and pitch repeat exactly every cycle (the level at the end of a cycle is the level at its
/// start, since the pattern is read around the loop), and the phase is a closed form of the position, so
/// any block size and any partial render give bit-identical samples. With `cycles` set, the pacer is
/// silent after that many cycles, and `frameCount` is finite. Frames before 0 are silent.
///
/// Layout: the pattern, its phase starts, one `Envelope` and one `RateSchedule` for a single cycle, made in
/// `init`; `render` allocates nothing. It has no mutable state, so one pacer may render from several
/// threads at once.
public final class BreathingPacer: FrameSource {
    /// What the breath does in a phase. A plain enum value (`Sendable`); its raw value is the preset's name.
    public enum Kind: String, Sendable, CaseIterable { case inhale, hold, exhale, rest }

    /// One phase of the pattern: a value, `Sendable`; allocates nothing.
    public struct Phase: Sendable, Equatable {
        public var kind: Kind
        public var frames: Int64
        public init(_ kind: Kind, frames: Int64) { self.kind = kind; self.frames = frames }
    }

    /// Where one phase of one cycle lies on the pacer's timeline: a value, `Sendable`; allocates nothing.
    public struct PhaseStart: Sendable, Equatable {
        public var cycle: Int64
        /// The phase's index in `pattern`.
        public var index: Int
        public var kind: Kind
        public var start: Int64
        public var frames: Int64
    }

    public let pattern: [Phase]
    public let frequencyHz: Double
    public let glideSemitones: Double
    /// The level between breaths (after an exhale), from 0 to 1.
    public let floor: Float
    public let sampleRate: Int
    /// Peak amplitude (linear), reached at the top of each breath.
    public let amplitude: Float
    /// The number of cycles before the pacer falls silent; nil for endless.
    public let cycles: Int?
    public let channelCount: Int
    /// The frames of one whole cycle (the pattern's phases added up).
    public let cycleFrames: Int64
    public var frameCount: Int64? { cycles.map { Int64($0) * cycleFrames } }

    /// Where each phase starts within a cycle.
    private let starts: [Int64]
    /// The level and the pitch through one cycle, from frame 0 of the cycle.
    private let level: Envelope
    private let pitch: RateSchedule
    /// The cycles of the tone in one whole breathing cycle.
    private let cyclePhase: Double
    /// The octave's amplitude, and 1 / the peak of sin x + h sin 2x.
    private static let octave: Float = 0.1
    private let normalisation: Float

    public init(pattern: [Phase], frequencyHz: Double, glideSemitones: Double = 0, floor: Float = 0, sampleRate: Int,
                amplitude: Float, cycles: Int? = nil, channelCount: Int) {
        precondition(!pattern.isEmpty && pattern.allSatisfy { $0.frames > 0 }, "a breathing pattern needs phases of at least one frame")
        precondition(sampleRate > 0 && channelCount > 0, "a breathing pacer needs a positive rate and at least one channel")
        precondition(floor >= 0 && floor <= 1 && amplitude.isFinite, "a breathing pacer's floor lies between 0 and 1")
        let top = frequencyHz * _pow(2, glideSemitones / 12)
        precondition(frequencyHz > 0 && top > 0 && max(frequencyHz, top) < Double(sampleRate) / 2,
                     "a breathing pacer's frequencies must lie between 0 and half the sample rate")
        precondition(cycles.map { $0 >= 0 } ?? true, "a breathing pacer's number of cycles cannot be negative")
        self.pattern = pattern
        self.frequencyHz = frequencyHz
        self.glideSemitones = glideSemitones
        self.floor = floor
        self.sampleRate = sampleRate
        self.amplitude = amplitude
        self.cycles = cycles
        self.channelCount = channelCount

        // Where the breath is (0 down, 1 up) at the end of each phase, read twice around the loop so that the
        // first phases start from where the cycle ends (a pattern with no inhale or exhale stays down).
        var up = false
        var ends = [Bool](repeating: false, count: pattern.count)
        for pass in 0..<2 {
            for (k, phase) in pattern.enumerated() {
                if phase.kind == .inhale { up = true } else if phase.kind == .exhale { up = false }
                if pass == 1 { ends[k] = up }
            }
        }
        var starts: [Int64] = [], position: Int64 = 0
        var levels = [Envelope.Point(position: 0, value: ends.last! ? 1 : floor)]
        var rates = [RateSchedule.Point(position: 0, value: ends.last! ? top : frequencyHz)]
        for (k, phase) in pattern.enumerated() {
            starts.append(position)
            position += phase.frames
            levels.append(.init(position: position, value: ends[k] ? 1 : floor, curve: .sCurve))
            rates.append(.init(position: position, value: ends[k] ? top : frequencyHz, curve: .sCurve))
        }
        self.starts = starts
        cycleFrames = position
        level = Envelope(points: levels)
        pitch = RateSchedule(points: rates, sampleRate: sampleRate)
        cyclePhase = pitch.cycles(at: position)

        // peak of sin x + h sin 2x: where cos x + 2h cos 2x = 0, i.e. c = cos x = (√(1 + 32h²) − 1) / (8h)
        let h = Double(BreathingPacer.octave)
        let c = ((1 + 32 * h * h).squareRoot() - 1) / (8 * h), s = (1 - c * c).squareRoot()
        normalisation = Float(1 / (s + 2 * h * s * c))
    }

    /// The cycle of frame `n` and where `n` lies in it (n ≥ 0; before 0 the pattern is read backwards in time).
    @inline(__always)
    private func cycle(of n: Int64) -> (cycle: Int64, within: Int64) {
        let k = n >= 0 ? n / cycleFrames : -((-n - 1) / cycleFrames) - 1
        return (k, n - k * cycleFrames)
    }

    /// The phase that frame `n` lies in: its cycle, its index in the pattern, its kind and where it starts.
    public func phase(at n: Int64) -> PhaseStart {
        let (k, m) = cycle(of: n)
        var index = 0
        while index + 1 < starts.count && starts[index + 1] <= m { index += 1 }
        return PhaseStart(cycle: k, index: index, kind: pattern[index].kind, start: k * cycleFrames + starts[index],
                          frames: pattern[index].frames)
    }

    /// Every phase that starts in `range` (and before `frameCount`), in order: the breathing timeline.
    /// Allocates the array it returns.
    public func phaseStarts(in range: Range<Int64>) -> [PhaseStart] {
        let end = min(range.upperBound, frameCount ?? Int64.max)
        guard range.lowerBound < end else { return [] }
        var result: [PhaseStart] = []
        var p = phase(at: max(range.lowerBound, 0))
        if p.start < range.lowerBound { p = next(after: p) }
        while p.start < end {
            result.append(p)
            p = next(after: p)
        }
        return result
    }

    private func next(after p: PhaseStart) -> PhaseStart {
        let index = (p.index + 1) % pattern.count, cycle = p.cycle + (index == 0 ? 1 : 0)
        return PhaseStart(cycle: cycle, index: index, kind: pattern[index].kind,
                          start: cycle * cycleFrames + starts[index], frames: pattern[index].frames)
    }

    /// The breath's level at frame `n`, from `floor` to 1 (0 before frame 0 and after the last cycle).
    public func level(at n: Int64) -> Float {
        if n < 0 || n >= frameCount ?? Int64.max { return 0 }
        return level.value(at: cycle(of: n).within)
    }

    /// The tone's frequency at frame `n`, in Hz.
    public func hz(at n: Int64) -> Double { pitch.hz(at: cycle(of: n).within) }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let out = block.channel(0).baseAddress! + offset
        let end = frameCount ?? Int64.max
        let a = amplitude * normalisation, h = BreathingPacer.octave, twoPi = 2 * Float.pi
        for i in 0..<count {
            let n = position + Int64(i)
            if n < 0 || n >= end { out[i] = 0; continue }
            let (k, m) = cycle(of: n)
            // φ = k C + cycles(m), with the whole cycles of k C dropped first
            let whole = Double(k) * cyclePhase
            let p = twoPi * cycleFraction(whole - whole.rounded(.down) + pitch.cycles(at: m))
            // y = A level (sin 2πφ + h sin 4πφ) / peak
            out[i] = a * level.value(at: m) * (Float.sin(p) + h * Float.sin(2 * p))
        }
        for c in 1..<channelCount {
            Kernels.copy(out, to: block.channel(c).baseAddress! + offset, count: count)
        }
    }
}
