import Foundation
import MixDSP

/// Measures a sample-rate converter on exact sines: the converter's output is compared with the analytic
/// sine at the output rate (not with another resampler), away from the edges where the filter sees the
/// silence before and after the signal. Used by the resampler tests and by `bench --only transparency`.
///
/// Allocates the signals (a few seconds of mono `Float`); pure arithmetic otherwise, in `Double`.
public enum ResamplerProbe {
    /// What one sine came out as.
    public struct Sine: Sendable {
        /// Amplitude out over amplitude in, least-squares fitted at the sine's frequency, in dB.
        public var gainDb: Double
        /// Power of the exact sine over power of (output - exact sine), in dB: counts every error (gain, phase
        /// or delay, aliasing and imaging, noise).
        public var snrDb: Double
        /// Power of the exact sine over power of what is left after the fitted sine is removed (aliases, images,
        /// noise; not the passband's gain or phase), in dB.
        public var residueDb: Double
    }

    /// Converts `seconds` of a sine of `amplitude` at `frequency` Hz (mono) from `inputRate` to `outputRate`,
    /// in `chunk`-frame input pieces, and measures the output frames in [edge, length - edge) seconds.
    public static func sine(frequency: Double, inputRate: Int, outputRate: Int, seconds: Double = 2, edge: Double = 0.25,
                            amplitude: Double = 0.5, chunk: Int = 8192, makeConverter: ConverterFactory) throws -> Sine {
        let output = try convert(frequency: frequency, inputRate: inputRate, outputRate: outputRate, seconds: seconds,
                                 amplitude: amplitude, chunk: chunk, makeConverter: makeConverter)
        let first = Int(edge * Double(outputRate)), last = output.count - first
        precondition(last - first > outputRate / 10, "too short to measure")
        let w = 2 * Double.pi * frequency / Double(outputRate)
        var signal = 0.0, error = 0.0, s = 0.0, c = 0.0, ss = 0.0, cc = 0.0, sc = 0.0
        for m in first..<last {
            let sinm = Self.sin(w * Double(m)), cosm = Self.cos(w * Double(m))
            let exact = amplitude * sinm, y = Double(output[m])
            signal += exact * exact
            error += (y - exact) * (y - exact)
            s += y * sinm; c += y * cosm; ss += sinm * sinm; cc += cosm * cosm; sc += sinm * cosm
        }
        // Least squares y ≈ a sin + b cos.
        let det = ss * cc - sc * sc
        let a = (s * cc - c * sc) / det, b = (c * ss - s * sc) / det
        var residue = 0.0
        for m in first..<last {
            let fit = a * Self.sin(w * Double(m)) + b * Self.cos(w * Double(m))
            let r = Double(output[m]) - fit
            residue += r * r
        }
        return Sine(gainDb: 20 * log10((a * a + b * b).squareRoot() / amplitude),
                    snrDb: 10 * log10(signal / max(error, 1e-300)),
                    residueDb: 10 * log10(signal / max(residue, 1e-300)))
    }

    /// Level of the output, in dB relative to the input sine's, for a sine the converter should remove (above
    /// the output's Nyquist frequency when downsampling), measured away from the edges.
    public static func rejectionDb(frequency: Double, inputRate: Int, outputRate: Int, seconds: Double = 2, edge: Double = 0.25,
                                   makeConverter: ConverterFactory) throws -> Double {
        let amplitude = 0.5
        let output = try convert(frequency: frequency, inputRate: inputRate, outputRate: outputRate, seconds: seconds,
                                 amplitude: amplitude, chunk: 8192, makeConverter: makeConverter)
        let first = Int(edge * Double(outputRate)), last = output.count - first
        var power = 0.0
        for m in first..<last { power += Double(output[m]) * Double(output[m]) }
        power /= Double(last - first)
        return 10 * log10(max(power, 1e-300) / (amplitude * amplitude / 2))
    }

    /// The converter's whole output for the sine, its tail drained.
    public static func convert(frequency: Double, inputRate: Int, outputRate: Int, seconds: Double, amplitude: Double,
                               chunk: Int, makeConverter: ConverterFactory) throws -> [Float] {
        let frames = Int(seconds * Double(inputRate))
        let w = 2 * Double.pi * frequency / Double(inputRate)
        let input = (0..<frames).map { Float(amplitude * Self.sin(w * Double($0))) }
        let converter = try makeConverter(1, inputRate, outputRate)
        var output = [Float](repeating: 0, count: Int(Double(frames) * Double(outputRate) / Double(inputRate)) + 2 * chunk + 64)
        var used = 0, made = 0
        try input.withUnsafeBufferPointer { inBuf in
            try output.withUnsafeMutableBufferPointer { outBuf in
                while true {
                    let piece = min(chunk, frames - used)
                    let room = min(chunk, outBuf.count - made)
                    precondition(room > 0, "the converter made more than the ratio allows")
                    let (u, m) = try converter.process(input: inBuf.baseAddress! + used, inputFrames: piece,
                                                       output: outBuf.baseAddress! + made, outputCapacity: room,
                                                       endOfInput: used + piece == frames)
                    used += u; made += m
                    if m == 0 && used == frames { break }
                }
            }
        }
        return Array(output[0..<made])
    }

    @inline(__always) static func sin(_ x: Double) -> Double { Foundation.sin(x) }
    @inline(__always) static func cos(_ x: Double) -> Double { Foundation.cos(x) }
}
