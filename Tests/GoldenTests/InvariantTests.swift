import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import Testing

/// Properties every render must have, whatever the goldens hold.
@Suite struct InvariantTests {
    static let everything = GoldenPaths.golden("features/everything.json")
    static let limiter = GoldenPaths.golden("features/limiter.json")

    /// The first frame where two renders differ, or nil when every sample is bit-identical.
    static func firstDifference(_ a: PCMAudio, _ b: PCMAudio) -> String? {
        guard a.channelCount == b.channelCount, a.frameCount == b.frameCount else {
            return "shape \(a.frameCount) x \(a.channelCount) vs \(b.frameCount) x \(b.channelCount)"
        }
        guard let i = a.samples.indices.first(where: { a.samples[$0] != b.samples[$0] }) else { return nil }
        let d = LosslessTier.compare(actual: a, golden: b)
        return "frame \(i / a.channelCount) channel \(i % a.channelCount): \(a.samples[i]) vs \(b.samples[i]); \(d)"
    }

    /// Block sizes 4096, 1000 and 1 give bit-identical output: gains come from absolute positions, sources
    /// are addressed by position, and the limiter runs frame by frame. Two ranges of a mix of everything:
    /// the first 4 s (fades, envelope over a fade, stream and playlist starting) and 7.5-9.5 s (a partial
    /// render: loop seam, playlist crossfade, the stream's fade-out).
    @Test(arguments: [(0.0, 4.0), (7.5, 9.5)])
    func sameOutputForAnyBlockSize(start: Double, end: Double) throws {
        let job = try RenderJob(presetPath: Self.everything, overrides: GoldenRender.overrides(start: start, end: end))
        let reference = try GoldenRender.toMemory(job, blockFrames: 4096).audio
        #expect(reference.frameCount == Int((end - start) * 8000))
        for blockFrames in [1000, 1, 4097] {
            let other = try GoldenRender.toMemory(job, blockFrames: blockFrames).audio
            let difference = Self.firstDifference(other, reference)
            #expect(difference == nil, "block size \(blockFrames) vs 4096: \(difference ?? "")")
        }
    }

    /// The smallest case of the above: a track whose gain, envelope and fade-in all differ from 1 where
    /// the envelope holds a constant value while the fade-in ramps. 4096-frame blocks straddle the
    /// envelope's first point (frame 8000), 1000-frame blocks do not.
    @Test func envelopeHoldingDuringAFadeIsTheSameForAnyBlockSize() throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": 2, "output": { "sampleRate": 8000, "channels": 1 },
              "tracks": [ { "generator": { "type": "white" }, "gainDb": -3,
                            "fadeIn": { "duration": 1.5, "curve": "logarithmic" },
                            "envelope": [ { "time": 1, "gainDb": -6 }, { "time": 2, "gainDb": 0 } ] } ] }
            """, name: "envelope-over-fade.json")
        let job = try RenderJob(presetPath: preset)
        let reference = try GoldenRender.toMemory(job, blockFrames: 4096).audio
        let other = try GoldenRender.toMemory(job, blockFrames: 1000).audio
        let difference = Self.firstDifference(other, reference)
        #expect(difference == nil, "block size 1000 vs 4096: \(difference ?? "")")
    }

    /// The limiter works frame by frame: block size does not matter while it acts either.
    @Test func sameOutputForAnyBlockSizeWhileTheLimiterActs() throws {
        let job = try RenderJob(presetPath: Self.limiter)
        let reference = try GoldenRender.toMemory(job, blockFrames: 4096)
        #expect(reference.summary.maxGainReductionDb > 3)
        for blockFrames in [1000, 1] {
            let other = try GoldenRender.toMemory(job, blockFrames: blockFrames).audio
            let difference = Self.firstDifference(other, reference.audio)
            #expect(difference == nil, "block size \(blockFrames) vs 4096: \(difference ?? "")")
        }
    }

    /// The same seed gives the same noise, another seed other noise (for every colour).
    @Test(arguments: ["white", "pink", "brown"])
    func seedDecidesTheNoise(color: String) throws {
        let folder = try TemporaryFolder()
        func render(seed: UInt64) throws -> PCMAudio {
            let path = try folder.preset("""
                { "duration": 1, "output": { "sampleRate": 8000 },
                  "tracks": [ { "generator": { "type": "\(color)", "seed": \(seed) } } ] }
                """, name: "\(color)-\(seed).json")
            return try GoldenRender.toMemory(path).audio
        }
        let a = try render(seed: 42), b = try render(seed: 42), c = try render(seed: 43)
        #expect(Self.firstDifference(a, b) == nil, "seed 42 twice")
        #expect(a.rmsDb > -30)
        // Different seeds: different and unrelated (normalised correlation near 0).
        var ab = 0.0, aa = 0.0, cc = 0.0
        for i in a.samples.indices {
            let x = Double(a.samples[i]), y = Double(c.samples[i])
            ab += x * y; aa += x * x; cc += y * y
        }
        let correlation = ab / (aa * cc).squareRoot()
        #expect(Self.firstDifference(a, c) != nil, "seeds 42 and 43 gave the same noise")
        #expect(abs(correlation) < 0.2, "seeds 42 and 43 correlate at \(correlation)")
        // Left and right are independent noise too.
        let left = a.channel(0), right = a.channel(1)
        #expect(left != right)
    }

    /// A partial render [a, b) equals frames [a, b) of the full render, exactly, when the limiter is
    /// idle (it is for everything.json: checked). Several ranges: block-aligned or not, from 0, to the end.
    @Test(arguments: [(0.0, 1.5), (2.7, 4.1), (7.75, 9.25), (10.3, 12.0)])
    func partialRenderIsTheSliceOfTheFullRender(start: Double, end: Double) throws {
        let full = try GoldenRender.toMemory(Self.everything)
        #expect(full.summary.maxGainReductionDb == 0, "the limiter acted; this test needs it idle")
        let partial = try GoldenRender.toMemory(Self.everything, overrides: GoldenRender.overrides(start: start, end: end))
        let range = Int(partial.job.range.lowerBound)..<Int(partial.job.range.upperBound)
        #expect(range == Int((start * 8000).rounded())..<Int((end * 8000).rounded()))
        let difference = Self.firstDifference(partial.audio, full.audio.frames(range))
        #expect(difference == nil, "partial [\(start), \(end)) vs the full render: \(difference ?? "")")
    }

    /// While the limiter acts, a partial render starts its limiter `warmUpFrames` early (look-ahead plus ten
    /// release time constants) rather than from the start, so its gain can differ by what is left of a
    /// release that began before the warm-up: at most e^-10 (4.5e-5) of the reduction. Tolerance:
    /// max |difference| <= 1e-4 (-80 dBFS) and SNR >= 80 dB. A mix that is hot for its first second, then
    /// drops 24 dB: ranges starting inside the hot part, and in the release tail after it.
    @Test(arguments: [(0.5, 1.0), (1.5, 2.5), (2.25, 3.25), (3.0, 4.0)])
    func partialRenderWhileTheLimiterActsIsCloseToTheSlice(start: Double, end: Double) throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": 4, "output": { "sampleRate": 8000 },
              "master": { "limiter": { "ceilingDb": -1, "lookaheadMs": 5, "releaseMs": 100 } },
              "tracks": [ { "generator": { "type": "pink", "seed": 5 }, "gainDb": 12,
                            "envelope": [ { "time": 1, "gainDb": 0 }, { "time": 1.2, "gainDb": -24 } ] } ] }
            """, name: "hot-then-quiet.json")
        let full = try GoldenRender.toMemory(preset)
        #expect(full.summary.maxGainReductionDb > 3)
        let partial = try GoldenRender.toMemory(preset, overrides: GoldenRender.overrides(start: start, end: end))
        let range = Int(partial.job.range.lowerBound)..<Int(partial.job.range.upperBound)
        #expect(partial.audio.frameCount == range.count)
        let d = LosslessTier.compare(actual: partial.audio, golden: full.audio.frames(range))
        #expect(d.maxAbs <= 1e-4 && d.snrDb >= 80, "partial [\(start), \(end)) vs the full render: \(d)")
    }
}
