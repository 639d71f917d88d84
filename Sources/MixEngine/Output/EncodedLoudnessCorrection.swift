import MixIO

/// The finishing step of a lossy file normalised to a loudness: an encoder changes the loudness a little (Vorbis's
/// low-pass takes high frequencies, which K-weighting counts up), so the file is decoded and measured, and written
/// again with the difference when it is more than the tolerance (`Normalisation.toleranceLU`), unless other sinks
/// have already been fed or the gain would pass the policy's maximum. Records the measure in the normalisation
/// report. A value with no state; allocates what the decode needs.
struct EncodedLoudnessCorrection: FinishingStep {
    func finish(_ context: inout FinishingContext) throws {
        guard var n = context.normalisation, let spec = context.output.loudness else { return }
        let decoded = try context.job.measuring.encodedLoudness(ofFile: context.file.temporaryPath)
        n.encodedLUFS = decoded
        let shortfall = n.targetLUFS - decoded
        if decoded.isFinite, abs(shortfall) > Normalisation.toleranceLU, !context.hasOtherSinks,
           n.gainDb + shortfall <= spec.maximumGainDb {
            n.encoderCorrectionDb = shortfall
            n.gainDb += shortfall
            try context.rewrite(gainDb: n.gainDb)
            n.encodedLUFS = try context.job.measuring.encodedLoudness(ofFile: context.file.temporaryPath)
        }
        context.normalisation = n
    }
}
