import DSPTestSupport
import MixDSP
import MixEngine

/// Preparation shared between renders: the night mix planned once, its material prepared by the first
/// render into a `PreparedMaterial`, and the same plan rendered again with it (a loudness measuring pass,
/// then the real render; or two renders of a batch). The second render's preparation only finds what the
/// first made. Both renders go to an encoder that checksums the samples, so the bench also shows that the
/// second render is the same audio. A new `PreparedMaterial` for each round.
struct SharedPreparationBench {
    let isQuick: Bool
    let runs: Int
    let seconds: Double
    let progress: Progress

    func run() throws -> (Section, Target) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        defer { withExtendedLifetime(temporary) {} }
        progress.say("shared preparation: writing the six Ogg Vorbis loops into \(temporary.url.path) ...")
        let mix = try NightMix.make(in: temporary.url.path, isQuick: isQuick)
        let plan = try mix.plan(seconds: seconds)
        var first: [Double] = [], second: [Double] = [], ratios: [Double] = [], firstWall: [Double] = [], secondWall: [Double] = []
        var isSameAudio = true
        for round in 0..<runs {
            progress.say("shared preparation: round \(round + 1)/\(runs), two renders of \(fixed(seconds, 0)) s sharing one PreparedMaterial")
            let material = PreparedMaterial()
            let a = ChecksumEncoder(channelCount: plan.channelCount), b = ChecksumEncoder(channelCount: plan.channelCount)
            let one = try Renderer(plan: plan).render(to: a, material: material)
            let two = try Renderer(plan: plan).render(to: b, material: material)
            guard one.materialMade == plan.materialRequests.count, two.materialMade == 0 else {
                throw BenchError(message: "shared preparation: the second render made \(two.materialMade) entries again")
            }
            isSameAudio = isSameAudio && a.checksum == b.checksum && a.frames == b.frames
            first.append(one.timings.prepare); second.append(two.timings.prepare)
            ratios.append(two.timings.prepare / one.timings.prepare)
            firstWall.append(one.timings.wall); secondWall.append(two.timings.wall)
        }
        var section = Section(
            id: "sharedPreparation",
            title: "Preparation shared between two renders of the night mix (\(fixed(seconds, 0)) s, null encoder)",
            labels: ["render"],
            columns: [Column(key: "prepare", title: "prepare s", format: .seconds),
                      Column(key: "wall", title: "wall s", format: .seconds)])
        section.add(["first (prepares the six loops)"], ["prepare": Spread(first), "wall": Spread(firstWall)])
        section.add(["second (same PreparedMaterial)"], ["prepare": Spread(second), "wall": Spread(secondWall)])
        section.notes.append("second render's audio \(isSameAudio ? "identical to" : "DIFFERENT from") the first's (checksum of every sample's bits)")
        let ratio = Spread(ratios)
        section.notes.append("second prepare \(fixed(Spread(second).median * 1e6, 0)) µs against \(fixed(Spread(first).median * 1e3, 1)) ms "
            + "for the first: ratio \(String(format: "%.1e", ratio.median)) (median)")
        let isMet = ratio.median < 0.01 && isSameAudio
        let target = Target(name: "second render's preparation, against the first's",
                            definition: "second prepare seconds / first prepare seconds, per round, same PreparedMaterial",
                            value: Figure(ratio, .ratio), threshold: 0.01, comparison: "below", isMet: isMet,
                            status: isQuick ? "indicative" : isMet ? "met" : "missed",
                            note: "\(plan.materialRequests.count) entries prepared once; the second render only looks them up")
        return (section, target)
    }
}

/// Sums the bit patterns of every sample written (order-sensitive), to tell two renders apart.
final class ChecksumEncoder: AudioEncoder {
    let channelCount: Int
    init(channelCount: Int) { self.channelCount = channelCount }
    private(set) var checksum: UInt64 = 0
    private(set) var frames = 0
    func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        for i in 0..<frames * channelCount { checksum = checksum &* 31 &+ UInt64(interleaved[i].bitPattern) }
        self.frames += frames
    }
    func finish() throws {}
}
