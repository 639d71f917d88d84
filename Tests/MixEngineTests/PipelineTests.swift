import DSPTestSupport
import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import TestSupport
import Testing

@Suite struct PipelineTests {
    @Test(arguments: [("best", 44100), ("medium", 44100), ("fast", 44100), ("medium", 22050), ("medium", 96000),
                      ("soxr-hq", 44100), ("soxr-hq", 22050), ("soxr-vhq", 96000)])
    func resampledSineKeepsFrequencyAndLevel(quality: String, inputRate: Int) throws {
        let folder = try TemporaryFolder()
        let seconds = 2
        let wav = try folder.wav("sine.wav", rate: inputRate, channels: 1, frames: seconds * inputRate) { i, _ in
            0.5 * Float(sin(2 * Double.pi * 1000 * Double(i) / Double(inputRate)))
        }
        let preset = try folder.preset("""
            { "duration": \(seconds), "output": { "resampler": "\(quality)" },
              "master": { "limiter": { "ceilingDb": 0 } },
              "tracks": [ { "file": "\(wav)" } ] }
            """)
        let (out, summary, plan) = try renderToMemory(preset)
        #expect(plan.frameCount == Int64(seconds * 48000))
        #expect(out.channels[0].count == seconds * 48000)
        let middle = out.channels[0][12_000..<84_000]
        #expect(abs(frequency(middle, rate: 48000) - 1000) < 0.05)
        // RMS of a 0.5 sine is -9.03 dBFS; within 0.05 dB (the converters' passband ripple is far below).
        #expect(abs(dB(rms(middle)) - dB(0.5 / 2.0.squareRoot())) < 0.05)
        // Mono goes to both sides at unity.
        #expect(out.channels[0] == out.channels[1])
        #expect(summary.maxGainReductionDb == 0)
    }

    @Test(arguments: ["best", "soxr-hq", "soxr-vhq"])
    func hardSeamLoopResampledCircularlyIsSeamless(resampler: String) throws {
        // 441 Hz at 44.1 kHz: exactly 100 samples a period, so a 1 s loop holds 441 whole periods and
        // the looped stream is one continuous sine. Resampled circularly, the 48 kHz output must match
        // a sine made at 48 kHz everywhere, seams included (a loop resampled with silence past its
        // ends would click there at about -35 dBFS).
        let folder = try TemporaryFolder()
        let wav = try folder.wav("loop.wav", rate: 44100, channels: 2, frames: 44100) { i, _ in
            0.5 * Float(sin(2 * Double.pi * 441 * Double(i) / 44100))
        }
        let preset = try folder.preset("""
            { "duration": 4, "output": { "resampler": "\(resampler)" },
              "tracks": [ { "file": "\(wav)", "loop": { "crossfade": 0 } } ] }
            """)
        let (out, _, _) = try renderToMemory(preset)
        var worst: Double = 0
        for i in 0..<(4 * 48000) {
            let expected = 0.5 * sin(2 * Double.pi * 441 * Double(i) / 48000)
            worst = max(worst, abs(Double(out.channels[0][i]) - expected))
        }
        #expect(dB(worst) < -80, "largest error \(dB(worst)) dBFS")
    }

    @Test func stereoSourceKeepsItsSidesAndFoldsToMono() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("lr.wav", rate: 48000, channels: 2, frames: 4800) { _, c in c == 0 ? 0.5 : -0.25 }
        let stereo = try renderToMemory(try folder.preset("""
            { "duration": 0.1, "tracks": [ { "file": "\(wav)" } ] }
            """, name: "stereo.json")).0
        #expect(stereo.channels[0][100..<4000].allSatisfy { $0 == 0.5 })
        #expect(stereo.channels[1][100..<4000].allSatisfy { $0 == -0.25 })
        let mono = try renderToMemory(try folder.preset("""
            { "duration": 0.1, "output": { "channels": 1 }, "tracks": [ { "file": "\(wav)" } ] }
            """, name: "mono.json")).0
        #expect(mono.channelCount == 1)
        #expect(mono.channels[0][100..<4000].allSatisfy { $0 == 0.125 })
    }

    @Test func sixChannelSourceFoldsToStereo() throws {
        let folder = try TemporaryFolder()
        // L R C LFE Ls Rs = 0.1 0.2 0.3 0.4 0.05 0.06
        let levels: [Float] = [0.1, 0.2, 0.3, 0.4, 0.05, 0.06]
        let wav = try folder.wav("51.wav", rate: 48000, channels: 6, frames: 4800) { _, c in levels[c] }
        let out = try renderToMemory(try folder.preset("""
            { "duration": 0.1, "tracks": [ { "file": "\(wav)" } ] }
            """)).0
        let h: Float = 0.70710678
        #expect(abs(out.channels[0][1000] - (0.1 + h * 0.3 + h * 0.05)) < 1e-6)
        #expect(abs(out.channels[1][1000] - (0.2 + h * 0.3 + h * 0.06)) < 1e-6)
    }

    @Test func panIsABalance() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("dc.wav", rate: 48000, channels: 1, frames: 4800) { _, _ in 0.5 }
        for (pan, left, right) in [(0.0, 0.5, 0.5), (1.0, 0.0, 0.5), (-0.5, 0.5, 0.5 * cos(Double.pi / 4))] {
            let out = try renderToMemory(try folder.preset("""
                { "duration": 0.1, "tracks": [ { "file": "\(wav)", "pan": \(pan) } ] }
                """)).0
            #expect(abs(Double(out.channels[0][1000]) - left) < 1e-6)
            #expect(abs(Double(out.channels[1][1000]) - right) < 1e-6)
        }
    }

    @Test func hotMixIsLimitedAndReported() throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": 2, "tracks": [ { "generator": { "type": "white", "seed": 1 }, "gainDb": 20 } ] }
            """)
        let (out, summary, _) = try renderToMemory(preset)
        let ceiling = Float(pow(10, -1.0 / 20))
        #expect(out.channels.allSatisfy { $0.allSatisfy { abs($0) <= ceiling } })
        #expect(summary.mixPeakDb > 5)
        #expect(summary.peakDb <= -1 + 1e-4)
        #expect(summary.maxGainReductionDb > 5)
        #expect(summary.limitedSeconds > 1)
    }

    @Test func playlistItemsCrossfadeAtPlannedFrames() throws {
        let folder = try TemporaryFolder()
        let a = try folder.wav("a.wav", rate: 48000, channels: 1, frames: 48000) { _, _ in 0.25 }
        let b = try folder.wav("b.wav", rate: 48000, channels: 1, frames: 24000) { _, _ in 0.5 }
        let preset = try folder.preset("""
            { "duration": 3, "tracks": [ { "playlist": { "files": ["\(a)", "\(b)"], "crossfade": { "duration": 0.1, "curve": "equalGain" } } } ] }
            """)
        let (out, _, plan) = try renderToMemory(preset)
        let events = plan.tracks[0].events
        #expect(events.map(\.start) == [0, 48000 - 4800])
        #expect(events.map(\.end) == [48000, 48000 - 4800 + 24000])
        let x = out.channels[0]
        #expect(x[10_000] == 0.25)
        // An equal-gain crossfade of two constants moves linearly from one to the other.
        #expect(abs(x[48000 - 2400] - 0.375) < 1e-3)
        #expect(x[50_000] == 0.5)
        #expect(x[48000 - 4800 + 24000] == 0)             // over after the second item
    }

    @Test func plansTimesAsExactFrames() throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": "1:00:00", "output": { "sampleRate": 44100 },
              "master": { "fadeOut": "20m" },
              "tracks": [ { "generator": { "type": "pink" }, "start": "90s", "end": "45m", "fadeIn": "1.5s" } ] }
            """)
        let plan = try RenderJob(presetPath: preset).plan
        #expect(plan.frameCount == 3600 * 44100)
        #expect(plan.tracks[0].start == 90 * 44100)
        #expect(plan.tracks[0].end == 45 * 60 * 44100)
        // The master fade-out ends exactly on the last frame.
        #expect(plan.master.envelopes.last!.points.last!.position == 3600 * 44100)
        #expect(plan.master.envelopes.last!.points.first!.position == 40 * 60 * 44100)
    }

    @Test func adjustmentsAreReportedAsWarningsWithTheirPath() throws {
        let folder = try TemporaryFolder()
        // Noise (fixed seed): an equal-power seam of any length keeps its level, so the seam is half the file.
        var state: UInt64 = 3
        let wav = try folder.wav("short.wav", rate: 48000, channels: 1, frames: 48000) { _, _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return 0.2 * Float(Double(state >> 11) / Double(1 << 53) - 0.5)
        }
        let preset = try folder.preset("""
            { "duration": 10, "tracks": [ { "file": "\(wav)", "loop": { "crossfade": 0.8 } },
                                          { "file": "\(wav)", "fadeIn": 0.7, "fadeOut": 0.7 } ] }
            """)
        let plan = try RenderJob(presetPath: preset).plan
        #expect(plan.warnings.count == 2)
        #expect(plan.warnings[0].hasSuffix("tracks[0].loop.crossfade: 0.8 s is longer than half the 1.0 s loop; using 0.5 s"))
        #expect(plan.warnings[1].contains("tracks[1]: fade-in and fade-out overlap"))
        let loop = try #require(plan.tracks[0].events[0].material as? PreparedFile)
        #expect(loop.seam?.crossfadeFrames == 24000)
    }

    @Test func partialRenderSummarySpeaksOfItsRangeOnly() throws {
        // Loud (limited) for the first 1.2 s, quiet after: a render of [3 s, 4 s), once the limiter has
        // recovered (200 ms release), must report the quiet part, not the limiting in its warm-up.
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": 5, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": 12,
              "envelope": [ { "time": 1.2, "gainDb": 0 }, { "time": 1.21, "gainDb": -24 } ] } ] }
            """)
        let full = try renderToMemory(preset).1
        #expect(full.maxGainReductionDb > 3)
        let (out, part, plan) = try renderToMemory(preset, range: Int64(3 * 48000)..<Int64(4 * 48000))
        #expect(plan.frameCount == 5 * 48000)
        #expect(out.channels[0].count == 48000)
        #expect(part.maxGainReductionDb < 0.01)
        #expect(part.limitedSeconds == 0)
        #expect(abs(part.mixPeakDb - part.peakDb) < 0.01)
    }

    /// A file placed on 200 tracks (one-shots of one sound) is decoded and resampled once and shared from memory,
    /// and sounds as 200 streamed copies would: the same as one track 200 times louder, within float rounding.
    @Test func aFileOnManyTracksIsPreparedOnceAndShared() throws {
        let folder = try TemporaryFolder()
        let wav = try folder.wav("drop.wav", rate: 44_100, channels: 1, frames: 22_050) { i, _ in
            Float(sin(Double(i) * 0.031)) * Float(exp(-Double(i) / 5000))
        }
        let count = 200
        let many = try folder.write("many.json", """
            { "duration": 1, "output": { "sampleRate": 48000, "channels": 1 },
              "tracks": [ \(Array(repeating: "{ \"file\": \"\(wav)\", \"gainDb\": -60 }", count: count).joined(separator: ", ")) ] }
            """)
        let one = try folder.write("one.json", """
            { "duration": 1, "output": { "sampleRate": 48000, "channels": 1 },
              "tracks": [ { "file": "\(wav)", "gainDb": \(-60 + 20 * log10(Double(count))) } ] }
            """)
        let (shared, _, plan) = try renderToMemory(many)
        #expect(plan.materialRequests.count == 1)
        #expect(plan.tracks.allSatisfy { $0.events.allSatisfy { $0.material is PreparedFile } })
        let (single, _, singlePlan) = try renderToMemory(one)
        #expect(singlePlan.materialRequests.isEmpty)   // played once by one event: streamed
        let difference = zip(shared.samples, single.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(shared.samples.count == 48_000 && difference < 1e-5, "\(difference)")
    }
}
