import DSPTestSupport
import Foundation

/// One render's peak memory against the material it holds: the shape of the peers' night mix (six Ogg Vorbis
/// loops at three rates, looped under a 48 kHz stereo render to Ogg Vorbis with `soxr-hq`), as whole `mixrender`
/// commands (the one beside the bench). The loops are made here by `mixrender` itself from its generators, so the
/// section needs no file from outside. A render holds every loop decoded and resampled to 48 kHz stereo `Float`
/// (the material); the issue's target is a peak at most 32 MiB over it. The peak of one run varies by about
/// ±0.3 MiB here (the kernel adds up each thread's resident pages lazily), so the target takes the median of the
/// runs. Then a batch of 8 renders sharing the loops (`mixrender batch`, the loops prepared once and held for all)
/// against one of them alone (as many jobs at a time as there are cores, the default): the issue's target is at
/// most 1.5 times the one's peak.
struct LoopMemoryBench {
    let isQuick: Bool
    let runs: Int
    let mixrender: String
    let progress: Progress

    /// The loops: what makes each, and the rate it is written at.
    static let loops: [(name: String, track: String, sampleRate: Int)] = [
        ("rain", #""rain": {"intensity": 0.7, "seed": 1}"#, 44_100),
        ("wind", #""wind": {"intensity": 0.6, "seed": 2}"#, 44_100),
        ("surf", #""surf": {"intensity": 0.7, "seed": 3}"#, 48_000),
        ("fire", #""fire": {"intensity": 0.5, "seed": 4}"#, 48_000),
        ("crickets", #""crickets": {"intensity": 0.4, "seed": 5}"#, 44_100),
        ("rumble", #""generator": {"type": "brown", "seed": 6}"#, 22_050),
    ]

    func run() throws -> (Section, [Target]) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        let loopSeconds = isQuick ? 20 : 60
        let duration = isQuick ? "3m" : "30m"
        var tracks: [String] = []
        for loop in Self.loops {
            progress.say("loop memory: making the \(loop.name) loop (\(loopSeconds) s at \(loop.sampleRate) Hz)")
            let preset = temporary.path("\(loop.name).json"), file = temporary.path("\(loop.name).ogg")
            try #"""
                {"version": 1, "duration": "\#(loopSeconds)s", "output": {"sampleRate": \#(loop.sampleRate), "channels": 2},
                 "tracks": [{\#(loop.track)}]}
                """#.write(toFile: preset, atomically: true, encoding: .utf8)
            _ = try ChildProcess.run(mixrender, [preset, "-o", file, "--quiet"])
            tracks.append(#"{"name": "\#(loop.name)", "file": "\#(file)", "gainDb": -6, "loop": {"crossfade": 0}}"#)
        }
        let mix = temporary.path("mix.json")
        try #"""
            {"version": 1, "duration": "\#(duration)",
             "output": {"sampleRate": 48000, "channels": 2, "quality": 0.4, "resampler": "soxr-hq"},
             "master": {"fadeIn": {"duration": "20s", "curve": "linear"}, "fadeOut": {"duration": "2m", "curve": "linear"}},
             "tracks": [\#(tracks.joined(separator: ", "))]}
            """#.write(toFile: mix, atomically: true, encoding: .utf8)
        // Each loop resampled to 48 kHz lasts as long (the rates divide evenly into whole seconds): 2 channels of Float.
        let materialMiB = Double(Self.loops.count * loopSeconds * 48_000 * 2 * 4) / 1_048_576

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
        section.notes.append("the loops' material: \(Self.loops.count) x \(loopSeconds) s x 48 kHz x 2 channels x 4 bytes = \(fixed(materialMiB, 2)) MiB")
        let isMet = over.median <= 32
        let target = Target(name: "one render's peak memory over its loops' material",
                            definition: "median over \(runs) runs of (peak RSS of mixrender MIX -o mix.ogg) - (the loops decoded at 48 kHz stereo Float), MiB",
                            value: Figure(over, .mebibytes), threshold: 32, comparison: "below", isMet: isMet,
                            status: isQuick ? "indicative" : isMet ? "met" : "missed",
                            note: isQuick ? "quick mode: 20 s loops and a 3-minute mix" : "\(fixed(materialMiB, 1)) MiB of loops; the peers' night mix has the same")

        // The batch: eight mixes of the same loops at other gains and lengths, as an app's saved mixes are, to WAV.
        let jobSeconds = isQuick ? 60 : 300
        var jobs: [String] = []
        for k in 0..<8 {
            let gains = Self.loops.indices.map { -3 - (k + $0) % 7 }
            let jobTracks = zip(tracks, gains).map { track, gain in
                track.replacingOccurrences(of: #""gainDb": -6"#, with: #""gainDb": \#(gain)"#)
            }
            let preset = temporary.path("job\(k).json")
            try #"""
                {"version": 1, "duration": "\#(jobSeconds + 15 * k)s",
                 "output": {"sampleRate": 48000, "channels": 2, "bitDepth": 16, "resampler": "soxr-hq"},
                 "tracks": [\#(jobTracks.joined(separator: ", "))]}
                """#.write(toFile: preset, atomically: true, encoding: .utf8)
            jobs.append(#"{"preset": "\#(preset)", "output": "\#(temporary.path("job\(k).wav"))"}"#)
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
