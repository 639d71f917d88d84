import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// The analysis phase (`Analyzer`, `Analysis`) and the planner that only looks things up in it.
@Suite struct AnalysisTests {
    /// A plan made from a hand-made analysis of a file that does not exist: the planner reads nothing.
    @Test func thePlannerPlansFromTheAnalysisAlone() throws {
        let path = "/nonexistent/mixrender-analysis-test/rain.wav"
        let preset = try PresetLoader.parse(Array(#"{"duration": 10, "tracks": [{"file": "\#(path)"}, {"file": "\#(path)", "start": 2}]}"#.utf8),
                                            file: "hand.json", baseDirectory: "")
        #expect(!FileManager.default.fileExists(atPath: path))
        let info = AudioFileInfo(path: path, formatName: "WAV", sampleRate: 24_000, channelCount: 1, frameCount: 96_000)
        let plan = try Planner(presetFile: "hand.json").plan(preset, analysis: Analysis(files: [path: info]))
        // 4 s at 24 kHz is 4 s at the output's 48 kHz, from each track's start.
        #expect(plan.tracks.map { $0.events.map(\.start) } == [[0], [96_000]])
        #expect(plan.tracks.map { $0.events.map(\.end) } == [[192_000], [288_000]])
        #expect(plan.sourceFiles[path] == info)
    }

    /// What a kind asks for is what its planning looks up: a looped file shorter than twice its crossfade is
    /// decoded in the analysis (for its seam), a longer one is only probed.
    @Test func kindsAskForWhatTheyLookUp() throws {
        let folder = try TemporaryFolder()
        let short = try folder.wav("short.wav", rate: 48_000, frames: 4_800) { n, _ in sin(Float(n) * 0.05) * 0.5 }
        let long = try folder.wav("long.wav", rate: 48_000, frames: 96_000) { n, _ in sin(Float(n) * 0.05) * 0.5 }
        let json = #"{"duration": 10, "tracks": [{"file": "short.wav", "loop": {"crossfade": 1}}, {"file": "long.wav", "loop": {"crossfade": 0.5}}]}"#
        let preset = try PresetLoader.load(path: try folder.write("loop.json", json))
        let analysis = try Analyzer().analyse(preset)
        #expect(Set(analysis.files.keys) == [short, long])
        #expect(analysis.made.decodes == 1)
        #expect(analysis.decoded[DecodeRequest.Key(path: short, isCircular: true)] != nil)
        _ = try Planner(presetFile: "loop.json").plan(preset, analysis: analysis)
    }

    /// The texts are shared out among lanes by length (`Analyzer.lanes`): one per 500 characters up to the most
    /// allowed, the longest first to the emptiest lane, each lane keeping the texts' order.
    @Test func textsAreSharedOutAmongLanesByLength() {
        let settings = SpeechSettings(voice: "espeak:en-us")
        let texts = [400, 3_000, 200, 1_000].map { SpeechRequest(text: String(repeating: "a", count: $0), ssml: false, settings: settings) }
        let counts = { (lanes: [[SpeechRequest]]) in lanes.map { $0.map(\.text.count) } }
        #expect(counts(Analyzer.lanes(of: texts, most: 2)) == [[3_000], [400, 200, 1_000]])
        #expect(counts(Analyzer.lanes(of: texts, most: 8)) == [[3_000], [1_000], [400], [200]])
        #expect(counts(Analyzer.lanes(of: [texts[0], texts[2]], most: 8)) == [[400, 200]])   // 600 characters pay for one helper
        #expect(counts(Analyzer.lanes(of: texts, most: 1)) == [[400, 3_000, 200, 1_000]])
        #expect(counts(Analyzer.lanes(of: Array(texts.prefix(1)), most: 8)) == [[400]])
        #expect(Analyzer.lanes(of: [], most: 8).isEmpty)
    }

    /// A session's texts said in two lanes (two helpers at once) are the samples each says alone. (Its texts are its
    /// own, so the process-wide cache holds none of them before it.)
    @Test func textsSaidInLanesAreTheSamplesSaidInOne() throws {
        let folder = try TemporaryFolder()
        let sentence = "Let your breath slow down, and let the sound of the rain carry you further into rest. "
        let segments = (0..<4).map { k in #"{"text": "\#(k). \#(String(repeating: sentence, count: 10))"}"# }.joined(separator: ", ")
        let path = try folder.write("s.json", #"{"output": {"sampleRate": 16000}, "voice": {"speech": {"voice": "espeak:en-us"}}, "sections": [{"name": "A", "segments": [\#(segments)]}]}"#)
        let preset = try PresetLoader.load(path: path)
        var two = Analyzer()
        two.speechLanes = 2
        #expect(Analyzer.lanes(of: AnalysisRequests.of(preset).texts.elements, most: 2).count == 2)
        let analysis = try two.analyse(preset)
        #expect(analysis.speech.count == 4)
        let alone = SpeechSynthesizer()
        alone.usesCache = false
        for (request, entry) in analysis.speech {
            let spoken = try #require((try entry.get().utterance.material as? SpokenText)?.speech)
            #expect(spoken == (try alone.synthesize(request.text, settings: request.settings, ssml: false)) && spoken.samples.count > 22_050)
        }
    }

    /// A missing file is an error at its JSON path, as when planning read the files itself.
    @Test func aFailedRequestIsAnErrorWherePlanningMeetsIt() throws {
        let folder = try TemporaryFolder()
        let json = #"{"duration": 10, "tracks": [{"generator": {"type": "pink"}}, {"playlist": {"files": ["gone.wav"]}}]}"#
        let path = try folder.write("gone.json", json)
        let preset = try PresetLoader.load(path: path)
        let analysis = try Analyzer().analyse(preset)   // does not throw: the failure is kept
        #expect(throws: EngineError.self) { try Planner(presetFile: path).plan(preset, analysis: analysis) }
        do { _ = try Planner(presetFile: path).plan(preset, analysis: analysis) } catch {
            #expect("\(error)".contains("tracks[1].playlist.files[0]"), "\(error)")
        }
    }

    /// A second render of a session given the same `PreparedMaterial` says and measures nothing again, and plans
    /// the same.
    @Test func aSecondRenderWithTheSameMaterialAnalysesNothingAgain() throws {
        let folder = try TemporaryFolder()
        _ = try SessionTests.voiceFile(folder, "voice.wav", rate: 16_000, seconds: 1, speech: [(0.1, 0.9)])
        let json = """
        { "output": { "sampleRate": 16000, "channels": 1, "bitDepth": "float" },
          "tracks": [ { "generator": { "type": "pink" }, "gainDb": -20 } ],
          "sections": [ { "name": "A", "segments": [ { "file": "voice.wav" }, { "text": "Let your shoulders drop.", "gapBefore": "1s" } ] } ] }
        """
        let path = try folder.write("session.json", json)
        let material = PreparedMaterial()
        let first = try RenderJob(presetPath: path, analyzer: Analyzer(material: material))
        #expect(first.analysisCounts.texts == 1 && first.analysisCounts.recordings == 1)
        let second = try RenderJob(presetPath: path, analyzer: Analyzer(material: material))
        #expect(second.analysisCounts == Analysis.Counts())
        #expect(second.plan.timeline.segments.map(\.start) == first.plan.timeline.segments.map(\.start))
        #expect(second.plan.tracks.map { $0.events.map(\.gains.constant) } == first.plan.tracks.map { $0.events.map(\.gains.constant) })
        #expect(material.analyses.count == 2)
        let (a, _) = try renderToMemory(first), (b, _) = try renderToMemory(second)
        #expect(a.channels == b.channels)
    }

    /// A recording is decoded once, in the analysis, and played from what it decoded: the render needs its file no
    /// more, and sounds as the file streamed does (a second job finds it measured in the cache, and streams it).
    /// (A recording said more than once and short enough is shared as decoded at the output rate, `SharedFilesPass`,
    /// as any file played more than once is.)
    @Test func aRecordingIsDecodedOnceForAnalysisAndPlay() throws {
        let folder = try TemporaryFolder()
        let voice = try SessionTests.voiceFile(folder, "voice.wav", rate: 22_050, seconds: 1.5, speech: [(0.2, 1.3)])
        let json = """
        { "output": { "sampleRate": 16000, "channels": 2, "bitDepth": "float" },
          "tracks": [ { "generator": { "type": "brown" }, "gainDb": -24 } ],
          "sections": [ { "name": "A", "segments": [ { "file": "voice.wav", "gapBefore": "0.5s", "pauseAfter": "1s" } ] } ] }
        """
        let path = try folder.write("session.json", json)
        let material = PreparedMaterial()
        let held = try RenderJob(presetPath: path, analyzer: Analyzer(material: material))
        let streamed = try RenderJob(presetPath: path, analyzer: Analyzer(material: material))
        #expect(held.analysisCounts.recordings == 1 && streamed.analysisCounts.recordings == 0)
        let voiceTrack = { (job: RenderJob) in job.plan.tracks.first { $0.name == "voice" }! }
        #expect(voiceTrack(held).events.allSatisfy { $0.material is HeldRecording })
        #expect(voiceTrack(streamed).events.allSatisfy { $0.material is StreamedFile })
        let (a, _) = try renderToMemory(held), (b, _) = try renderToMemory(streamed)
        #expect(a.channels == b.channels)
        try FileManager.default.removeItem(atPath: voice)
        let (c, _) = try renderToMemory(held)
        #expect(c.channels == a.channels)
    }

    /// A track's loudness and a render's normalisation are measured once per render key in a `PreparedMaterial`:
    /// a second job and a second render of the same plan find them measured, and come out the same.
    @Test func measurementsAreKeptByRenderKey() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("mix.json", #"""
            { "duration": "8s", "output": { "sampleRate": 8000, "loudness": { "target": -20 } },
              "tracks": [ { "name": "bed", "generator": { "type": "pink" }, "loudness": -30 },
                          { "generator": { "type": "brown" }, "loudness": { "track": "bed", "offset": -6 } } ] }
            """#)
        let material = PreparedMaterial()
        let first = try RenderJob(presetPath: path, analyzer: Analyzer(material: material))
        #expect(material.measurements.measured == 2 && material.measurements.reused == 0)
        let second = try RenderJob(presetPath: path, analyzer: Analyzer(material: material))
        #expect(material.measurements.measured == 2 && material.measurements.reused == 2)
        #expect(second.plan.tracks.map(\.gains.constant) == first.plan.tracks.map(\.gains.constant))

        let a = try first.render(to: folder.path("a.wav"), material: material)
        #expect(material.measurements.measured == 3)
        let b = try second.render(to: folder.path("b.wav"), material: material)
        #expect(material.measurements.measured == 3 && material.measurements.reused == 3)
        #expect(b.normalisation?.gainDb == a.normalisation?.gainDb)
        #expect(b.normalisation?.seconds == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("a.wav"))) == Data(contentsOf: URL(fileURLWithPath: folder.path("b.wav"))))
        // Another target is another measurement.
        var lower = RenderOverrides()
        lower.loudnessTarget = -22
        let other = try RenderJob(presetPath: path, overrides: lower, analyzer: Analyzer(material: material))
        _ = try other.render(to: folder.path("c.wav"), material: material)
        #expect(material.measurements.measured == 4)
    }

    /// Cancelled, the analysis stops before its next request and throws `CancellationError`.
    @Test func aCancelledAnalysisThrowsCancellationError() throws {
        let folder = try TemporaryFolder()
        _ = try folder.wav("a.wav", frames: 4_800) { n, _ in Float(n % 100) / 200 }
        let path = try folder.write("c.json", #"{"duration": 10, "tracks": [{"file": "a.wav"}, {"speech": {"text": "Hello."}}]}"#)
        let preset = try PresetLoader.load(path: path)
        #expect(throws: CancellationError.self) { try Analyzer(isCancelled: { true }).analyse(preset) }
        #expect(throws: CancellationError.self) { try RenderJob(presetPath: path, analyzer: Analyzer(isCancelled: { true })) }
    }
}
