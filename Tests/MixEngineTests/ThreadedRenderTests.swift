import DSPTestSupport
import Foundation
import MixDSP
@testable import MixEngine
import Testing
import TestSupport

/// `--threads N` (`Renderer.threads`, `ParallelMixer`): workers mix stints of the timeline ahead of the render
/// thread, and the output is the one-thread render's, sample for sample, whatever the count, the block size, the
/// window or what the limiter does. (Cancelling a render with workers: RenderAPITests.)
@Suite struct ThreadedRenderTests {
    /// Every kind of sound, a streamed file that starts mid-stint, a one-shot event track, master fades, at 16 kHz so
    /// that four stints (of `ParallelMixer.stintSeconds`) stay quick; `loud` makes the limiter act (by about 2 dB).
    static func preset(files folder: TemporaryFolder, loud: Bool = false, seconds: Int = 70) throws -> String {
        let tone = try folder.wav("tone.wav", rate: 11_025, frames: 11_025 * 20) { i, _ in 0.3 * Float(sin(Double(i) * 0.05)) }
        let long = try folder.wav("long.wav", rate: 22_050, channels: 2, frames: 22_050 * 40) { i, c in
            0.2 * Float(sin(Double(i) * (c == 0 ? 0.013 : 0.021)))
        }
        let click = try folder.wav("click.wav", rate: 16_000, frames: 1600) { i, _ in i < 40 ? 0.3 : 0 }
        let boost = loud ? 30 : 0
        return try folder.preset("""
            { "duration": \(seconds), "output": { "sampleRate": 16000, "channels": 2, "bitDepth": "float" },
              "master": { "fadeIn": { "duration": "3s" }, "fadeOut": { "duration": "20s", "curve": "exponential" } },
              "tracks": [
                { "generator": { "type": "pink", "seed": 3 }, "gainDb": \(-30 + boost) },
                { "generator": { "type": "brown", "seed": 4 }, "gainDb": -30 },
                { "tone": { "frequencyHz": 220 }, "gainDb": -36 },
                { "binaural": { "carrierHz": 180, "beatHz": 6 }, "gainDb": -36 },
                { "isochronic": { "carrierHz": 220, "pulseHz": 4 }, "gainDb": -36 },
                { "breathing": { "pattern": "4-7-8" }, "gainDb": -36 },
                { "rain": { "seed": 6 }, "gainDb": \(-24 + boost), "drift": { "gainDb": 4, "timeScale": "20s", "pan": 0.3, "seed": 14 } },
                { "wind": { "seed": 7 }, "gainDb": -30 },
                { "surf": { "seed": 8 }, "gainDb": -30 },
                { "fire": { "seed": 9 }, "gainDb": -30 },
                { "crickets": { "seed": 10 }, "gainDb": -36 },
                { "file": "\(tone)", "loop": { "crossfade": "0.5s" }, "gainDb": -30, "drift": { "gainDb": 3, "timeScale": "10s", "seed": 11 } },
                { "file": "\(long)", "start": "13.7s", "gainDb": -12 },
                { "events": { "files": ["\(click)"], "interval": ["3s", "7s"], "seed": 12 }, "gainDb": -20 },
                { "resequence": { "file": "\(tone)", "segment": ["4s", "6s"], "crossfade": "1s", "seed": 13 }, "gainDb": -30 }
              ] }
            """)
    }

    /// The whole render, and a window that starts inside a stint, on 2, 3 and 5 threads and two block sizes, equal the
    /// one-thread render exactly.
    @Test(arguments: [false, true])
    func anyThreadCountRendersTheOneThreadSamples(loud: Bool) throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try Self.preset(files: folder, loud: loud))
        let rate = Int64(job.plan.sampleRate)
        for range in [job.range, rate * 21 + 777..<rate * 69 + 5] {
            let (one, oneSummary) = try renderToMemory(job, range: range)
            #expect(one.frameCount == range.count)
            if loud { #expect(oneSummary.maxGainReductionDb > 1, "the limiter acts: \(oneSummary.maxGainReductionDb) dB") }
            for (threads, block) in [(2, 4096), (3, 1000), (5, 4096)] {
                let (many, summary) = try renderToMemory(job, range: range, blockFrames: block, threads: threads)
                #expect(many.samples == one.samples, "\(threads) threads, blocks of \(block), frames \(range)")
                #expect(summary.maxGainReductionDb == oneSummary.maxGainReductionDb && summary.clippedSamples == oneSummary.clippedSamples)
                #expect(summary.loudness.integrated == oneSummary.loudness.integrated)
            }
        }
    }

    /// A loopable render's wrap-around and a session (speech ducking its bed) are the same on several threads.
    @Test func loopsAndSessionsToo() throws {
        let folder = try TemporaryFolder()
        let loopable = try folder.preset("""
            { "duration": 60, "output": { "sampleRate": 16000, "channels": 2, "loopable": "2s" },
              "tracks": [ { "rain": { "seed": 1 }, "gainDb": -20 }, { "wind": { "seed": 2 }, "gainDb": -25 } ] }
            """, name: "loop.json")
        let session = try folder.preset("""
            { "output": { "sampleRate": 16000, "channels": 2 },
              "tracks": [ { "name": "bed", "surf": { "seed": 3 }, "gainDb": -14 } ],
              "sections": [
                { "name": "One", "segments": [ { "text": "Close your eyes, and let the sound of the sea carry you.", "speech": { "voice": "espeak:en-us" }, "pauseAfter": "9s" } ] },
                { "name": "Rest", "length": "30s", "segments": [] },
                { "name": "Two", "segments": [ { "text": "Now breathe in slowly, and out again.", "speech": { "voice": "espeak:en-us" }, "gapBefore": "3s", "pauseAfter": "12s" } ] }
              ] }
            """, name: "session.json")
        for path in [loopable, session] {
            let job = try RenderJob(presetPath: path)
            #expect(job.plan.frameCount >= 3 * Int64(ParallelMixer.stintSeconds * job.plan.sampleRate), "\(path) spans three stints")
            let (one, _) = try renderToMemory(job, range: job.plan.loop.map { 0..<$0.length })
            let (two, _) = try renderToMemory(job, range: job.plan.loop.map { 0..<$0.length }, threads: 2)
            #expect(one.frameCount > 0 && two.samples == one.samples, "\(path)")
        }
    }

    /// A source that fails in a worker (a streamed file gone before its event starts, in the third stint) fails the
    /// render with the error one thread gives, and the workers stop.
    @Test func aWorkersFailureIsTheRendersFailure() throws {
        let folder = try TemporaryFolder()
        let late = try folder.wav("late.wav", rate: 16_000, frames: 16_000 * 5) { i, _ in 0.1 * Float(sin(Double(i) * 0.1)) }
        let path = try folder.preset("""
            { "duration": 80, "output": { "sampleRate": 16000, "channels": 2 },
              "tracks": [ { "rain": { "seed": 1 }, "gainDb": -20 }, { "file": "\(late)", "start": "40s" } ] }
            """)
        let job = try RenderJob(presetPath: path)
        try FileManager.default.removeItem(atPath: late)
        var messages: [String] = []
        for threads in [1, 2, 3] {
            do {
                _ = try renderToMemory(job, threads: threads)
                Issue.record("\(threads) threads: rendered without its file")
            } catch {
                messages.append(String(describing: error))
            }
        }
        #expect(messages.count == 3 && Set(messages).count == 1, "\(messages)")
        #expect(messages.first?.contains("late.wav") == true, "\(messages)")
    }
}
