import MixDSP
import MixIO

/// ReplayGain 2.0 tags from a render's loudness, the Vorbis comments players use to play files at an even
/// level: `REPLAYGAIN_TRACK_GAIN` is the gain that brings the track to the -18 LUFS reference
/// (`"-5.32 dB"`), `REPLAYGAIN_TRACK_PEAK` its true peak as a linear amplitude (`"0.891251"`).
/// (https://wiki.hydrogenaud.io/index.php?title=ReplayGain_2.0_specification); for Ogg Opus, `R128_TRACK_GAIN`.
///
/// No state; `comments` allocates the list.
public enum ReplayGain {
    /// The loudness ReplayGain 2.0 brings tracks to.
    public static let referenceLUFS = -18.0

    /// The loudness Opus's `R128_TRACK_GAIN` refers to (RFC 7845, section 5.2.1).
    public static let opusReferenceLUFS = -23.0

    /// The comments for `format`, or none for silence (no gain can be stated). Ogg Opus takes
    /// `R128_TRACK_GAIN` instead: the gain to -23 LUFS in 1/256 dB as a whole number (Q7.8), because RFC 7845
    /// forbids ReplayGain tags in Opus.
    public static func comments(_ loudness: LoudnessMeasurement, format: OutputFileFormat) -> [(key: String, value: String)] {
        guard loudness.integrated.isFinite else { return [] }
        if format == .opus {
            let q78 = Int(max(-32768, min(32767, ((opusReferenceLUFS - loudness.integrated) * 256).rounded())))
            return [(key: "R128_TRACK_GAIN", value: String(q78))]
        }
        let gainDb = referenceLUFS - loudness.integrated
        let peak = loudness.truePeak.isFinite ? gain(fromDecibels: loudness.truePeak) : 0
        return [(key: "REPLAYGAIN_TRACK_GAIN", value: fixed(gainDb, digits: 2, sign: true) + " dB"),
                (key: "REPLAYGAIN_TRACK_PEAK", value: fixed(peak, digits: 6, sign: false))]
    }

    /// `x` with exactly `digits` decimals ("+5.32", "0.891251").
    static func fixed(_ x: Double, digits: Int, sign: Bool) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let units = Int64((abs(x) * scale).rounded())
        let whole = units / Int64(scale), fraction = String(units % Int64(scale) + Int64(scale)).dropFirst()
        return (x < 0 && units != 0 ? "-" : sign ? "+" : "") + "\(whole).\(fraction)"
    }
}
