import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO

/// A window late in a long timeline against the same window at its start: one second at 99 h and at 0 of a
/// 100-hour preset, rendered in turn in each round. In the process (null encoder) for each endless kind alone
/// (pink noise took 112 s at 99 h before the noise colours could seek) and all of them at once; then as the
/// issue states the target, whole `mixrender --start 99h --end 99h0m1s` commands against `--start 0 --end 1s`
/// (a WAV file), with the `mixrender` beside the bench. Each round's ratio is the late window's wall time over
/// the early one's; the target is at most 2.
struct WindowBench {
    let isQuick: Bool
    let runs: Int
    let mixrender: String
    let progress: Progress

    /// Each endless kind alone, then all of them together.
    static let kinds: [(name: String, track: String)] = [
        ("pink", #"{ "generator": { "type": "pink", "seed": 3 }, "gainDb": -12 }"#),
        ("brown", #"{ "generator": { "type": "brown", "seed": 4 }, "gainDb": -12 }"#),
        ("white", #"{ "generator": { "type": "white", "seed": 5 }, "gainDb": -18 }"#),
        ("tone", #"{ "tone": { "frequencyHz": 220 }, "gainDb": -18 }"#),
        ("binaural", #"{ "binaural": { "carrierHz": 180, "beatHz": 6 }, "gainDb": -18 }"#),
        ("isochronic", #"{ "isochronic": { "carrierHz": 220, "pulseHz": 4 }, "gainDb": -18 }"#),
        ("breathing", #"{ "breathing": { "pattern": "4-7-8" }, "gainDb": -18 }"#),
        ("rain", #"{ "rain": { "seed": 6 }, "gainDb": -12 }"#),
        ("wind", #"{ "wind": { "seed": 7 }, "gainDb": -12 }"#),
        ("surf", #"{ "surf": { "seed": 8 }, "gainDb": -12 }"#),
        ("fire", #"{ "fire": { "seed": 9 }, "gainDb": -12 }"#),
        ("crickets", #"{ "crickets": { "seed": 10 }, "gainDb": -18 }"#),
    ]
    static var presets: [(name: String, tracks: String)] {
        kinds.map { ($0.name, $0.track) } + [("every endless kind", kinds.map(\.track).joined(separator: ", "))]
    }

    func run() throws -> (Section, Target) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        var section = Section(id: "window", title: "One second at 0 and at 99 h of a 100-hour preset (48 kHz stereo, null encoder)",
                              labels: ["preset"],
                              columns: [Column(key: "early", title: "0-1 s, s", format: .seconds),
                                        Column(key: "late", title: "99 h, s", format: .seconds),
                                        Column(key: "ratio", title: "late/early", format: .ratio)])
        var path = ""
        for (name, tracks) in Self.presets {
            path = try temporary.preset("""
                { "duration": "100h", "output": { "sampleRate": 48000, "channels": 2 }, "tracks": [ \(tracks) ] }
                """, name: "window-\(section.rows.count).json")
            let job = try RenderJob(presetPath: path)
            let early: Range<Int64> = 0..<48_000, lateStart = Int64(99 * 3600 * 48_000)
            let late = lateStart..<lateStart + 48_000
            var earlyTimes: [Double] = [], lateTimes: [Double] = [], ratios: [Double] = []
            for round in 0...runs {   // round 0 is a warm-up
                progress.say("window: \(name), round \(round)/\(runs)")
                let a = try Timing.seconds { _ = try Renderer(plan: job.plan).render(to: ChecksumEncoder(channelCount: 2), range: early) }
                let b = try Timing.seconds { _ = try Renderer(plan: job.plan).render(to: ChecksumEncoder(channelCount: 2), range: late) }
                guard round > 0 else { continue }
                earlyTimes.append(a); lateTimes.append(b); ratios.append(b / a)
            }
            section.add([name], ["early": Spread(earlyTimes), "late": Spread(lateTimes), "ratio": Spread(ratios)])
        }
        section.notes.append("each round renders the early window, then the late one; the ratio is per round. In the process, "
            + "the late window pays what the early one cannot: the limiter's warm-up (its look-ahead and ten release time "
            + "constants of the whole mix, 2 s here) and a seek: up to an epoch and a warm-up of each generator (rain: "
            + "2 s + 0.1 s; wind: 4 s + 0.5 s; noise: 2^18 + 2^15 frames; the DC blocker before the nature sounds: 1 s + 0.75 s of "
            + "the whole generator), the same at any position")
        guard FileManager.default.isExecutableFile(atPath: mixrender) else {
            section.notes.append("no mixrender at \(mixrender): the whole commands were not timed (build it, or name it with --mixrender)")
            return (section, .notMeasured("a window at 99 h against the same window at 0 (mixrender commands)",
                                          why: "no mixrender at \(mixrender)", threshold: 2, comparison: "below"))
        }
        var earlyTimes: [Double] = [], lateTimes: [Double] = [], ratios: [Double] = []
        for round in 0...runs {
            progress.say("window: mixrender commands, round \(round)/\(runs)")
            let a = try command([path, "-o", temporary.url.appendingPathComponent("early.wav").path, "--start", "0", "--end", "1s", "--quiet"])
            let b = try command([path, "-o", temporary.url.appendingPathComponent("late.wav").path, "--start", "99h", "--end", "99h0m1s", "--quiet"])
            try FileSystem.removeFile(temporary.url.appendingPathComponent("early.wav").path)
            try FileSystem.removeFile(temporary.url.appendingPathComponent("late.wav").path)
            guard round > 0 else { continue }
            earlyTimes.append(a); lateTimes.append(b); ratios.append(b / a)
        }
        section.add(["every endless kind, mixrender to WAV"], ["early": Spread(earlyTimes), "late": Spread(lateTimes), "ratio": Spread(ratios)])
        let ratio = Spread(ratios)
        let isMet = ratio.median <= 2
        let target = Target(name: "a window at 99 h against the same window at 0 (mixrender commands)",
                            definition: "wall time of mixrender --start 99h --end 99h0m1s / that of --start 0 --end 1s, per round, "
                                + "every endless kind in one 100-hour preset",
                            value: Figure(ratio, .ratio), threshold: 2, comparison: "below", isMet: isMet,
                            status: isQuick ? "indicative" : isMet ? "met" : "missed",
                            note: "every generator reaches a frame through epochs of fixed length (WarmStart) or a pure function of time")
        return (section, target)
    }

    /// Runs mixrender with `arguments` and returns its wall time.
    private func command(_ arguments: [String]) throws -> Double { try ChildProcess.run(mixrender, arguments).seconds }
}
