import MixDSP
import MixIO

/// ReplayGain 2.0 tags from a render's loudness, the Vorbis comments players use to play files at an even
/// level: `REPLAYGAIN_TRACK_GAIN` is the gain that brings the track to the -18 LUFS reference
/// (`"-5.32 dB"`), `REPLAYGAIN_TRACK_PEAK` its true peak as a linear amplitude (`"0.891251"`).
/// (https://wiki.hydrogenaud.io/index.php?title=ReplayGain_2.0_specification)
///
/// No state; `comments` allocates the list.
public enum ReplayGain {
    /// The loudness ReplayGain 2.0 brings tracks to.
    public static let referenceLUFS = -18.0

    /// The two comments, or none for silence (no gain can be stated).
    public static func comments(_ loudness: LoudnessMeasurement) -> [(key: String, value: String)] {
        guard loudness.integrated.isFinite else { return [] }
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
