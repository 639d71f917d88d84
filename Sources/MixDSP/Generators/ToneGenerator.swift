import RealModule

/// A periodic wave at a frequency (a sine or a triangle), computed from the absolute frame position:
///
///   phase(n) = fract(phase0 + n · f / rate)          (in cycles, 0 ..< 1)
///   sine:     y(n) = A · sin(2π · phase(n))
///   triangle: y(n) = A · (4 · |phase(n) − floor(phase(n) + 3/4) + 1/4| − 1)   (0, +A, 0, −A at phases 0, ¼, ½, ¾)
///
/// Every sample comes from its own position, never from an accumulated phase, so any block size and any
/// partial render (`render` at any position, in any order) give bit-identical samples. Precision: n · f /
/// rate is a Double; at the worst case the preset allows (24 kHz for 8 hours, 6.9e8 cycles) its rounding is
/// below 1.2e-7 of a cycle, and the phase is then reduced to [0, 1) and taken to Float (2^-24 of a cycle):
/// a phase error under 1e-6 rad, more than 120 dB below the tone. The triangle is not band-limited: its
/// harmonics above Nyquist fold back, which is inaudible at the low frequencies it is meant for (a drone,
/// a carrier below a few hundred Hz: the first alias of a 200 Hz triangle at 48 kHz is more than 40 dB down).
///
/// Layout: no buffers; the same signal is written to every channel (the first computed, the others copied).
/// `render` allocates nothing. It has no mutable state, so one generator may render from several threads at
/// once.
public final class ToneGenerator: FrameSource {
    /// The shape of one cycle (a value, `Sendable`; its raw value is the preset's name for it).
    public enum Waveform: String, Sendable, CaseIterable {
        case sine, triangle
    }

    public let waveform: Waveform
    public let frequencyHz: Double
    public let sampleRate: Int
    /// Peak amplitude (linear).
    public let amplitude: Float
    /// Phase at frame 0, in cycles.
    public let phase: Double
    public let channelCount: Int
    public var frameCount: Int64? { nil }
    /// f / rate: cycles per frame.
    private let increment: Double

    public init(waveform: Waveform, frequencyHz: Double, sampleRate: Int, amplitude: Float, phase: Double = 0,
                channelCount: Int) {
        precondition(sampleRate > 0 && channelCount > 0, "a tone needs a positive rate and at least one channel")
        precondition(frequencyHz.isFinite && frequencyHz > 0 && frequencyHz < Double(sampleRate) / 2,
                     "a tone's frequency must lie between 0 and half the sample rate")
        precondition(amplitude.isFinite && phase.isFinite, "a tone's amplitude and phase must be finite")
        self.waveform = waveform
        self.frequencyHz = frequencyHz
        self.sampleRate = sampleRate
        self.amplitude = amplitude
        self.phase = phase - phase.rounded(.down)
        self.channelCount = channelCount
        increment = frequencyHz / Double(sampleRate)
    }

    /// The phase of frame `n`, in cycles, 0 ..< 1.
    @inline(__always)
    func phase(at n: Int64) -> Float {
        let cycles = phase + Double(n) * increment
        let p = Float(cycles - cycles.rounded(.down))
        return p < 1 ? p : 0      // rounding to Float can reach 1.0
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let out = block.channel(0).baseAddress! + offset
        let a = amplitude
        switch waveform {
        case .sine:
            let twoPi = 2 * Float.pi
            for i in 0..<count {
                // y = A sin(2π phase)
                out[i] = a * Float.sin(twoPi * phase(at: position + Int64(i)))
            }
        case .triangle:
            for i in 0..<count {
                let p = phase(at: position + Int64(i))
                // y = A (4 |p − floor(p + 3/4) + 1/4| − 1)
                out[i] = a * (4 * abs(p - (p + 0.75).rounded(.down) + 0.25) - 1)
            }
        }
        for c in 1..<channelCount {
            Kernels.copy(out, to: block.channel(c).baseAddress! + offset, count: count)
        }
    }
}
