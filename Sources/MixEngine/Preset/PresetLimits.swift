/// The numbers a preset and the caller may both set, each range stated once beside the spec that holds it
/// (`OutputSpec`, `LoudnessSpec`) and read, checked and described by `NumberLimit`.
extension NumberLimit {
    static let sampleRate = NumberLimit(OutputSpec.sampleRates, unit: " Hz")
    static let quality = NumberLimit(OutputSpec.qualities)
    static let bitrate = NumberLimit(OutputSpec.bitrates, unit: " kbit/s")
    static let loudnessTarget = NumberLimit(LoudnessSpec.targets, unit: " LUFS")
    static let truePeakCeiling = NumberLimit(LoudnessSpec.ceilings, unit: " dBTP")
}
