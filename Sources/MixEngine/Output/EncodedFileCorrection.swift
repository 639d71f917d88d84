import MixIO

/// The finishing step of a lossy file: it is decoded and measured (`FinishingContext.fileLoudness`: what the file
/// holds, which the summary, the report and the ReplayGain tags give), and, normalised to a loudness, corrected.
///
/// An encoder moves both figures a normalisation sets. It changes the loudness a little (Vorbis's low-pass takes high
/// frequencies, which K-weighting counts up), and it lets peaks stand over the limiter's ceiling: a lossy codec drops
/// and requantises components, and the decoded waveform is not the one encoded (measured on a mix at -16 LUFS under
/// -1.5 dBTP: AAC -1.3, Vorbis -1.2, MP3 -0.92, Opus -0.7 dBTP). So while the decoded file misses its loudness by more
/// than the tolerance (`Normalisation.toleranceLU`) or its true peak stands over the ceiling, it is written again (at
/// most `maximumRewrites` times) with the loudness's difference added to the gain and the limiter's ceiling lowered by
/// the overshoot (and `ceilingMarginDb`); it is measured again each time. Not when other sinks have already been fed
/// (they cannot hear it twice), nor past the policy's maximum gain. A window (`--start`/`--end`) has its true peak
/// corrected but not its loudness, which is the whole render's, not the window's.
/// Records the measures and corrections in the normalisation outcome. A value with no state; allocates what the
/// decode needs.
struct EncodedFileCorrection: FinishingStep {
    /// How many more times a file may be written.
    static let maximumRewrites = 3
    /// How far under the ceiling a rewrite aims the decoded true peak, so that the encoder's small changes from one
    /// encode to the next do not leave it over again.
    static let ceilingMarginDb = 0.1

    func finish(_ context: inout FinishingContext) throws {
        let measuring = context.job.measuring
        var file = try measuring.decodedLoudness(ofFile: context.file.temporaryPath)
        context.fileLoudness = file
        guard var n = context.normalisation, let spec = context.output.loudness else { return }
        let correctsLoudness = context.job.window == nil
        var ceilingDb = context.job.plan.limiter.ceilingDb
        n.limiterCeilingDb = ceilingDb
        for _ in 0..<Self.maximumRewrites {
            n.encodedLUFS = file.integrated
            n.encodedTruePeakDb = file.truePeak
            let shortfall = correctsLoudness && file.integrated.isFinite ? n.targetLUFS - file.integrated : 0
            let overshoot = file.truePeak - spec.truePeakDb
            let fixesLoudness = abs(shortfall) > Normalisation.toleranceLU && n.gainDb + shortfall <= spec.maximumGainDb
            guard (fixesLoudness || overshoot > 0), !context.hasOtherSinks else { break }
            if fixesLoudness {
                n.encoderCorrectionDb += shortfall
                n.gainDb += shortfall
            }
            if overshoot > 0 {
                ceilingDb -= overshoot + Self.ceilingMarginDb
                n.encoderCeilingCorrectionDb += overshoot + Self.ceilingMarginDb
                n.limiterCeilingDb = ceilingDb
            }
            n.rewrites += 1
            try context.rewrite(gainDb: n.gainDb, limiterCeilingDb: ceilingDb)
            file = try measuring.decodedLoudness(ofFile: context.file.temporaryPath)
            context.fileLoudness = file
        }
        n.encodedLUFS = file.integrated
        n.encodedTruePeakDb = file.truePeak
        context.normalisation = n
    }
}
