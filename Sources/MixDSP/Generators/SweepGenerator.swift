import RealModule

/// A sine whose frequency glides from `from` to `to` Hz over `T` frames along an exponential (equal musical steps
/// per second: an octave takes as long at 400 Hz as at 100 Hz), then holds `to`. Computed from the frame position:
///
///   f(n) = f0 · r^(n/T)  for n ≤ T, with r = f1 / f0;  f(n) = f1 after
///   cycles(n) = f0 · T · (r^(n/T) − 1) / (rate · ln r)            for n ≤ T   (f0 · n / rate when r = 1)
///   cycles(n) = cycles(T) + f1 · (n − T) / rate                   after
///   y(n) = A · sin(2π · fract(cycles(n)))
///
/// The phase is the integral of the frequency, so the glide is smooth (no step in phase or frequency anywhere), and
/// every sample comes from its own position, never from an accumulated phase: any block size and any partial render
/// give bit-identical samples, and a window hours in costs what one at the start does. Precision: `cycles` is a
/// Double; at the worst the preset allows (24 kHz for 100 hours, 8.6e9 cycles) its rounding is under 2e-6 of a
/// cycle, a phase error about 100 dB below the tone.
///
/// Layout: no buffers; the same signal is written to every channel (the first computed, the others copied).
/// `render` allocates nothing. It has no mutable state, so one generator may render from several threads at once.
public final class SweepGenerator: FrameSource {
    public let fromHz: Double
    public let toHz: Double
    /// How long the glide takes, in frames (0: `to` from the start).
    public let glideFrames: Int64
    public let sampleRate: Int
    /// Peak amplitude (linear).
    public let amplitude: Float
    public let channelCount: Int
    public var frameCount: Int64? { nil }
    /// ln(to / from), and the cycles at the glide's end.
    private let logRatio: Double
    private let glideCycles: Double

    public init(fromHz: Double, toHz: Double, glideFrames: Int64, sampleRate: Int, amplitude: Float, channelCount: Int) {
        precondition(sampleRate > 0 && channelCount > 0 && glideFrames >= 0, "a sweep needs a positive rate, a channel and a glide of 0 or more frames")
        precondition([fromHz, toHz].allSatisfy { $0.isFinite && $0 > 0 && $0 < Double(sampleRate) / 2 },
                     "a sweep's frequencies must lie between 0 and half the sample rate")
        self.fromHz = fromHz
        self.toHz = toHz
        self.glideFrames = glideFrames
        self.sampleRate = sampleRate
        self.amplitude = amplitude
        self.channelCount = channelCount
        logRatio = Double.log(toHz / fromHz)
        glideCycles = Self.cycles(glideFrames, from: fromHz, logRatio: logRatio, glideFrames: glideFrames, rate: Double(sampleRate))
    }

    /// Cycles from frame 0 to frame `n` (at most `glideFrames`) of the glide.
    private static func cycles(_ n: Int64, from f0: Double, logRatio k: Double, glideFrames: Int64, rate: Double) -> Double {
        guard glideFrames > 0 else { return 0 }
        let t = Double(n) / Double(glideFrames)
        // (r^t − 1) / ln r, written with expm1 so that a glide between close frequencies (r near 1) keeps its precision.
        let shape = abs(k) < 1e-12 ? t : Double.expMinusOne(k * t) / k
        return f0 * Double(glideFrames) * shape / rate
    }

    /// The phase of frame `n`, in cycles, 0 ..< 1.
    @inline(__always)
    func phase(at n: Int64) -> Float {
        let rate = Double(sampleRate)
        let c = n <= glideFrames
            ? Self.cycles(n, from: fromHz, logRatio: logRatio, glideFrames: glideFrames, rate: rate)
            : glideCycles + toHz * Double(n - glideFrames) / rate
        let p = Float(c - c.rounded(.down))
        return p < 1 ? p : 0      // rounding to Float can reach 1.0
    }

    /// The frequency at frame `n`, in Hz.
    public func frequency(at n: Int64) -> Double {
        n >= glideFrames ? toHz : fromHz * Double.exp(logRatio * Double(n) / Double(glideFrames))
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let out = block.channel(0).baseAddress! + offset
        let a = amplitude, twoPi = 2 * Float.pi
        for i in 0..<count {
            out[i] = a * Float.sin(twoPi * phase(at: position + Int64(i)))
        }
        for c in 1..<channelCount {
            Kernels.copy(out, to: block.channel(c).baseAddress! + offset, count: count)
        }
    }
}
