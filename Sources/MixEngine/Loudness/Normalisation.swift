import Dispatch
import Foundation
import MixDSP
import MixIO

/// What normalising a render did: what the mix measured, the gain it took, and what the limiter cost.
/// A value of numbers; allocates nothing. `Sendable`, safe to share.
public struct NormalisationOutcome: Sendable, Equatable {
    public var targetLUFS: Double
    public var truePeakDb: Double
    /// The mix's integrated loudness before the limiter, at the preset's own gains.
    public var measuredLUFS: Double
    /// The gain applied to the master bus (before the limiter), in dB.
    public var gainDb: Double
    /// How much the limiter lowered the loudness at the first gain (0 when it was not expected to act).
    public var limiterLossLU: Double
    /// The output's integrated loudness the last measuring pass found (the measure, before the limiter,
    /// plus the gain, when the limiter cannot act).
    public var expectedLUFS: Double
    /// For a lossy format, the written file's loudness and true peak once decoded, and the gain added (or taken)
    /// when the encoder moved its loudness by more than the tolerance and the file was written again (0 otherwise).
    public var encodedLUFS: Double?
    public var encodedTruePeakDb: Double?
    public var encoderCorrectionDb: Double = 0
    /// The limiter's ceiling the file was written with, in dBTP: the policy's ceiling less the detector's margin, and
    /// less the encoder's overshoot when the decoded file's true peak stood over the ceiling; nil for a lossless file.
    public var limiterCeilingDb: Double?
    /// How far the limiter's ceiling was lowered because the decoded file's true peak stood over the ceiling (0 otherwise).
    public var encoderCeilingCorrectionDb = 0.0
    /// How far the whole output was turned down on the last rewrite because the encoder's peaks still stood over the
    /// ceiling (0 otherwise): the file holds its true peak and falls short of the target loudness by about as much.
    public var encoderTurnDownDb = 0.0
    /// How many times the lossy file was written again to correct its loudness or true peak (`EncodedFileCorrection`).
    public var rewrites = 0
    /// Measuring passes run before the write (the first measures the mix; each further one checks the
    /// limiter's effect and corrects the gain).
    public var measuringPasses: Int
    /// Seconds the measuring passes took, together.
    public var seconds: Double
    /// The CPU seconds they took, on every core (`CPUClock.process`).
    public var cpuSeconds: Double = 0
    /// Where the outcome was found when this render ran no measuring pass (`seconds` 0): an earlier render in this
    /// process, or the `--cache-dir` folder; nil when this render measured it.
    public var reusedFrom: MeasurementCache.Place? = nil
}

/// What `Normalisation.find` found is kept in the cache folder: the numbers it measured and the gain, not what
/// later steps add (the encoded file's loudness) nor the time it took.
extension NormalisationOutcome: StoredMeasurement {
    var storedValue: JSONValue {
        .object(["targetLUFS": .number(targetLUFS), "truePeakDbTP": .number(truePeakDb), "measuredLUFS": .number(measuredLUFS),
                 "gainDb": .number(gainDb), "limiterLossLU": .number(limiterLossLU), "expectedLUFS": .number(expectedLUFS),
                 "measuringPasses": .number(Double(measuringPasses))])
    }

    /// Reads the numbers back: each present, finite and within what a meter or the policy allows (a policy's
    /// own limits are checked by `refusal(for:)`).
    init(stored: JSONValue) throws {
        guard case .object = stored else { throw MaterialStore.Refusal("holds no normalisation") }
        func number(_ name: String, in range: ClosedRange<Double>) throws -> Double {
            try StoredNumbers.number(stored[name], name, in: range)
        }
        self.init(targetLUFS: try number("targetLUFS", in: LoudnessSpec.targets),
                  truePeakDb: try number("truePeakDbTP", in: LoudnessSpec.ceilings),
                  measuredLUFS: try number("measuredLUFS", in: StoredNumbers.loudness),
                  gainDb: try number("gainDb", in: -300...LoudnessSpec.maximumGains.upperBound),
                  limiterLossLU: try number("limiterLossLU", in: 0...StoredNumbers.loudness.upperBound - StoredNumbers.loudness.lowerBound),
                  expectedLUFS: try number("expectedLUFS", in: StoredNumbers.loudness),
                  encodedLUFS: nil,
                  measuringPasses: try StoredNumbers.integer(stored["measuringPasses"], "measuringPasses",
                                                             in: 1...(Normalisation.maximumCorrections + 2)),
                  seconds: 0)
    }

    /// Why this outcome, read back, is not one normalising to `spec` could have found (nil when it could be): another
    /// target or ceiling, a gain past the policy's most or under what the measure asks, an output further under
    /// the target than `Normalisation` lets pass.
    func refusal(for spec: LoudnessSpec) -> String? {
        let f = { (x: Double) in String(format1: x) }
        if targetLUFS != spec.targetLUFS || truePeakDb != spec.truePeakDb {
            return "is a normalisation to \(f(targetLUFS)) LUFS under \(f(truePeakDb)) dBTP, not \(f(spec.targetLUFS)) under \(f(spec.truePeakDb))"
        }
        if gainDb > spec.maximumGainDb + 1e-9 {
            return "says a gain of +\(f(gainDb)) dB, more than the +\(f(spec.maximumGainDb)) dB allowed"
        }
        if gainDb < targetLUFS - measuredLUFS - 1e-9 {
            return "says a gain of \(f(gainDb)) dB, less than the \(f(targetLUFS - measuredLUFS)) dB its measure asks"
        }
        if targetLUFS - expectedLUFS > Normalisation.maximumShortfallLU {
            return "says the output stays \(f(targetLUFS - expectedLUFS)) LU under its target"
        }
        return nil
    }
}

/// Finds the master gain that brings a plan to a loudness target under a true-peak ceiling, offline and
/// exactly, by rendering without an encoder:
///
/// 1. A first pass measures the mix before the limiter, where loudness scales linearly with gain:
///    the gain is the target minus that measure. A silent mix, or one that needs more than the allowed
///    gain, is an error.
/// 2. If the mix's peak at that gain reaches within 3 dB of the ceiling, the limiter may act (inter-sample
///    peaks stand up to about 3 dB above samples), so a pass measures the output after the limiter; while it
///    reads more than 0.1 LU under the target, the gain is raised by the shortfall and measured again (at most
///    `maximumCorrections` times). If it stays more than `maximumShortfallLU` under, that is an error.
///
/// The passes share `material` with the write that follows (nothing is decoded twice) and cover the whole
/// plan, so a partial render is normalised as the full render is. No state of its own; `find` allocates each
/// pass's render state.
public enum Normalisation {
    /// The shortfall under which the gain is left as it is.
    public static let toleranceLU = 0.1
    public static let maximumCorrections = 3
    /// The most the output may stay under its target once the limiter has acted: past it, normalising fails.
    public static let maximumShortfallLU = 1.0

    /// Discards what it is given: the measuring passes' encoder.
    final class NullEncoder: AudioEncoder {
        func write(interleaved: UnsafePointer<Float>, frames: Int) throws {}
        func finish() throws {}
    }

    /// `failure` words a reason as the error for where the target was given (the preset or the command line).
    public static func find(plan: RenderPlan, spec: LoudnessSpec, material: PreparedMaterial, blockFrames: Int = 4096,
                            failure: (String) -> EngineError) throws -> NormalisationOutcome {
        let clock = ContinuousClock()
        let started = clock.now, startedCPU = CPUClock.process
        func measure(_ plan: RenderPlan, at point: TapPoint) throws -> (loudness: Double, mixPeakDb: Double) {
            try Self.measure(plan, at: point, material: material, blockFrames: blockFrames)
        }

        let (mix, mixPeakDb) = try measure(plan, at: .beforeLimiter)
        guard mix.isFinite else {
            throw failure("the mix is silent (no loudness to measure), so it cannot be brought to \(lufs(spec.targetLUFS))")
        }
        var gainDb = spec.targetLUFS - mix
        guard gainDb <= spec.maximumGainDb else {
            throw failure("the mix measures \(lufs(mix)); reaching \(lufs(spec.targetLUFS)) needs +\(format1(gainDb)) dB, "
                          + "more than the \(format1(spec.maximumGainDb)) dB allowed (output.loudness.maxGainDb)")
        }
        var report = NormalisationOutcome(targetLUFS: spec.targetLUFS, truePeakDb: spec.truePeakDb, measuredLUFS: mix,
                                         gainDb: gainDb, limiterLossLU: 0, expectedLUFS: spec.targetLUFS,
                                         encodedLUFS: nil, measuringPasses: 1, seconds: 0)
        // The limiter can act only where the mix's peak, at this gain, comes near the ceiling.
        if mixPeakDb + gainDb > spec.truePeakDb - 3 {
            for pass in 0...maximumCorrections {
                let output = try measure(plan.withMasterGain(db: gainDb), at: .output).loudness
                report.measuringPasses += 1
                report.expectedLUFS = output
                if pass == 0 { report.limiterLossLU = max(0, spec.targetLUFS - output) }
                let shortfall = spec.targetLUFS - output
                guard shortfall > toleranceLU, pass < maximumCorrections, gainDb + shortfall <= spec.maximumGainDb else { break }
                gainDb += shortfall
            }
        }
        // A limiter that keeps the output well under the target (a lone click: all peak, no body) is not a
        // normalisation: the file would miss its target by far with nothing said.
        let shortfall = spec.targetLUFS - report.expectedLUFS
        if shortfall > maximumShortfallLU {
            throw failure("the limiter holds the output at \(lufs(report.expectedLUFS)), \(format1(shortfall)) LU under \(lufs(spec.targetLUFS)) "
                          + "(the mix's peaks stand \(format1(mixPeakDb - mix)) dB above its loudness, too far for a \(format1(spec.truePeakDb)) dBTP ceiling); "
                          + "aim lower, or raise the ceiling")
        }
        report.gainDb = gainDb
        report.seconds = (clock.now - started).seconds
        report.cpuSeconds = CPUClock.process - startedCPU
        return report
    }

    /// Parts of at least a minute each, one per core: a part renders from its own start (after the warm-up
    /// every partial render has, so it is the full render's slice) with its own meter, and the meters combine.
    static let minimumPartSeconds = 60

    /// The integrated loudness at `point` of the whole plan, and its highest sample before the limiter.
    public static func measure(_ plan: RenderPlan, at point: TapPoint, material: PreparedMaterial, range: Range<Int64>? = nil,
                               blockFrames: Int = 4096) throws -> (loudness: Double, mixPeakDb: Double) {
        let whole = range ?? 0..<plan.frameCount
        let parts = Int(max(1, min(Int64(ProcessInfo.processInfo.activeProcessorCount),
                                   Int64(whole.count) / Int64(plan.sampleRate * minimumPartSeconds))))
        // Each part measured by a meter of its own, on its own core; the meters' gating blocks are combined.
        let measured = try Parallel.map(parts) { k in
            let n = Int64(whole.count)
            let range = whole.lowerBound + n * Int64(k) / Int64(parts)..<whole.lowerBound + n * Int64(k + 1) / Int64(parts)
            let tap = LoudnessTap(channelCount: plan.channelCount, sampleRate: plan.sampleRate, truePeak: false)
            let peak = try Renderer(plan: plan, blockFrames: blockFrames)
                .render(to: NullEncoder(), range: range, material: material, taps: [RenderTap(point, tap)], measuresOutput: false).mixPeakDb
            return (meter: tap.meter, mixPeakDb: peak)
        }
        return (GatedLoudness.integrated(combining: measured.map(\.meter)), measured.map(\.mixPeakDb).max() ?? -.infinity)
    }

    static func lufs(_ x: Double) -> String { "\(format1(x)) LUFS" }
    static func format1(_ x: Double) -> String { String(format1: x) }
}

extension RenderPlan {
    /// The plan with its limiter's ceiling at `db`.
    public func withLimiterCeiling(db: Double) -> RenderPlan {
        var plan = self
        plan.limiter.ceilingDb = db
        return plan
    }

    /// The plan with `db` more gain on the master bus, before the limiter.
    public func withMasterGain(db: Double) -> RenderPlan {
        var plan = self
        plan.master.constant = Float(Double(plan.master.constant) * gain(fromDecibels: db))
        return plan
    }
}
