import MixDSP
import MixIO

/// Settings given by the caller (the command line, a batch's job list) that take precedence over the preset's.
/// `PresetLoader.load(path:overrides:)` checks them (errors name the setting, `EngineError.setting`) and merges
/// them into the final `Preset`: nothing patches a preset after it is loaded.
/// A value of optional numbers and a quality; allocates nothing. `Sendable`, safe to share.
public struct RenderOverrides: Sendable, Equatable {
    public var durationSeconds: Double?
    public var sampleRate: Int?
    public var quality: Double?
    /// A bitrate in kbit/s (MP3, Opus) instead of the quality.
    public var bitrateKbps: Int?
    public var resampler: ResamplerChoice?
    /// Normalise to this integrated loudness (LUFS), under this true-peak ceiling (dBTP).
    public var loudnessTarget: Double?
    public var truePeakDb: Double?
    /// Render only this part of the timeline, in seconds: `[start, end)`.
    public var startSeconds: Double?
    public var endSeconds: Double?
    /// Render a file that loops without a seam (the preset's `output.loopable` crossfade, or the default).
    public var loopable = false
    public init(durationSeconds: Double? = nil, sampleRate: Int? = nil, quality: Double? = nil, resampler: ResamplerChoice? = nil) {
        self.durationSeconds = durationSeconds; self.sampleRate = sampleRate
        self.quality = quality; self.resampler = resampler
    }

    /// The overrides' limits: the preset reader's own for the same values (`NumberLimit`, `TimeLimit`); errors name
    /// the setting (`EngineError.setting`).
    func check() throws {
        try TimeLimit.length.check(durationSeconds, as: .duration)
        try TimeLimit.position.check(startSeconds, as: .start)
        try TimeLimit.position.check(endSeconds, as: .end)
        try NumberLimit.sampleRate.check(sampleRate.map(Double.init), as: .sampleRate)
        try NumberLimit.quality.check(quality, as: .quality)
        if bitrateKbps != nil && quality != nil {
            throw EngineError.setting(.bitrate, reason: "and \(setting: .quality) cannot be given together; give one")
        }
        try NumberLimit.bitrate.check(bitrateKbps.map(Double.init), as: .bitrate)
        try NumberLimit.loudnessTarget.check(loudnessTarget, as: .loudness)
        try NumberLimit.truePeakCeiling.check(truePeakDb, as: .truePeak)
    }

    /// Merges the overrides that replace the output's settings into `preset`, read with these overrides (its
    /// length and loopable master fades already taken into account by the reader), and returns what that left
    /// out, as warnings naming `file`. Errors name the setting.
    func merge(into preset: inout Preset, file: String) throws -> [String] {
        if let r = sampleRate { preset.output.sampleRate = r }
        // A quality or a bitrate given here replaces the preset's choice of either.
        if let q = quality { preset.output.quality = q; preset.output.bitrateKbps = nil }
        if let b = bitrateKbps { preset.output.bitrateKbps = b }
        if let r = resampler { preset.output.resampler = r }
        // Loopable makes this output a loop: the preset's master fades (its sleep timer), which a loop cannot
        // have, are left out, with a warning. A preset that asks for a loop and fades itself is an error.
        var dropped: [String] = []
        if loopable {
            preset.output.loopable = preset.output.loopable ?? OutputSpec.defaultLoopCrossfade
            if preset.session == nil {
                if preset.master.fadeIn != nil { dropped.append("master.fadeIn") }
                if preset.master.fadeOut != nil { dropped.append("master.fadeOut") }
                preset.master.fadeIn = nil
                preset.master.fadeOut = nil
            }
        }
        if let target = loudnessTarget {
            // The preset's ceiling and most gain stay; a preset without loudness gets their defaults.
            preset.output.loudness = preset.output.loudness ?? LoudnessSpec(targetLUFS: target)
            preset.output.loudness!.targetLUFS = target
        }
        if let ceiling = truePeakDb {
            guard preset.output.loudness != nil else {
                throw EngineError.setting(.truePeak, reason: "is the ceiling of a loudness normalisation; give \(setting: .loudness) too (or output.loudness in the preset)")
            }
            preset.output.loudness!.truePeakDb = ceiling
        }
        guard !dropped.isEmpty else { return [] }
        return ["\(file): \(dropped.joined(separator: ", ")): left out, since this render was made loopable on the command line: a loop fades nowhere (the player's timer does)"]
    }
}
