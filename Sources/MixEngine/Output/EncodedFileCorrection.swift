import MixIO

/// The finishing step of a lossy file, or of one converted from the render's rate, channels or loudness
/// (`OutputConversion`): it is decoded and measured (`FinishingContext.fileLoudness`: what the file
/// holds, which the summary, the report and the ReplayGain tags give), and, normalised to a loudness, corrected.
///
/// An encoder moves both figures a normalisation sets. It changes the loudness a little (Vorbis's low-pass takes high
/// frequencies, which K-weighting counts up), and it lets peaks stand over the limiter's ceiling: a lossy codec drops
/// and requantises components, and the decoded waveform is not the one encoded (measured on a mix at -16 LUFS under
/// -1.5 dBTP: AAC -1.3, Vorbis -1.2, MP3 -0.92, Opus -0.7 dBTP). So while the decoded file misses its loudness by more
/// than the tolerance (`Normalisation.toleranceLU`) or its true peak stands over the ceiling, it is written again (at
/// most `maximumRewrites` times) with the loudness's difference added to the gain and the limiter's ceiling lowered by
/// the overshoot (and `ceilingMarginDb`); it is measured again each time. The last write allowed is for the true peak
/// only: if the file still stands over the ceiling, it is turned down (gain and ceiling by the overshoot and
/// `turnDownMarginDb`; the loudness falls short by as much, reported as `encoderTurnDownDb`).
///
/// An encoder's peaks are not a smooth function of its input: on a sharp transient (fire's crackles in MP3) the
/// error it adds hardly shrinks with the peak, and a small change to the signal can move the decoded peak by half a
/// decibel either way. So the best write is kept: the one under the ceiling nearest the target loudness, or failing
/// that the one least over. Renders and encoders are deterministic, so when a later write came out worse, the best
/// one is made again exactly (one more write).
///
/// Not past the policy's maximum gain. The render's taps (a waveform, the live stream) heard the first write and keep
/// it: they differ from the file by the correction (a fraction of a dB, in the outcome). A window (`--start`/`--end`) has its true peak corrected but not its loudness, which is the whole render's,
/// not the window's. Records the measures and corrections in the normalisation outcome. A value with no state;
/// allocates what the decode needs.
struct EncodedFileCorrection: FinishingStep {
    /// How many more times a file may be written to correct it (and once more to make the best of them again).
    static let maximumRewrites = 3
    /// How far under the ceiling a rewrite aims the decoded true peak, so that the encoder's small changes from one
    /// encode to the next do not leave it over again.
    static let ceilingMarginDb = 0.1
    /// The margin of the last write's turn-down.
    static let turnDownMarginDb = 0.3

    /// One write: its settings, what its file measured, and the outcome as it then stood.
    struct Attempt {
        var outcome: NormalisationOutcome
        var ceilingDb: Double
        var file: LoudnessMeasurement

        /// Whether this write is better than `other`: under the ceiling beats over it; under it, nearer the target;
        /// over it, less over.
        func isBetter(than other: Attempt, spec: LoudnessSpec) -> Bool {
            let over = file.truePeak - spec.truePeakDb, otherOver = other.file.truePeak - spec.truePeakDb
            if (over > 0) != (otherOver > 0) { return over <= 0 }
            if over > 0 { return over < otherOver }
            return abs(file.integrated - spec.targetLUFS) < abs(other.file.integrated - spec.targetLUFS)
        }
    }

    func finish(_ context: inout FinishingContext) throws {
        let measuring = context.source.measuring
        let first = try measuring.decodedLoudness(ofFile: context.file.temporaryPath)
        context.fileLoudness = first
        guard var n = context.normalisation, let spec = context.output.loudness else { return }
        let correctsLoudness = context.source.window == nil
        n.limiterCeilingDb = context.source.limiterCeilingDb
        var current = Attempt(outcome: n, ceilingDb: context.source.limiterCeilingDb, file: first)
        current.outcome.encodedLUFS = first.integrated
        current.outcome.encodedTruePeakDb = first.truePeak
        var best = current
        for attempt in 0..<Self.maximumRewrites {
            var next = current
            let file = current.file
            let shortfall = correctsLoudness && file.integrated.isFinite ? spec.targetLUFS - file.integrated : 0
            let overshoot = file.truePeak - spec.truePeakDb
            let fixesLoudness = abs(shortfall) > Normalisation.toleranceLU && next.outcome.gainDb + shortfall <= spec.maximumGainDb
            let isLast = attempt == Self.maximumRewrites - 1
            // The last write is for the true peak only: a write for the loudness alone could push it over again.
            guard (fixesLoudness && !isLast) || overshoot > 0 else { break }
            if overshoot > 0 && isLast {
                let down = overshoot + Self.turnDownMarginDb
                next.outcome.gainDb -= down
                next.ceilingDb -= down
                next.outcome.encoderTurnDownDb = down
            } else {
                if fixesLoudness {
                    next.outcome.encoderCorrectionDb += shortfall
                    next.outcome.gainDb += shortfall
                }
                if overshoot > 0 {
                    next.ceilingDb -= overshoot + Self.ceilingMarginDb
                    next.outcome.encoderCeilingCorrectionDb += overshoot + Self.ceilingMarginDb
                }
            }
            next.outcome.rewrites += 1
            next.outcome.limiterCeilingDb = next.ceilingDb
            try context.rewrite(gainDb: next.outcome.gainDb, limiterCeilingDb: next.ceilingDb)
            next.file = try measuring.decodedLoudness(ofFile: context.file.temporaryPath)
            next.outcome.encodedLUFS = next.file.integrated
            next.outcome.encodedTruePeakDb = next.file.truePeak
            current = next
            if current.isBetter(than: best, spec: spec) { best = current }
        }
        if best.outcome.rewrites != current.outcome.rewrites {
            // A later write came out worse: the best one, made again (the same samples, so the same bytes).
            try context.rewrite(gainDb: best.outcome.gainDb, limiterCeilingDb: best.ceilingDb)
            best.file = try measuring.decodedLoudness(ofFile: context.file.temporaryPath)
            best.outcome.encodedLUFS = best.file.integrated
            best.outcome.encodedTruePeakDb = best.file.truePeak
            best.outcome.rewrites = current.outcome.rewrites + 1
        }
        context.fileLoudness = best.file
        context.normalisation = best.outcome
    }
}
