import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// Taps listen at points of the master chain, each told the timeline position of what it receives.
@Suite struct MasterChainTests {
    /// Records everything it receives, planar, with the positions.
    final class RecordingTap: MixTap {
        var channels: [[Float]]
        var positions: [Range<Int64>] = []
        var isFinished = false
        init(channelCount: Int) { channels = Array(repeating: [], count: channelCount) }
        func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
            for c in channels.indices { channels[c] += block.channel(c)[offset..<(offset + count)] }
            positions.append(position..<(position + Int64(count)))
        }
        func finish() throws { isFinished = true }
    }

    /// A loud tone (limited), with a master fade-in.
    static let hot = """
        { "duration": 2, "output": { "sampleRate": 16000 }, "master": { "gainDb": 3, "fadeIn": "0.5s" },
          "tracks": [ { "tone": { "frequencyHz": 300 }, "gainDb": 18 } ] }
        """

    @Test func tapsBeforeAndAfterTheLimiter() throws {
        let folder = try TemporaryFolder()
        let plan = try RenderJob(presetPath: try folder.preset(Self.hot)).plan
        let range: Range<Int64> = 4000..<30000
        let mix = RecordingTap(channelCount: 2), beforeLimiter = RecordingTap(channelCount: 2), output = RecordingTap(channelCount: 2)
        let capture = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2)
        let summary = try Renderer(plan: plan, blockFrames: 1000).render(
            to: capture, range: range, taps: [RenderTap(.output, output), RenderTap(.beforeLimiter, beforeLimiter), RenderTap(.mix, mix)])

        for tap in [mix, beforeLimiter, output] {
            #expect(tap.isFinished)
            #expect(tap.channels[0].count == range.count)
            // Contiguous, in order, exactly the range.
            #expect(tap.positions.first?.lowerBound == range.lowerBound && tap.positions.last?.upperBound == range.upperBound)
            #expect(zip(tap.positions, tap.positions.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        }
        // The output tap sees what is written.
        #expect(output.channels == capture.channels)
        // Before the limiter the mix peaks above the ceiling; after it, it does not.
        let ceiling = Float(gain(fromDecibels: -1))
        #expect(beforeLimiter.channels[0].map(abs).max()! > 2 * ceiling)
        #expect(output.channels[0].map(abs).max()! <= ceiling * 1.0001)
        #expect(summary.maxGainReductionDb > 6)
        #expect(summary.clippedSamples == 0)
        // The master gain (+3 dB) and fade-in stand between the mix tap and the pre-limiter tap.
        let master = plan.master
        var g = [Float](repeating: 0, count: range.count), scratch = g
        let k = master.render(into: &g, scratch: &scratch, count: range.count, at: range.lowerBound)
        for i in stride(from: 0, to: range.count, by: 997) {
            let expected = mix.channels[0][i] * (k ?? g[i])
            #expect(abs(beforeLimiter.channels[0][i] - expected) <= 1e-6 * max(1, abs(expected)))
        }
    }

    /// With `.truePeak` detection (what a dBTP ceiling asks for) the written output's values between
    /// samples, as an ideal 4x meter reads them, stay within 0.05 dB of the −1 dB ceiling; with the default
    /// `.samplePeak` they do not. A 12 kHz tone at 48 kHz with phase 1/8 has every sample at 0.707 of its
    /// peak: +1 dBTP, −2 dBFS; read over the last 0.2 s, when the release has settled after its start.
    @Test func truePeakDetectionHoldsTheCeilingBetweenSamples() throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            { "duration": 1, "output": { "sampleRate": 48000 },
              "tracks": [ { "tone": { "frequencyHz": 12000, "phase": 0.125 }, "gainDb": 16 } ] }
            """)
        let job = try RenderJob(presetPath: preset)
        #expect(job.plan.limiter.detection == .samplePeak)
        let meter = ReferenceOversampler(factor: 4)
        var readings: [Limiter.Detection: Double] = [:]
        for detection in Limiter.Detection.allCases {
            var plan = job.plan
            plan.limiter.detection = detection
            let capture = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2)
            let summary = try Renderer(plan: plan).render(to: capture)
            #expect(summary.clippedSamples == 0)
            #expect(summary.maxGainReductionDb > (detection == .truePeak ? 1.9 : -0.01))
            readings[detection] = capture.channels.map { channel in
                channel.withUnsafeBufferPointer { dB(meter.truePeak($0, frames: 38_000..<47_000)) }
            }.max()!
        }
        #expect(readings[.truePeak]! <= -1 + 0.05 && readings[.truePeak]! >= -1.1, "true-peak detection: \(readings[.truePeak]!) dBTP")
        #expect(readings[.samplePeak]! > 0.9, "sample-peak detection: \(readings[.samplePeak]!) dBTP")
    }

    @Test func aFailingTapStopsTheRenderAndClosesTheEncoder() throws {
        final class FailingTap: MixTap {
            struct Failure: Error {}
            func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
                if position > 10000 { throw Failure() }
            }
        }
        let folder = try TemporaryFolder()
        let plan = try RenderJob(presetPath: try folder.preset(Self.hot)).plan
        let capture = CaptureEncoder(sampleRate: plan.sampleRate, channelCount: 2)
        #expect(throws: FailingTap.Failure.self) {
            _ = try Renderer(plan: plan).render(to: capture, taps: [RenderTap(.beforeLimiter, FailingTap())])
        }
        #expect(!capture.isFinished)
    }
}
