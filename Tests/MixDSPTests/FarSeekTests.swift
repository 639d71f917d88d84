import DSPTestSupport
import MixDSP
import Testing

/// Ten hours into the timeline, each nature generator (alone, and as a render makes it, through the DC blocker)
/// started there gives the samples of one rendering on into it from 20 s before, within the warm-up's 1e-6. What such
/// a seek costs, the same as ten seconds in, is measured by `bench --only generators`, not timed here.
@Suite struct FarSeekTests {
    static let rate = 48_000
    static let generators: [(String, @Sendable () -> FrameSource)] = [
        ("rain", { RainGenerator(intensity: 0.6, seed: 4, sampleRate: rate, channelCount: 2) }),
        ("wind", { WindGenerator(intensity: 0.5, gustiness: 0.6, seed: 23, sampleRate: rate, channelCount: 2) }),
        ("surf", { SurfGenerator(intensity: 0.8, periodSeconds: 3, seed: 61, sampleRate: rate, channelCount: 2) }),
        ("fire", { FireGenerator(intensity: 0.55, seed: 71, sampleRate: rate, channelCount: 2) }),
        ("crickets", { CricketChorus(intensity: 0.35, temperatureC: 24, seed: 73, sampleRate: rate, channelCount: 2) }),
    ]

    @Test(arguments: 0..<5, [false, true])
    func aSeekTenHoursInGivesTheSamplesOfRenderingOn(index: Int, blocked: Bool) throws {
        let (name, make) = Self.generators[index]
        func source() -> FrameSource { blocked ? DCBlocker(make(), sampleRate: Self.rate) : make() }
        let at = Int64(36_000 * Self.rate)
        let on = try GeneratorTesting.render(source(), at: at - Int64(20 * Self.rate), frames: 21 * Self.rate)
        let seek = try GeneratorTesting.render(source(), at: at, frames: Self.rate, blockFrames: 999)
        let tail = on.map { Array($0[(20 * Self.rate)...]) }
        let d = ProceduralTesting.largestDifference(seek, tail)
        #expect(d <= 1e-6, "\(name)\(blocked ? " (DC blocker)" : ""): differs by \(d)")
        #expect(dB(rms(seek[0])) > -90, "\(name) sounds ten hours in")
    }
}
