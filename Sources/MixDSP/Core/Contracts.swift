/// The contracts the DSP core needs from the outside world. MixIO implements them with
/// libsndfile, libsamplerate and FFTW; tests implement them with signals made in code.

/// Audio decoded from somewhere (a file), read as interleaved `Float` frames in [-1, 1].
///
/// A decoder keeps a read position, so callers use it from one thread at a time, though not always the
/// thread that made it (a read-ahead thread, the render thread): a conforming type must not be tied to
/// one thread. `read` runs once per block and should not allocate.
public protocol AudioDecoder: AnyObject {
    var sampleRate: Int { get }
    var channelCount: Int { get }
    /// Total frames, as the container reports it.
    var frameCount: Int64 { get }
    /// Reads up to `frames` interleaved frames into `buffer` (capacity `frames * channelCount`);
    /// returns the number of frames read, 0 at the end.
    func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int
    /// Moves the read position to `frame`.
    func seek(to frame: Int64) throws
}

/// A streaming sample-rate converter working on interleaved `Float` frames.
///
/// It holds filter state, so callers use it from one thread at a time (separate converters may run on
/// separate threads at once); `process` runs once per block on the render thread and should not allocate.
public protocol SampleRateConverter: AnyObject {
    var channelCount: Int { get }
    /// Output rate divided by input rate.
    var ratio: Double { get }
    /// Converts as much as fits; returns frames consumed from `input` and produced into `output`.
    /// Pass `endOfInput: true` (possibly with no input) to drain the filter's tail.
    func process(input: UnsafePointer<Float>, inputFrames: Int,
                 output: UnsafeMutablePointer<Float>, outputCapacity: Int,
                 endOfInput: Bool) throws -> (consumed: Int, produced: Int)
    /// Forgets all history, as if newly made.
    func reset() throws
}

/// Where rendered audio goes: interleaved `Float` frames, written in order.
///
/// Callers never call it from two threads at once, but may switch threads: in a render, `write` runs
/// on the encoder thread and `finish` on the render thread after that thread has ended. A conforming
/// type must not be tied to one thread.
public protocol AudioEncoder: AnyObject {
    func write(interleaved: UnsafePointer<Float>, frames: Int) throws
    /// Flushes and closes; no writes after this.
    func finish() throws
}

/// A real-to-complex forward FFT of a fixed size.
///
/// Callers use one instance from one thread at a time (an analyser owns its FFT); `forward` runs once per
/// frame and should not allocate.
public protocol RealFFT: AnyObject {
    var size: Int { get }
    /// Transforms `size` real samples into `size / 2 + 1` complex bins, written as separate
    /// real and imaginary arrays (unnormalised, like FFTW: a full-scale sine of bin k gives |X| = size/2).
    func forward(_ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>)
}

/// Quality of sample-rate conversion: three of libsamplerate's sinc converters and two of libsoxr's recipes
/// (named `soxr-` and the recipe, as SoX names them with `rate -h` and `rate -v`).
/// A plain enum value (`Sendable`); allocates nothing.
public enum ResamplerChoice: String, CaseIterable, Sendable {
    /// SRC_SINC_BEST_QUALITY: 97 dB SNR, 97 % bandwidth, about 21x realtime here.
    case best
    /// SRC_SINC_MEDIUM_QUALITY: 97 dB SNR, 90 % bandwidth (flat to 19.8 kHz from 44.1 kHz), about 70x realtime.
    case medium
    /// SRC_SINC_FASTEST: 97 dB SNR, 80 % bandwidth, about 120x realtime.
    case fast
    /// libsoxr SOXR_HQ: 20-bit precision (alias rejection well past 100 dB), 91.3 % bandwidth, linear phase;
    /// several times faster than `medium` (`bench --only resampler`, `--only preparation`).
    case soxrHQ = "soxr-hq"
    /// libsoxr SOXR_VHQ: 28-bit precision, 91.3 % bandwidth, linear phase.
    case soxrVHQ = "soxr-vhq"

    /// True for the libsoxr choices.
    public var isSoxr: Bool { self == .soxrHQ || self == .soxrVHQ }

    /// The default: flatter than `medium` (within 0.01 dB to 90 % of the lower Nyquist frequency, where `medium` is
    /// 2 dB down), less beside the signal (aliases and images 133 dB down against 119) and about 24 times faster
    /// (`bench --only resampler,transparency`).
    public static let `default` = ResamplerChoice.soxrHQ
}
