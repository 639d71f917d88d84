import RealModule

/// Isochronic pulses: a carrier tone switched on and off at a pulse rate that follows a `RateSchedule`,
/// with raised-cosine edges so that no pulse clicks:
///
///   p(n) = fract(pulse.cycles(at: n))                      (where frame n falls in its pulse, 0 ..< 1; read by a
///                                                           `RateSchedule.Reader`, exact at anchors)
///   g(p) = (1 − cos(π p / e)) / 2                  for 0 ≤ p < e              (rise)
///          1                                       for e ≤ p < d − e          (on)
///          (1 + cos(π (p − (d − e)) / e)) / 2      for d − e ≤ p < d          (fall)
///          0                                       for d ≤ p < 1              (off)
///   y(n) = A · g(p(n)) · sin(2π · fc · n / rate)
///
/// with d the duty (the on fraction of a pulse, edges included) and e the edge (the fraction of a pulse
/// each edge takes). The gate's steepest change is π / (2 e) per cycle, π / (2 · edgeFrames) per frame, with
/// edgeFrames = e · rate / pulse rate. The pulse phase is the schedule's integral, so the pulses stay evenly
/// spaced through ramps and steps of the rate. Every sample comes from its own position, so any block size
/// and any partial render give bit-identical samples; phases are reduced to [0, 1) in Double (see
/// `ToneGenerator` and `RateSchedule` for the precision).
///
/// Layout: no buffers; the same signal on every channel (the first computed, the others copied). `render`
/// allocates nothing. It has no mutable state, so one generator may render from several threads at once.
public final class IsochronicGenerator: FrameSource {
    public let carrierHz: Double
    public let pulse: RateSchedule
    /// The on fraction of each pulse, edges included (0 < duty < 1).
    public let duty: Double
    /// The fraction of a pulse each raised-cosine edge takes (0 < edge, 2 · edge ≤ duty).
    public let edge: Double
    public let sampleRate: Int
    /// Peak amplitude (linear).
    public let amplitude: Float
    public let channelCount: Int
    public var frameCount: Int64? { nil }
    /// fc / rate: carrier cycles per frame.
    private let increment: Double

    public init(carrierHz: Double, pulse: RateSchedule, duty: Double = 0.5, edge: Double = 0.1, sampleRate: Int,
                amplitude: Float, channelCount: Int) {
        precondition(sampleRate > 0 && channelCount > 0 && pulse.sampleRate == sampleRate,
                     "isochronic pulses need a positive rate, a schedule at that rate and at least one channel")
        precondition(carrierHz.isFinite && carrierHz > 0 && carrierHz < Double(sampleRate) / 2,
                     "an isochronic carrier must lie between 0 and half the sample rate")
        precondition(duty > 0 && duty < 1 && edge > 0 && 2 * edge <= duty,
                     "an isochronic pulse needs 0 < duty < 1 and edges with 0 < 2 · edge ≤ duty")
        precondition(amplitude.isFinite, "isochronic pulses' amplitude must be finite")
        self.carrierHz = carrierHz
        self.pulse = pulse
        self.duty = duty
        self.edge = edge
        self.sampleRate = sampleRate
        self.amplitude = amplitude
        self.channelCount = channelCount
        increment = carrierHz / Double(sampleRate)
    }

    /// The gate at pulse phase `p` (0 ..< 1), from 0 to 1.
    @inline(__always)
    func gate(phase p: Double) -> Double {
        if p >= duty { return 0 }
        if p < edge {
            // g = (1 − cos(π p / e)) / 2
            return (1 - _cos(Double.pi * p / edge)) / 2
        }
        let fall = duty - edge
        if p < fall { return 1 }
        // g = (1 + cos(π (p − (d − e)) / e)) / 2
        return (1 + _cos(Double.pi * (p - fall) / edge)) / 2
    }

    /// The gate at frame `n`, from 0 to 1 (the envelope `render` applies to the carrier).
    public func gate(at n: Int64) -> Double {
        let cycles = pulse.cycles(at: n)
        return gate(phase: cycles - cycles.rounded(.down))
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let out = block.channel(0).baseAddress! + offset
        let a = amplitude
        var reader = RateSchedule.Reader(pulse, at: position)
        for i in 0..<count {
            let n = position + Int64(i)
            let cycles = reader.cycles(at: n)
            let g = gate(phase: cycles - cycles.rounded(.down))
            // y = A g sin(2π fc n / rate)   (silence between pulses costs no sine)
            out[i] = g == 0 ? 0 : a * Float(g) * sinCycles(cycleFraction(Double(n) * increment))
        }
        for c in 1..<channelCount {
            Kernels.copy(out, to: block.channel(c).baseAddress! + offset, count: count)
        }
    }
}
