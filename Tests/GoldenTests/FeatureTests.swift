import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import TestSupport
import Testing

/// Checks on feature goldens beyond the sample comparison: what the render says about itself.
@Suite struct FeatureTests {
    /// JSON goldens compared as numbers (`JSONNumbers`), relative to the package root.
    static let jsonGoldens = ["golden/features/limiter.summary.json", "golden/features/everything.waveform.json"]

    /// Levels and times in the summary are deterministic; 0.001 (dB or s) only absorbs printing and libm.
    static let summaryTolerance = JSONNumbers.Tolerance(absolute: 1e-3, relative: 0)

    /// The hot mix peaks well above the ceiling; the limiter brings every sample to -1 dBFS or below,
    /// and the summary says it acted: how far the mix peaked, how much it took off, for how long.
    @Test func limiterTurnsTheHotMixDownAndTheSummarySaysSo() throws {
        let render = try GoldenRender.toMemory(GoldenPaths.golden("features/limiter.json"))
        let s = render.summary
        let ceiling = gain(fromDecibels: -1)
        #expect(s.mixPeakDb > 3, "the mix should peak above +3 dBFS, peaked at \(s.mixPeakDb)")
        #expect(Double(render.audio.peak) <= ceiling, "a sample above the ceiling: \(render.audio.peak)")
        #expect(s.peakDb <= -1 + 1e-6)
        #expect(s.peakDb > -1.5, "the limiter should bring the peak to the ceiling, not far below: \(s.peakDb)")
        #expect(s.maxGainReductionDb >= s.mixPeakDb + 1 - 0.01, "reduction \(s.maxGainReductionDb) dB for a peak of \(s.mixPeakDb) dBFS")
        #expect(s.limitedSeconds > 0.25 && s.limitedSeconds <= render.audio.durationSeconds + 0.01)

        let summary: [String: Any] = [
            "frameCount": Int(s.frameCount), "sampleRate": s.sampleRate,
            "mixPeakDb": s.mixPeakDb, "peakDb": s.peakDb, "rmsDb": s.rmsDb,
            "maxGainReductionDb": s.maxGainReductionDb, "limitedSeconds": s.limitedSeconds,
        ]
        try GoldenCheck.json("limiter.summary", actual: summary,
                             goldenPath: GoldenPaths.golden("features/limiter.summary.json"), tolerance: Self.summaryTolerance)
    }

    /// The command line's printed summary reports the limiter too (the `mixrender` executable is built
    /// beside the test bundle by `swift build --build-tests`).
    @Test func commandLineSummaryReportsTheLimiter() throws {
        let folder = try TemporaryFolder()
        let run = try CLI.run(["render", GoldenPaths.golden("features/limiter.json"), "-o", folder.path("hot.wav")])
        let text = run.stdout + run.stderr
        #expect(run.status == 0, "\(text)")
        #expect(text.contains("limiter   mix peaked at"), "\(text)")
        #expect(text.contains("reduced up to"), "\(text)")
        #expect(!text.contains("idle"), "\(text)")
    }

    /// A crossfaded loop seam has no step larger than the material has elsewhere. surf.ogg is brown noise
    /// (small steps from sample to sample), so a seam that jumped between unrelated samples would show.
    /// Looped with a 2 s crossfade, its 12 s make a 10 s period: the seam crossfade runs from 10 s to 12 s.
    /// (A hard seam is for material cut to loop, which these noise sources are not: its golden guards it.)
    @Test(arguments: ["equalPower", "equalGain", "sCurve"])
    func crossfadedLoopSeamHasNoStepLargerThanTheMaterial(curve: String) throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": 14, "tracks": [ { "file": "\(GoldenPaths.preset("sounds/surf.ogg"))",
              "loop": { "crossfade": { "duration": 2, "curve": "\(curve)" } } } ] }
            """, name: "seam.json")
        let audio = try GoldenRender.toMemory(preset, overrides: GoldenRender.overrides(start: 9, end: 13)).audio
        let rate = audio.sampleRate
        let seams = [rate, 3 * rate]                     // 10 s and 12 s, from 9 s
        var stepAtSeams: Float = 0, stepElsewhere: Float = 0
        for c in 0..<audio.channelCount {
            let x = audio.channel(c)
            for i in 1..<x.count {
                let step = abs(x[i] - x[i - 1])
                if seams.contains(where: { abs(i - $0) <= 8 }) { stepAtSeams = max(stepAtSeams, step) }
                else { stepElsewhere = max(stepElsewhere, step) }
            }
        }
        #expect(stepElsewhere > 0)
        #expect(stepAtSeams <= stepElsewhere, "step at the seams \(stepAtSeams), elsewhere at most \(stepElsewhere)")
    }
}

/// The waveform JSON (`render --waveform x.json`: audiowaveform's format plus RMS and band levels) of a
/// render, compared as numbers: the values are integers on the 16-bit scale, so one step either way
/// plus 0.1 % (0.009 dB; a centroid of 2 kHz may move 2 Hz) absorbs rounding on another machine, while
/// a level 0.5 dB off (5.6 %) fails.
@Suite struct WaveformGoldenTests {
    static let tolerance = JSONNumbers.Tolerance(absolute: 1, relative: 1e-3)

    @Test func waveformOfARenderMatchesItsGolden() throws {
        let folder = try TemporaryFolder()
        let golden = GoldenCatalog.features.first { $0.name == "everything" }!
        let job = try RenderJob(presetPath: golden.presetPath, overrides: golden.overrides)
        let json = folder.path("everything.json")
        let recording = WaveformRecording(plan: try WaveformPlan(output: json, options: WaveformOptions(),
                                                               sampleRate: job.plan.sampleRate, channelCount: job.plan.channelCount,
                                                               frameCount: Int64(job.range.count)))
        _ = try job.render(to: folder.path("everything.wav"), taps: [recording.renderTap(channelCount: job.plan.channelCount, blockFrames: 4096)])
        #expect(try recording.writeOutputs() == [json])
        guard case .object(let actual) = try JSONNumbers.parse(contentsOf: json) else {
            Issue.record("the waveform JSON is not an object")
            return
        }
        #expect(actual["length"] == .number(Double((job.range.count + 255) / 256)), "256 frames a column")
        try GoldenCheck.json("everything.waveform", actual: try Data(contentsOf: URL(fileURLWithPath: json)),
                             goldenPath: GoldenPaths.golden("features/everything.waveform.json"), tolerance: Self.tolerance)
    }
}
