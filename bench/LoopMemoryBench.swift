import DSPTestSupport
import Foundation

/// One render's peak memory against the material it holds: the peers' night mix (`NightMix`: six Ogg Vorbis loops
/// at three rates, looped under a 48 kHz stereo render to Ogg Vorbis), as whole `mixrender` commands (the one beside
/// the bench). A render holds every loop decoded and resampled to 48 kHz stereo `Float` (the material); the issue's
/// target is a peak at most 32 MiB over it. The peak of one run varies by about ±0.3 MiB here (the kernel adds up
/// each thread's resident pages lazily), so the target takes the median of the runs. Then a batch of 8 renders
/// sharing the loops (`mixrender batch`, the loops prepared once and held for all) against one of them alone (as
/// many jobs at a time as there are cores, the default): the target is at most 1.5 times the one's peak.
struct LoopMemoryBench {
    let isQuick: Bool
    let runs: Int
    let mixrender: String
    let progress: Progress

    func run() throws -> (Section, [Target]) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        progress.say("loop memory: writing the night mix's loops ...")
        let loops = try NightMix.make(in: temporary.url.path, isQuick: isQuick)
        let seconds: Double = isQuick ? 180 : 1800
        let duration = isQuick ? "3 min" : "30 min"
        let mix = temporary.path("mix.json")
        try loops.document(seconds: seconds).write(toFile: mix, atomically: true, encoding: .utf8)
        let materialMiB = loops.loopMemoryMiB

        var section = Section(id: "loopmemory",
                              title: "One render's peak memory over its loops: six Ogg loops at three rates, \(duration) to Ogg Vorbis, whole commands",
                              labels: ["command"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "peakMiB", title: "peak RSS MiB", format: .mebibytes),
                                        Column(key: "overMiB", title: "over the loops MiB", format: .mebibytes)])
        var walls: [Double] = [], peaks: [Double] = []
        for round in 0..<runs {
            progress.say("loop memory: the mix, \(duration) to Ogg Vorbis, round \(round + 1)/\(runs)")
            let output = temporary.path("mix-\(round).ogg")
            let outcome = try ChildProcess.run(mixrender, [mix, "-o", output, "--quiet"])
            try? FileManager.default.removeItem(atPath: output)
            walls.append(outcome.seconds)
            peaks.append(outcome.peakMiB)
        }
        let over = Spread(peaks.map { $0 - materialMiB })
        section.add(["mixrender mix.json -o mix.ogg"], ["wall": Spread(walls), "peakMiB": Spread(peaks), "overMiB": over])
        section.notes.append("the loops' material: \(fixed(loops.sources.reduce(0) { $0 + $1.seconds }, 1)) s x 48 kHz x 2 channels x 4 bytes = \(fixed(materialMiB, 2)) MiB")
        let isMet = over.median <= 32
        let target = Target(name: "one render's peak memory over its loops' material",
                            definition: "median over \(runs) runs of (peak RSS of mixrender MIX -o mix.ogg) - (the loops decoded at 48 kHz stereo Float), MiB",
                            value: Figure(over, .mebibytes), threshold: 32, comparison: "below", isMet: isMet,
                            status: isQuick ? "indicative" : isMet ? "met" : "missed",
                            note: isQuick ? "quick mode: loops a tenth as long and a 3-minute mix" : "\(fixed(materialMiB, 1)) MiB of loops (the peers' night mix: 131.8)")

        // The batch: eight mixes of the same loops at other gains and lengths, as an app's saved mixes are, to WAV.
        let jobSeconds = isQuick ? 60 : 300
        var jobs: [String] = []
        for k in 0..<8 {
            let preset = temporary.path("job\(k).json")
            let offsets = loops.sources.indices.map { Double((k + $0) % 7 - 3) }
            try loops.document(seconds: Double(jobSeconds + 15 * k), gainOffsetsDb: offsets)
                .write(toFile: preset, atomically: true, encoding: .utf8)
            let job: [String: Any] = ["preset": preset, "output": temporary.path("job\(k).wav")]
            jobs.append(String(decoding: try JSONSerialization.data(withJSONObject: job, options: [.sortedKeys, .withoutEscapingSlashes]),
                               as: UTF8.self))
        }
        let jobList = temporary.path("jobs.jsonl")
        try jobs.joined(separator: "\n").appending("\n").write(toFile: jobList, atomically: true, encoding: .utf8)
        progress.say("loop memory: one of the batch's jobs alone")
        let one = try ChildProcess.run(mixrender, [temporary.path("job0.json"), "-o", temporary.path("one.wav"), "--quiet"])
        progress.say("loop memory: the batch of 8")
        let batch = try ChildProcess.run(mixrender, ["batch", jobList, "--quiet", "--results", temporary.path("jobs.results.jsonl")])
        section.add(["one job alone (\(jobSeconds) s to 16-bit WAV)"], ["wall": Spread([one.seconds]), "peakMiB": Spread([one.peakMiB]),
                                                                     "overMiB": Spread([one.peakMiB - materialMiB])])
        section.add(["mixrender batch: 8 jobs sharing the loops"], ["wall": Spread([batch.seconds]), "peakMiB": Spread([batch.peakMiB]),
                                                                 "overMiB": Spread([batch.peakMiB - materialMiB])])
        let ratio = batch.peakMiB / one.peakMiB
        let batchIsMet = ratio <= 1.5
        let batchTarget = Target(name: "a batch of 8 renders sharing loops against one",
                                 definition: "peak RSS of mixrender batch (8 mixes of the same loops, \(jobSeconds) s and more, to WAV) / that of one of them alone",
                                 value: Figure(Spread([ratio]), .ratio), threshold: 1.5, comparison: "below", isMet: batchIsMet,
                                 status: isQuick ? "indicative" : batchIsMet ? "met" : "missed",
                                 note: "one run each; the batch prepares the loops once and renders as many jobs at a time as there are cores (its default --jobs)")
        return (section, [target, batchTarget])
    }
}
