import DSPTestSupport
import Foundation
import MixIO

/// One long render on every core: the night preset (presets/night.json) to FLAC as whole `mixrender` commands (the
/// one beside the bench), in turn in each round: on one core (`taskset -c 0`, one thread), on every core with one
/// mixing thread (the render thread beside the encoder's and the loudness meter's), and on every core with
/// `--threads` = the cores. The target is the issue's: two cores at least 1.7x as fast as one. The files of the
/// last two are compared byte for byte in every round (a difference stops the bench).
struct ThreadsBench {
    let isQuick: Bool
    let runs: Int
    let duration: String
    let mixrender: String
    let progress: Progress

    func run() throws -> (Section, Target) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        let preset = try ShippedPreset.path("night.json", section: "threads")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var section = Section(id: "threads", title: "The night preset, \(duration), to FLAC on one core and on \(cores) (whole commands)",
                              labels: ["command"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "peakMiB", title: "peak RSS MiB", format: .mebibytes),
                                        Column(key: "speedup", title: "one core / this", format: .ratio)])
        let name = "one long render on every core"
        guard FileManager.default.isExecutableFile(atPath: mixrender), cores > 1, let taskset = ChildProcess.find("taskset") else {
            let why = !FileManager.default.isExecutableFile(atPath: mixrender) ? "no mixrender at \(mixrender)"
                : cores < 2 ? "one core only" : "no taskset on PATH (util-linux)"
            section.notes.append("not measured: \(why)")
            return (section, .notMeasured(name, why: why, threshold: 1.7, comparison: "atLeast"))
        }
        let base = [preset, "--duration", duration, "--quiet"]
        let commands: [(label: String, executable: String, arguments: [String])] = [
            ("one core: taskset -c 0 mixrender --threads 1", taskset, ["-c", "0", mixrender] + base + ["--threads", "1"]),
            ("\(cores) cores, --threads 1", mixrender, base + ["--threads", "1"]),
            ("\(cores) cores, --threads \(cores)", mixrender, base + ["--threads", "\(cores)"]),
        ]
        var walls = Array(repeating: [Double](), count: commands.count), peaks = walls, speedups = walls
        var overOneThread: [Double] = []
        for round in 0...runs {   // round 0 is a warm-up
            var seconds: [Double] = []
            for (k, command) in commands.enumerated() {
                progress.say("threads: \(command.label), round \(round)/\(runs)")
                let out = temporary.path("night-\(k).flac")
                let outcome = try ChildProcess.run(command.executable, command.arguments + ["-o", out])
                seconds.append(outcome.seconds)
                if round > 0 { walls[k].append(outcome.seconds); peaks[k].append(outcome.peakMiB) }
            }
            guard try Data(contentsOf: temporary.url.appendingPathComponent("night-1.flac"))
                    == Data(contentsOf: temporary.url.appendingPathComponent("night-2.flac")) else {
                throw BenchError(message: "threads: --threads \(cores) wrote another file than --threads 1")
            }
            for k in 0..<commands.count { try FileSystem.removeFile(temporary.path("night-\(k).flac")) }
            guard round > 0 else { continue }
            for k in 0..<commands.count { speedups[k].append(seconds[0] / seconds[k]) }
            overOneThread.append(seconds[1] / seconds[2])
        }
        for (k, command) in commands.enumerated() {
            section.add([command.label], ["wall": Spread(walls[k]), "peakMiB": Spread(peaks[k]), "speedup": Spread(speedups[k])])
        }
        section.notes.append("ratios per round. With one mixing thread a render already uses more than one core: the encoder "
            + "and the loudness meter run on threads of their own. --threads \(cores) over --threads 1 on the same cores: "
            + "\(fixed(Spread(overOneThread).median, 2))x [\(fixed(Spread(overOneThread).min, 2))-\(fixed(Spread(overOneThread).max, 2))]. "
            + "The files of --threads 1 and --threads \(cores) are the same bytes in every round")
        let ratio = Spread(speedups[2])
        let isMet = ratio.median >= 1.7
        return (section, Target(name: name, definition: "wall time of the night preset to FLAC (\(duration)) on one core / on \(cores) with --threads \(cores), per round",
                                value: Figure(ratio, .ratio), threshold: 1.7, comparison: "atLeast", isMet: isMet,
                                status: isQuick ? "indicative" : isMet ? "met" : "missed",
                                note: "--threads \(cores) over --threads 1 on the same \(cores) cores: \(fixed(Spread(overOneThread).median, 2))x"))
    }
}
