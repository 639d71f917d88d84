import DSPTestSupport
import Foundation
import MixEngine
import Testing
import TestSupport

/// What fuzzing found in presets (docs/fuzzing.md), each input written out here: every one crashed, hung or ran
/// out of memory while planning, and is now a one-line error naming the JSON path.
@Suite struct FuzzFindingTests {
    /// The error loading and planning `json` (beside the files `setUp` writes) gives, or "no error".
    static func error(_ json: String, _ setUp: (TemporaryFolder) throws -> Void = { _ in }) -> String {
        do {
            let folder = try TemporaryFolder()
            try setUp(folder)
            _ = try RenderJob(presetPath: try folder.preset(json))
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// A breath whose phases round to no frames divided by a cycle of 0 frames (a crash); one of a few frames
    /// fitted billions of breaths into the render (out of memory).
    @Test func aBreathMustLastAtLeastASecond() {
        let subFrame = Self.error(#"{"duration":"1m","tracks":[{"breathing":{"pattern":{"inhale":0.000001,"exhale":0.000001}}}]}"#)
        #expect(subFrame.hasSuffix("tracks[0].breathing.pattern.inhale: must be at least 0.5s, the shortest inhale or exhale of a breath"), "\(subFrame)")
        let fast = Self.error(#"{"duration":"100h","tracks":[{"breathing":{"pattern":{"inhale":"1s","exhale":"100ms"}}}]}"#)
        #expect(fast.hasSuffix("tracks[0].breathing.pattern.exhale: must be at least 0.5s, the shortest inhale or exhale of a breath"), "\(fast)")
        #expect(Self.error(#"{"duration":"100h","tracks":[{"breathing":{"pattern":{"inhale":0.5,"exhale":0.5,"hold":0.000001}}}]}"#) == "no error")
    }

    /// A looping playlist of a file of a millisecond made a voice per play: an hour was millions of them, and
    /// 100 hours ran out of memory.
    @Test func aLoopedPlaylistOfTinyFilesIsRefused() {
        let tiny: (TemporaryFolder) throws -> Void = { folder in
            _ = try folder.wav("tiny.wav", rate: 8000, frames: 8) { _, _ in 0.25 }
        }
        let looped = Self.error(#"{"duration":"100h","tracks":[{"playlist":{"files":["tiny.wav","tiny.wav"]},"loop":true}]}"#, tiny)
        #expect(looped.contains("tracks[0].playlist.files: looped over the track's 100:00:00.000, its files (0.001 s a round) would play 720000000 "), "\(looped)")
        #expect(looped.hasSuffix(" times, more than 100000; loop a longer playlist, or join the files into one file and loop that"), "\(looped)")
        #expect(Self.error(#"{"duration":"10s","tracks":[{"playlist":{"files":["tiny.wav","tiny.wav"]},"loop":true}]}"#, tiny) == "no error")
    }

    /// One frame at 192 kHz is no frame at 8 kHz: a playlist of it never moved on (a hang).
    @Test func aFileShorterThanAFrameOfTheOutputIsRefused() {
        let blip: (TemporaryFolder) throws -> Void = { folder in
            _ = try folder.wav("blip.wav", rate: 192_000, frames: 1) { _, _ in 0.25 }
        }
        for loop in ["", #", "loop": true"#] {
            let error = Self.error(#"{"duration":"1s","output":{"sampleRate":8000},"tracks":[{"playlist":{"files":["blip.wav"]}\#(loop)}]}"#, blip)
            #expect(error.contains("tracks[0].playlist.files[0]: '") && error.hasSuffix("/blip.wav' is shorter than one frame at 8000 Hz"), "\(error)")
        }
    }

    /// Found by the audio target, which plans what it opens: a FLAC of unknown length (its STREAMINFO says 0
    /// samples) was SF_COUNT_MAX frames long, and its length at the output rate overflowed Int64.
    @Test func aFLACOfUnknownLengthPlans() {
        let crash: (TemporaryFolder) throws -> Void = { folder in
            try Data(base64Encoded: "ZkxhQwAAACIQABAAAO8QAAIQAfQA8AAAAABlLgAAAAAAACBsCIKVSB2M")!.write(to: URL(fileURLWithPath: folder.path("x.flac")))
        }
        let error = Self.error(#"{"duration":"8h","output":{"sampleRate":192000},"tracks":[{"file":"x.flac","loop":{"crossfade":"2s"}}]}"#, crash)
        #expect(error.hasSuffix("/x.flac' holds no audio (0 frames)"), "\(error)")
    }
}
