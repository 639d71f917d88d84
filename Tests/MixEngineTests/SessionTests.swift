import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// Sessions end to end: preset -> layout -> plan -> render, measured on the rendered samples.
@Suite struct SessionTests {
    /// A voice recording made in code: seeded noise at -20 dBFS RMS where `speech` says (seconds), silence elsewhere.
    static func voiceFile(_ folder: TemporaryFolder, _ name: String, rate: Int, seconds: Double, speech: [(Double, Double)],
                          seed: UInt64 = 7, amplitude: Float = 0.173) throws -> String {
        var noise = TestSignals.Noise(seed: seed)
        let frames = Int(seconds * Double(rate))
        let samples = (0..<frames).map { n -> Float in
            let t = Double(n) / Double(rate)
            let value = noise.sample() * amplitude      // uniform: RMS = amplitude / √3 = 0.1 (-20 dBFS)
            return speech.contains { t >= $0.0 && t < $0.1 } ? value : 0
        }
        return try folder.wav(name, rate: rate, frames: frames) { n, _ in samples[n] }
    }

    static func job(_ json: String, in folder: TemporaryFolder, overrides: RenderOverrides = RenderOverrides()) throws -> RenderJob {
        try RenderJob(presetPath: try folder.preset(json), overrides: overrides)
    }

    static func error(_ json: String, overrides: RenderOverrides = RenderOverrides()) -> String {
        do {
            let folder = try TemporaryFolder()
            _ = try job(json, in: folder, overrides: overrides)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    // MARK: - Placement

    /// Each segment's audio is found (by cross-correlation with the recording) at the frame the timeline gives.
    @Test func theVoiceLandsAtTheTimelinesFrames() throws {
        let folder = try TemporaryFolder()
        let rate = 16000
        _ = try Self.voiceFile(folder, "a.wav", rate: rate, seconds: 0.6, speech: [(0.05, 0.55)], seed: 1)
        _ = try Self.voiceFile(folder, "b.wav", rate: rate, seconds: 0.5, speech: [(0.0, 0.5)], seed: 2)
        let json = """
        { "output": { "sampleRate": \(rate), "channels": 1, "bitDepth": "float" }, "voice": { "edgeFade": 0 },
          "sections": [
            { "name": "One", "segments": [ { "file": "a.wav", "gapBefore": "1.25s", "pauseAfter": "0.5s" }, { "file": "b.wav", "gapBefore": "0.3s" } ] },
            { "name": "Two", "segments": [ { "file": "a.wav", "at": "5s" }, { "file": "b.wav", "gapBefore": "0.75s" } ] }
          ] }
        """
        let job = try Self.job(json, in: folder)
        let (capture, _) = try renderToMemory(job)
        let out = capture.channels[0]
        let segments = job.plan.timeline.segments
        let expected: [Int64] = [20000, 42400, 80000, 101600]   // gaps, lengths (9600, 8000) and pauses in frames
        #expect(segments.map(\.start) == expected)
        for segment in segments {
            let source = try readAll(AudioFile.open(path: folder.path(segment.caption.hasSuffix("a.wav") ? "a.wav" : "b.wav")))
            // The lag, within ±400 frames of the timeline's start, where the render best matches the recording.
            let best = (-400...400).max { lagScore(out, source, Int(segment.start) + $0) < lagScore(out, source, Int(segment.start) + $1) }!
            #expect(best == 0, "segment at \(segment.start) found \(best) frames off")
        }
    }

    private func lagScore(_ out: [Float], _ source: [Float], _ start: Int) -> Double {
        var sum = 0.0
        for (i, x) in source.enumerated() where start + i >= 0 && start + i < out.count { sum += Double(x) * Double(out[start + i]) }
        return sum
    }

    /// Every segment is brought to the voice level, measured on its speech only: a quiet recording with long
    /// pauses and a loud one without pauses come out at the same speech RMS.
    @Test func everySegmentIsAtTheVoiceLevel() throws {
        let folder = try TemporaryFolder()
        let rate = 16000
        _ = try Self.voiceFile(folder, "quiet.wav", rate: rate, seconds: 6, speech: [(0.2, 1.0), (4.0, 5.0)], amplitude: 0.017)
        _ = try Self.voiceFile(folder, "loud.wav", rate: rate, seconds: 2, speech: [(0, 2)], amplitude: 0.6)
        let json = """
        { "output": { "sampleRate": \(rate), "channels": 1, "bitDepth": "float" }, "voice": { "levelDb": -23 },
          "sections": [ { "name": "A", "segments": [ { "file": "quiet.wav", "pauseAfter": "1s" }, { "file": "loud.wav" },
                                                      { "text": "Let your shoulders drop.", "gapBefore": "1s" },
                                                      { "text": "Breathe.", "gapBefore": "1s", "speech": { "volume": 40 } } ] } ] }
        """
        let job = try Self.job(json, in: folder)
        let (capture, _) = try renderToMemory(job)
        let out = capture.channels[0]
        for segment in job.plan.timeline.segments {
            let speech = segment.speech.flatMap { out[Int($0.lowerBound)..<Int($0.upperBound)] }
            #expect(abs(dB(rms(speech)) - -23) < 0.5, "\(segment.caption): speech at \(dB(rms(speech))) dBFS")
        }
    }

    /// With `voice.loudness`, every segment is brought to that loudness (EBU R128, gated: pauses longer than
    /// the gate do not count), as it plays in stereo: a quiet recording, a loud one and a text each measure
    /// within 0.5 LU of -20 LUFS where they play; and without `loudness` or `levelDb`, of the default -16 LUFS
    /// (docs/sessions.md, "How loud"). With `levelDb` it is the dBFS level that counts, not the default.
    @Test(arguments: [(#""voice": { "loudness": -20 }"#, -20.0), (#""voice": { "pan": 0 }"#, NarrationSpec.defaultLoudnessLUFS)])
    func everySegmentIsAtTheVoiceLoudness(voice: String, lufs: Double) throws {
        #expect(NarrationSpec.defaultLoudnessLUFS == -16)
        let folder = try TemporaryFolder()
        let rate = 16000
        _ = try Self.voiceFile(folder, "quiet.wav", rate: rate, seconds: 6, speech: [(0.2, 2.0), (4.0, 5.5)], amplitude: 0.017)
        _ = try Self.voiceFile(folder, "loud.wav", rate: rate, seconds: 2, speech: [(0, 2)], amplitude: 0.6)
        let json = """
        { "output": { "sampleRate": \(rate), "channels": 2, "bitDepth": "float" }, \(voice),
          "sections": [ { "name": "A", "segments": [ { "file": "quiet.wav", "pauseAfter": "1s" }, { "file": "loud.wav" },
                                                      { "text": "Let your shoulders drop, and let your breath slow down.", "gapBefore": "1s" } ] } ] }
        """
        let job = try Self.job(json, in: folder)
        let (capture, _) = try renderToMemory(job)
        let channels = capture.channels
        for segment in job.plan.timeline.segments {
            let meter = GatedLoudness(channelCount: 2, sampleRate: rate)
            let span = Int(segment.start)..<Int(segment.end)
            let block = AudioBlock(channelCount: 2, capacity: span.count)
            for c in 0..<2 { for (i, frame) in span.enumerated() { block.channel(c)[i] = channels[c][frame] } }
            meter.add(block, offset: 0, count: span.count)
            #expect(abs(meter.integrated - lufs) < 0.5, "\(segment.caption): \(meter.integrated) LUFS")
        }
        if voice.contains("pan") {
            let levelled = try Self.job(json.replacingOccurrences(of: #""pan": 0"#, with: #""levelDb": -20"#), in: folder)
            #expect(levelled.preset.voice?.loudnessLUFS == nil && levelled.preset.voice?.levelDb == -20)
        }
    }

    // MARK: - Ducking

    /// The bed (a tone, alone on the right: the voice is panned left) is the set depth lower during speech;
    /// it is already down before each onset; it stays down through a pause shorter than the hold and comes
    /// back up in a longer one.
    @Test func theBedDucksUnderSpeech() throws {
        let folder = try TemporaryFolder()
        let rate = 16000
        _ = try Self.voiceFile(folder, "v.wav", rate: rate, seconds: 9, speech: [(1.0, 2.0), (2.5, 3.5), (7.5, 8.5)])
        let json = """
        { "output": { "sampleRate": \(rate), "channels": 2, "bitDepth": "float" },
          "voice": { "pan": -1, "ducking": { "depthDb": -12, "lookahead": "500ms", "attack": "300ms", "hold": "1s", "release": "500ms" } },
          "tracks": [ { "name": "bed", "tone": { "frequencyHz": 200 } } ],
          "sections": [ { "name": "A", "segments": [ { "file": "v.wav" } ] } ] }
        """
        let job = try Self.job(json, in: folder)
        let (capture, _) = try renderToMemory(job)
        let bed = capture.channels[1]
        let reference = rms(bed[0..<1600 * 4])      // 0.4 s: whole cycles of 200 Hz, before anything ducks
        func level(_ from: Double, _ to: Double) -> Double {
            dB(rms(bed[Int(from * Double(rate))..<Int(to * Double(rate))]) / reference)
        }
        #expect(abs(level(0.8, 1.0) - -12) < 0.05, "down before the first onset: \(level(0.8, 1.0))")
        #expect(abs(level(1.0, 2.0) - -12) < 0.05, "down during speech: \(level(1.0, 2.0))")
        #expect(abs(level(2.0, 2.5) - -12) < 0.05, "held through a short pause: \(level(2.0, 2.5))")
        #expect(abs(level(4.1, 6.9)) < 0.05, "back up in a long pause: \(level(4.1, 6.9))")
        #expect(abs(level(7.3, 8.5) - -12) < 0.05, "down again before the next onset: \(level(7.3, 8.5))")
        #expect(level(0.5, 0.6) < -0.5 && level(0.5, 0.6) > -11.5, "on its way down after the look-ahead began")
        #expect(job.plan.timeline.ducked.count == 2)
        #expect(job.plan.timeline.ducked.first?.downFrom == 8000)
    }

    // MARK: - Length

    /// The same session at 1, 5 and 20 minutes ends exactly on the requested frame; the stretching section
    /// takes the difference, the voice keeps its timing.
    @Test(arguments: [60.0, 300.0, 1200.0])
    func aStretchedSessionEndsOnTheRequestedFrame(seconds: Double) throws {
        let folder = try TemporaryFolder()
        let rate = 8000
        let json = """
        { "output": { "sampleRate": \(rate), "channels": 1, "bitDepth": "float" },
          "tracks": [ { "generator": { "type": "pink" }, "gainDb": -12 }, { "breathing": { "pattern": "box" }, "during": "Breathe" } ],
          "sections": [ { "name": "Intro", "segments": [ { "text": "Breathe with the tone.", "gapBefore": "1s" } ] },
                        { "name": "Breathe", "length": "16s", "stretch": true },
                        { "name": "Close", "segments": [ { "text": "Well done.", "gapBefore": "1s", "pauseAfter": "1s" } ] } ],
          "ending": { "type": "sleep", "fadeOut": "5s" } }
        """
        let job = try Self.job(json, in: folder, overrides: RenderOverrides(durationSeconds: seconds))
        let natural = try Self.job(json, in: folder)
        #expect(job.plan.frameCount == Int64(seconds) * Int64(rate))
        let counter = FrameCounter()
        _ = try Renderer(plan: job.plan).render(to: counter, range: job.range)
        #expect(counter.frames == Int64(seconds) * Int64(rate))
        let (intro, close) = (job.plan.timeline.segments[0], job.plan.timeline.segments[1])
        #expect(intro.start == natural.plan.timeline.segments[0].start)
        #expect(close.start - job.plan.timeline.sections[2].start == natural.plan.timeline.segments[1].start - natural.plan.timeline.sections[2].start)
        #expect(job.plan.timeline.sections[1].addedFrames == job.plan.frameCount - natural.plan.frameCount)
        // The pacer plays whole box cycles (16 s) in the stretched section.
        guard let phases = (job.plan.timeline.notes.first(where: { $0.track == "track 2" })?.note as? BreathingNote)?.phases else {
            Issue.record("no breathing phases in the timeline"); return
        }
        let span = Int(job.plan.timeline.sections[1].end - job.plan.timeline.sections[1].start)
        #expect(phases.count == 4 * (span / (16 * rate)))
    }

    @Test func aLengthShorterThanTheVoiceNamesTheShortest() throws {
        let json = #"{ "duration": "2s", "sections": [ { "name": "A", "segments": [ { "text": "This sentence takes longer than two seconds to say.", "pauseAfter": "1s" } ] } ] }"#
        #expect(Self.error(json).contains("preset.json: duration: 0:02.000 is shorter than the session's voice, pauses and ending need; the shortest it can be is 0:0"))
        #expect(Self.error(json, overrides: RenderOverrides(durationSeconds: 1)).contains("the shortest it can be is"))
    }

    /// The pacer's tone swells where the timeline says each inhale is, stays up through each hold, and is down
    /// by the end of each exhale; the phases repeat every 19 s (4-7-8).
    @Test func breathingPhasesLandWhereTheTimelineSays() throws {
        let folder = try TemporaryFolder()
        let rate = 8000
        let json = """
        { "output": { "sampleRate": \(rate), "channels": 1, "bitDepth": "float" },
          "tracks": [ { "name": "pacer", "breathing": { "pattern": "4-7-8", "glide": 0 }, "during": "Breathe" } ],
          "sections": [ { "name": "Intro", "length": "2.5s" }, { "name": "Breathe", "length": "57s" } ] }
        """
        let job = try Self.job(json, in: folder)
        let (capture, _) = try renderToMemory(job)
        let out = capture.channels[0]
        guard let phases = (job.plan.timeline.notes.first?.note as? BreathingNote)?.phases else { Issue.record("no phases"); return }
        #expect(phases.count == 9)          // three whole cycles of inhale, hold, exhale in 57 s
        func level(_ from: Int64, _ seconds: Double) -> Double {
            let lo = Int(from), hi = lo + Int(seconds * Double(rate))
            return rms(out[max(lo, 0)..<min(hi, out.count)])
        }
        let top = level(phases[1].start, 1)    // the first hold
        for phase in phases {
            switch phase.name {
            case "inhale":
                #expect(level(phase.start, 0.2) < 0.05 * top, "quiet as inhale \(phase.cycle) starts")
                #expect(level(phase.end - 1600, 0.2) > 0.95 * top, "up by the end of inhale \(phase.cycle)")
            case "hold":
                #expect(abs(level(phase.start, Double(phase.end - phase.start) / Double(rate)) / top - 1) < 0.01, "held in cycle \(phase.cycle)")
            default:
                #expect(level(phase.end - 1600, 0.2) < 0.05 * top, "down by the end of exhale \(phase.cycle)")
            }
        }
        let inhales = phases.filter { $0.name == "inhale" }.map(\.start)
        #expect(inhales.first == 20000)      // the section's start
        #expect(zip(inhales, inhales.dropFirst()).allSatisfy { $1 - $0 == 19 * Int64(rate) })
    }

    // MARK: - Invariants

    /// Block size and partial renders do not change a session's samples (voice, ducking, beats, pacer, ending).
    @Test func aSessionIsTheSameInAnyBlocksAndInPart() throws {
        let folder = try TemporaryFolder()
        let json = """
        { "output": { "sampleRate": 16000, "channels": 2, "bitDepth": "float" },
          "voice": { "ducking": { "depthDb": -8 } },
          "tracks": [ { "generator": { "type": "brown", "seed": 3 }, "gainDb": -10 },
                      { "binaural": { "carrierHz": 200, "schedule": [ { "at": 0, "beatHz": 10 }, { "at": { "section": "B", "edge": "end" }, "beatHz": 4 } ] }, "duck": false, "gainDb": -12 },
                      { "breathing": { "pattern": "coherent", "cues": { "cycles": 1 } }, "during": "B" } ],
          "sections": [ { "name": "A", "segments": [ { "text": "Hello.", "gapBefore": "0.5s", "pauseAfter": "1s" } ] },
                        { "name": "B", "length": "12s" } ],
          "ending": { "type": "wake", "rise": "2s", "chime": "bell" } }
        """
        let job = try Self.job(json, in: folder)
        let (whole, _) = try renderToMemory(job, blockFrames: 4096)
        let (odd, _) = try renderToMemory(job, blockFrames: 1000)
        #expect(whole.samples == odd.samples)
        let part = 40_000..<(job.plan.frameCount - 7_001)
        let (slice, _) = try renderToMemory(job, range: part, blockFrames: 777)
        #expect(slice.samples == Array(whole.samples[Int(part.lowerBound) * 2..<Int(part.upperBound) * 2]))
    }

    // MARK: - Errors

    @Test func sectionReferencesAreChecked() {
        let base = #""sections": [ { "name": "Induction", "length": "10s" }, { "name": "Deepener", "length": "10s" } ]"#
        #expect(Self.error(#"{ \#(base), "tracks": [ { "tone": { "frequencyHz": 100 }, "during": "Deepner" } ] }"#)
            .hasSuffix("tracks[0].during: no section is named 'Deepner' (did you mean 'Deepener'?); the sections are 'Induction', 'Deepener'"))
        #expect(Self.error(#"{ \#(base), "tracks": [ { "binaural": { "carrierHz": 200, "schedule": [ { "at": { "section": "X" }, "beatHz": 4 } ] } } ] }"#)
            .contains("tracks[0].binaural.schedule[0].at: no section is named 'X'"))
        #expect(Self.error(#"{ \#(base), "tracks": [ { "binaural": { "carrierHz": 200, "schedule": [ { "at": "15s", "beatHz": 4 }, { "at": { "section": "Deepener" }, "beatHz": 2 } ] } } ] }"#)
            .contains("tracks[0].binaural.schedule[1].at: comes at 10.0 s, before the previous point"))
        #expect(Self.error(#"{ "duration": 10, "tracks": [ { "tone": { "frequencyHz": 100 }, "during": "A" } ] }"#)
            .contains("tracks[0].during: 'during' names sections of a session"))
        #expect(Self.error(#"{ "sections": [ { "name": "A", "segments": [ { "text": "Hi.", "at": "1s" } ] }, { "name": "B", "segments": [ { "text": "Hi.", "at": "0s" } ] } ] }"#)
            .contains("sections[1].segments[0].at: 0s is before its section 'B' starts"))
        #expect(Self.error(#"{ "sections": [ { "name": "A", "length": 1 }, { "name": "A", "length": 1 } ] }"#)
            .contains("sections[1]: there is already a section named 'A'"))
        #expect(Self.error(#"{ "sections": [ { "name": "A" } ] }"#).contains("sections[0]: a section needs 'segments' to speak or a 'length' to last"))
        #expect(Self.error(#"{ "output": { "channels": 1 }, "sections": [ { "name": "A", "length": 1 } ], "tracks": [ { "binaural": { "carrierHz": 200, "beatHz": 4 } } ] }"#)
            .contains("tracks[0].binaural: binaural beats need stereo output"))
        #expect(Self.error(#"{ "sections": [ { "name": "A", "length": 1 } ], "ending": { "type": "sleep", "rise": "5s" } }"#)
            .contains("ending.rise: 'rise' belongs to the wake ending"))
    }
}

/// An `AudioEncoder` that only counts frames.
final class FrameCounter: AudioEncoder {
    var frames: Int64 = 0
    func write(interleaved: UnsafePointer<Float>, frames: Int) throws { self.frames += Int64(frames) }
    func finish() throws {}
}
