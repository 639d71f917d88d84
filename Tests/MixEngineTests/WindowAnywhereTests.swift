import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import Testing
import TestSupport

/// A window anywhere in a 100-hour timeline: every kind of source reaches its frames at a cost independent of
/// their position, and with the samples a render that ran on to them gives.
@Suite struct WindowAnywhereTests {
    /// Every kind of sound that can last 100 hours, quiet enough that the limiter never acts (a partial render is
    /// exact then: `Renderer.render`), at 16 kHz so that the long lead-in stays quick.
    static func preset(files folder: TemporaryFolder) throws -> String {
        let tone = try folder.wav("tone.wav", rate: 11_025, frames: 11_025 * 20) { i, _ in 0.3 * Float(sin(Double(i) * 0.05)) }
        let click = try folder.wav("click.wav", rate: 16_000, frames: 1600) { i, _ in i < 40 ? 0.3 : 0 }
        return try folder.preset("""
            { "duration": "100h", "output": { "sampleRate": 16000, "channels": 2, "bitDepth": "float" },
              "tracks": [
                { "generator": { "type": "pink", "seed": 3 }, "gainDb": -30 },
                { "generator": { "type": "brown", "seed": 4 }, "gainDb": -30 },
                { "generator": { "type": "white", "seed": 5 }, "gainDb": -36 },
                { "tone": { "frequencyHz": 220 }, "gainDb": -36 },
                { "binaural": { "carrierHz": 180, "beatHz": 6 }, "gainDb": -36 },
                { "isochronic": { "carrierHz": 220, "pulseHz": 4 }, "gainDb": -36 },
                { "breathing": { "pattern": "4-7-8" }, "gainDb": -36 },
                { "rain": { "seed": 6 }, "gainDb": -30 },
                { "wind": { "seed": 7 }, "gainDb": -30 },
                { "surf": { "seed": 8 }, "gainDb": -30 },
                { "fire": { "seed": 9 }, "gainDb": -30 },
                { "crickets": { "seed": 10 }, "gainDb": -36 },
                { "file": "\(tone)", "loop": { "crossfade": "0.5s" }, "gainDb": -30, "drift": { "gainDb": 3, "timeScale": "1m", "seed": 11 } },
                { "events": { "files": ["\(click)"], "interval": ["5s", "10s"], "seed": 12 }, "gainDb": -20 },
                { "resequence": { "file": "\(tone)", "segment": ["4s", "6s"], "crossfade": "1s", "seed": 13 }, "gainDb": -30 }
              ] }
            """)
    }

    /// Windows of one second at 1 h, 10 h and 99 h (plus a few frames, off every epoch) equal the last second of
    /// a render that starts two minutes earlier and runs on through every kind's epochs and warm-ups.
    @Test func aWindowAtAnyHourIsTheRenderThatRanOnToIt() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try Self.preset(files: folder))
        let rate: Int64 = 16_000
        for hours in [1, 10, 99] as [Int64] {
            let start = hours * 3600 * rate + 1234
            let window = start..<start + rate
            let (direct, summary) = try renderToMemory(job, range: window, blockFrames: 1000)
            let (ranOn, _) = try renderToMemory(job, range: start - 120 * rate..<window.upperBound)
            #expect(summary.maxGainReductionDb == 0, "the limiter acted at \(hours) h")
            #expect(dB(rms(direct.channels[0])) > -40, "\(hours) h: \(dB(rms(direct.channels[0]))) dBFS")
            for c in 0..<2 {
                #expect(direct.channels[c] == Array(ranOn.channels[c].suffix(Int(rate))), "\(hours) h, channel \(c)")
            }
        }
    }
}
