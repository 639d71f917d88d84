import Foundation
import MixDSP

/// Tier 1, exact: sample rate, channel count and frame count must be equal. Any difference fails.
enum ExactTier {
    /// What differs, in words; empty when the shapes are equal.
    static func mismatches(actual: PCMAudio, golden: PCMAudio) -> [String] {
        var problems: [String] = []
        if actual.sampleRate != golden.sampleRate { problems.append("sample rate \(actual.sampleRate) Hz, golden \(golden.sampleRate) Hz") }
        if actual.channelCount != golden.channelCount { problems.append("\(actual.channelCount) channels, golden \(golden.channelCount)") }
        if actual.frameCount != golden.frameCount { problems.append("\(actual.frameCount) frames, golden \(golden.frameCount)") }
        return problems
    }
}

/// Tier 2, lossless: a float render against a golden stored as 24-bit FLAC (or, for very quiet goldens,
/// float WAV).
///
/// Metric: the largest absolute sample difference, and the SNR of the golden against the difference,
/// SNR = 10 log10(sum golden^2 / sum (actual - golden)^2), over every sample of every channel.
/// Pass: max |difference| <= `maxAbsDifference` AND SNR >= `minimumSNRDb`.
///
/// Renders are deterministic, so the only expected difference is the golden's 24-bit rounding:
/// at most half a step, 2^-24 = 6e-8 (-144 dBFS), and an SNR of at least 100 dB for every FLAC golden
/// here (a float WAV golden holds the render exactly). The max-difference threshold leaves a margin of
/// 16x (24 dB) and the SNR threshold 10 dB for libm and compiler differences between machines.
/// Both are far below any audible change, yet every regression this suite was tried with fails at least
/// one golden by 7x or more: a 0.5 dB quieter track changes samples by 6 % of that track (SNR 25 dB on a
/// golden where it is alone); an envelope point one 4096-frame block later by about -100 dBFS on the
/// presets' slow envelopes (the smallest margin: 7.1e-6 in night-envelope) and -19 dBFS on
/// golden/features/envelope.json.
enum LosslessTier {
    /// 2^-20 = 9.5e-7, -120.4 dBFS: eight steps of 24-bit audio.
    static let maxAbsDifference: Double = 1.0 / 1_048_576
    static let minimumSNRDb: Double = 90

    /// The SNR a golden stored as 24-bit FLAC can show at best: its power over that of the rounding
    /// (uniform over one step of 2^-23: power 2^-46 / 12).
    static func roundingSNRDb(of golden: PCMAudio) -> Double {
        let power = golden.samples.withUnsafeBufferPointer { Kernels.sumOfSquares($0.baseAddress!, count: $0.count) }
            / Double(max(golden.samples.count, 1))
        return 10 * log10(power / (pow(2, -46) / 12))
    }

    struct Difference: CustomStringConvertible {
        var maxAbs: Double
        /// Where the largest difference is.
        var frame: Int
        var channel: Int
        /// +infinity when the two are identical; -infinity when the golden is silent and they differ.
        var snrDb: Double
        var frameCount: Int

        var maxAbsDb: Double { decibels(fromGain: maxAbs) }
        var isWithinThresholds: Bool { maxAbs <= LosslessTier.maxAbsDifference && snrDb >= LosslessTier.minimumSNRDb }

        var description: String {
            "max |difference| \(format(maxAbs)) (\(formatDb(maxAbsDb)) dBFS) at frame \(frame) channel \(channel), "
                + "SNR \(formatDb(snrDb)) dB (thresholds: max |difference| <= \(format(LosslessTier.maxAbsDifference)) "
                + "(\(formatDb(decibels(fromGain: LosslessTier.maxAbsDifference))) dBFS), SNR >= \(formatDb(LosslessTier.minimumSNRDb)) dB)"
        }
    }

    /// Compares the frames both have (the exact tier reports a length difference).
    static func compare(actual: PCMAudio, golden: PCMAudio) -> Difference {
        precondition(actual.channelCount == golden.channelCount, "compare shapes first (ExactTier)")
        let n = actual.channelCount
        let frames = min(actual.frameCount, golden.frameCount)
        var maxAbs: Double = 0, at = 0
        var signal: Double = 0, noise: Double = 0
        actual.samples.withUnsafeBufferPointer { a in
            golden.samples.withUnsafeBufferPointer { g in
                for i in 0..<(frames * n) {
                    let gv = Double(g[i]), d = Double(a[i]) - gv
                    signal += gv * gv
                    noise += d * d
                    if abs(d) > maxAbs { maxAbs = abs(d); at = i }
                }
            }
        }
        let snr: Double = noise == 0 ? .infinity : (signal == 0 ? -.infinity : 10 * log10(signal / noise))
        return Difference(maxAbs: maxAbs, frame: at / n, channel: at % n, snrDb: snr, frameCount: frames)
    }

    /// actual - golden over the frames both have.
    static func difference(actual: PCMAudio, golden: PCMAudio) -> PCMAudio {
        let n = min(actual.frameCount, golden.frameCount) * actual.channelCount
        var d = [Float](repeating: 0, count: n)
        for i in 0..<n { d[i] = actual.samples[i] - golden.samples[i] }
        return PCMAudio(sampleRate: actual.sampleRate, channelCount: actual.channelCount, samples: d)
    }
}

func format(_ x: Double) -> String { String(format: "%.3g", x) }
func formatDb(_ x: Double) -> String { x.isFinite ? String(format: "%.1f", x) : (x > 0 ? "+inf" : "-inf") }
