import DSPTestSupport
import Foundation
import MixIO
@testable import MixEngine
import Testing

/// The output side's values: the `OutputPlan` a job computes once (finishing steps, warnings, the Opus rule asked
/// of the plan), the final preset the loader makes with the overrides merged, and the track loudness the planner
/// records and the job measures.
@Suite struct OutputPlanTests {
    private static let mix = #"""
        { "name": "Rain", "duration": "20s", "output": { "sampleRate": 8000, "loudness": { "target": -20 } },
          "master": { "fadeIn": "2s", "fadeOut": "5s" },
          "chapters": [{"at": 0, "name": "Rain"}],
          "tracks": [ { "generator": { "type": "pink" } } ] }
        """#

    private static func steps(_ output: OutputPlan) -> [String] { output.finishing.map { "\(type(of: $0))" } }

    @Test func finishingStepsFollowTheFormat() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.write("mix.json", Self.mix))
        #expect(Self.steps(try job.outputPlan(to: .file(path: folder.path("a.wav")))) == ["TagWriting", "CommitStep"])
        #expect(Self.steps(try job.outputPlan(to: .file(path: folder.path("a.ogg"))))
                == ["EncodedFileCorrection", "TagWriting", "CommitStep"], "a lossy file is measured once written")
        #expect(Self.steps(try job.outputPlan(to: .file(path: folder.path("a.caf")))) == ["CommitStep"], "CAF's tags are libsndfile's")
        let stream = try job.outputPlan(to: .stream(descriptor: 1, format: .flac, name: "standard output"))
        #expect(stream.finishing.isEmpty && !stream.settings.tagsWrittenAfterwards && stream.settings.tagRoomBytes == 0)
        #expect(stream.warnings.count == 1 && stream.warnings[0].contains("its 1 chapter marks"), "\(stream.warnings)")
        let caf = try job.outputPlan(to: .file(path: folder.path("a.caf")))
        #expect(caf.warnings.count == 2 && caf.chapters.map(\.name) == ["Rain"] && caf.loudness?.targetLUFS == -20, "\(caf.warnings)")
    }

    /// A report gives the output's settings of the output plan the render used: a stream named `-` is the format it
    /// was encoded in (FLAC), not what its name would say (nothing, so WAV).
    @Test func theReportTakesTheOutputSettingsTheRenderUsed() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.write("mix.json", #"""
            { "duration": "1s", "output": { "sampleRate": 8000 }, "chapters": [{"at": 0, "name": "Rain"}],
              "tracks": [ { "generator": { "type": "pink" } } ] }
            """#))
        let descriptor = open(folder.path("stream.flac"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(descriptor) }
        let result = try job.render(toStream: descriptor, format: .flac, name: "-")
        let report = RenderReport(job: job, result: result, inputs: [], key: try CacheKey(plan: job.plan, range: job.range, digests: [:], output: nil),
                                  outputSHA256: "", hashSeconds: 0, hashCPUSeconds: 0)
        #expect(report.value["output"]?["format"] == .string("flac"))
        #expect(report.value["output"]?["settings"]?["sampleFormat"] == .string(result.output.settings.sampleFormat.rawValue))
        #expect(report.value["output"]?["chapters"] == .number(1))
    }

    @Test func anOutputThatCannotBeWrittenIsRefusedBeforeRendering() throws {
        let folder = try TemporaryFolder()
        let preset = try folder.write("mix.json", Self.mix)
        let job = try RenderJob(presetPath: preset)
        #expect(throws: EngineError.output(path: folder.path("a.xyz"), reason: "unknown output extension; use \(OutputFileFormat.extensionList(dotted: true))")) {
            try job.outputPlan(to: .file(path: folder.path("a.xyz")))
        }
        #expect(throws: EngineError.self) { try job.outputPlan(to: .file(path: preset)) }   // the preset it reads
        #expect(!FileManager.default.fileExists(atPath: folder.path("a.xyz")))
    }

    /// The Opus rule asks the plan whether a kind needs the channels apart, not which kinds it has.
    @Test func theOpusRuleAsksThePlanForSeparateChannels() throws {
        let folder = try TemporaryFolder()
        let beats = try RenderJob(presetPath: try folder.write("beats.json", #"""
            { "duration": "10s", "output": { "bitrate": 24 }, "tracks": [ { "binaural": { "carrierHz": 200, "beatHz": 6 } } ] }
            """#))
        #expect(beats.plan.needsSeparateChannels)
        #expect(throws: EngineError.self) { try beats.outputPlan(to: .file(path: folder.path("a.opus"))) }
        #expect(try beats.outputPlan(to: .file(path: folder.path("a.wav"))).warnings.isEmpty, "only an encoder that merges is refused")
        let noise = try RenderJob(presetPath: try folder.write("noise.json", #"""
            { "duration": "10s", "output": { "bitrate": 24 }, "tracks": [ { "generator": { "type": "pink" } } ] }
            """#))
        #expect(!noise.plan.needsSeparateChannels)
        #expect(try noise.outputPlan(to: .file(path: folder.path("a.opus"))).settings.bitrateKbps == 24)
    }

    /// The loader makes the final preset: overrides checked (naming the setting), merged, and what they leave
    /// out said; nothing patches it afterwards.
    @Test func overridesAreMergedAtLoad() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("mix.json", Self.mix)
        var overrides = RenderOverrides(durationSeconds: 12, sampleRate: 16000, quality: 0.7)
        overrides.loopable = true
        overrides.truePeakDb = -2
        let preset = try PresetLoader.load(path: path, overrides: overrides)
        #expect(preset.durationSeconds == 12 && preset.durationIsOverride)
        #expect(preset.output.sampleRate == 16000 && preset.output.quality == 0.7)
        #expect(preset.output.loudness?.truePeakDb == -2 && preset.output.loudness?.targetLUFS == -20)
        #expect(preset.master.fadeIn == nil && preset.master.fadeOut == nil && preset.output.loopable != nil)
        #expect(preset.warnings == ["\(path): master.fadeIn, master.fadeOut: left out, since this render was made loopable on the command line: a loop fades nowhere (the player's timer does)"])
        // The 7 s of fades need not fit 6 s when a loop leaves them out; without it they are fitted to the length in
        // proportion to the document's 20 s (FadeFittingTests), with a warning.
        var loopOf6 = RenderOverrides(durationSeconds: 6)
        loopOf6.loopable = true
        #expect(try PresetLoader.load(path: path, overrides: loopOf6).durationSeconds == 6)
        let fitted = try PresetLoader.load(path: path, overrides: RenderOverrides(durationSeconds: 6))
        #expect(abs(fitted.master.fadeIn!.seconds - 0.6) < 1e-12 && abs(fitted.master.fadeOut!.seconds - 1.5) < 1e-12)
        #expect(fitted.warnings.count == 1)
        #expect(throws: EngineError.setting(.duration, reason: "must be longer than 0")) {
            try PresetLoader.load(path: path, overrides: RenderOverrides(durationSeconds: 0))
        }
        var ceilingAlone = RenderOverrides()
        ceilingAlone.truePeakDb = -1
        let noLoudness = try folder.write("plain.json", #"{ "duration": "5s", "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        #expect(throws: EngineError.self) { try PresetLoader.load(path: noLoudness, overrides: ceilingAlone) }
        // The job plans what the loader made, and its warnings come first.
        let job = try RenderJob(presetPath: path, overrides: overrides)
        #expect(job.preset == preset && job.plan.warnings.first == preset.warnings[0])
    }

    /// The planner records the tracks whose loudness is measured; the job measures them and sets their gains.
    @Test func trackLoudnessIsMeasuredByTheJobNotThePlanner() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("mix.json", #"""
            { "duration": "8s", "output": { "sampleRate": 8000 },
              "tracks": [ { "name": "bed", "generator": { "type": "pink" }, "loudness": -30 },
                          { "generator": { "type": "brown" }, "loudness": { "track": "bed", "offset": -6 } } ] }
            """#)
        let preset = try PresetLoader.load(path: path)
        let recorded = try Planner(presetFile: path).plan(preset, analysis: Analyzer().analyse(preset))
        #expect(recorded.trackLoudness.map(\.track) == [0, 1])
        #expect(recorded.tracks.allSatisfy { $0.gains.constant == 1 }, "the planner sets no measured gain")
        var measured = recorded
        try LoudnessMeasuring(presetFile: path).applyTrackLoudness(to: &measured)
        #expect(measured.trackLoudness.isEmpty)
        #expect(measured.tracks.allSatisfy { $0.gains.constant != 1 })
        let job = try RenderJob(presetPath: path)
        #expect(job.plan.trackLoudness.isEmpty && job.plan.tracks.map(\.gains.constant) == measured.tracks.map(\.gains.constant))
    }
}
