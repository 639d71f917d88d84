import DSPTestSupport
import Foundation
import MixIO

/// Several outputs from one render (issue 56): the night preset to AAC, Opus and MP3 as three whole `mixrender`
/// commands, to WAV (the render loop and its meter, with an encoder that only copies), and to all three at once
/// (`-o .m4a -o .opus -o .mp3`), in turn in each round. The targets are the issue's: the three at once take the
/// wall time of the slowest alone (within 10 %, on a machine with cores to spare: a core each for the render loop,
/// the meter and three encoders), and the CPU of the encoders' sum plus one render loop (within 10 %), where an
/// encoder's CPU is its render's less the WAV render's. The AAC and MP3 files of the two ways are compared byte for
/// byte in every round (a difference stops the bench).
struct OutputsBench {
    let isQuick: Bool
    let runs: Int
    let duration: String
    let mixrender: String
    let progress: Progress

    /// Cores the three-output render can use at once: the render thread, the meter and an encoder thread each.
    static let coresToSpare = 5

    func run() throws -> (Section, [Target]) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        let preset = try ShippedPreset.path("night.json", section: "outputs")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var section = Section(id: "outputs", title: "The night preset, \(duration), to AAC, Opus and MP3 one by one and from one render (whole commands)",
                              labels: ["command"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "cpu", title: "CPU s", format: .seconds),
                                        Column(key: "peakMiB", title: "peak RSS MiB", format: .mebibytes)])
        let wallName = "three outputs: wall against the slowest encoder alone"
        let cpuName = "three outputs: CPU against the encoders' sum plus one render loop"
        guard FileManager.default.isExecutableFile(atPath: mixrender) else {
            let why = "no mixrender at \(mixrender)"
            section.notes.append("not measured: \(why)")
            return (section, [.notMeasured(wallName, why: why, threshold: 1.1, comparison: "below"),
                              .notMeasured(cpuName, why: why, threshold: 1.1, comparison: "below")])
        }
        let base = [preset, "--duration", duration, "--quiet"]
        let alone = ["m4a", "opus", "mp3"]
        let commands: [(label: String, outputs: [String])] = alone.map { ("-o night.\($0)", ["alone.\($0)"]) }
            + [("-o night.wav (the render loop)", ["alone.wav"]),
               ("-o night.m4a -o night.opus -o night.mp3", alone.map { "together.\($0)" })]
        var walls = Array(repeating: [Double](), count: commands.count), cpus = walls, peaks = walls
        var wallRatios: [Double] = [], cpuRatios: [Double] = []
        for round in 0...runs {   // round 0 is a warm-up
            var outcomes: [ChildProcess.Outcome] = []
            for (k, command) in commands.enumerated() {
                progress.say("outputs: \(command.label), round \(round)/\(runs)")
                let outcome = try ChildProcess.run(mixrender, base + command.outputs.flatMap { ["-o", temporary.path($0)] })
                outcomes.append(outcome)
                if round > 0 { walls[k].append(outcome.seconds); cpus[k].append(outcome.cpuSeconds); peaks[k].append(outcome.peakMiB) }
            }
            for format in ["m4a", "mp3"] {
                guard try Data(contentsOf: temporary.url.appendingPathComponent("alone.\(format)"))
                        == Data(contentsOf: temporary.url.appendingPathComponent("together.\(format)")) else {
                    throw BenchError(message: "outputs: the .\(format) of the three-output render is not the one rendered alone")
                }
            }
            for name in temporary.contents { try FileSystem.removeFile(temporary.path(name)) }
            guard round > 0 else { continue }
            let loopCPU = outcomes[3].cpuSeconds
            wallRatios.append(outcomes[4].seconds / outcomes[0..<3].map(\.seconds).max()!)
            cpuRatios.append(outcomes[4].cpuSeconds / (outcomes[0..<3].map(\.cpuSeconds).reduce(0, +) - 2 * loopCPU))
        }
        for (k, command) in commands.enumerated() {
            section.add([command.label], ["wall": Spread(walls[k]), "cpu": Spread(cpus[k]), "peakMiB": Spread(peaks[k])])
        }
        let wall = Spread(wallRatios), cpu = Spread(cpuRatios)
        let spare = cores >= Self.coresToSpare
        section.notes.append("ratios per round: three at once over the slowest alone, wall \(fixed(wall.median, 2)) "
            + "[\(fixed(wall.min, 2))-\(fixed(wall.max, 2))]; CPU over the three alone less twice the WAV render's CPU (one render "
            + "loop and its meter, counted once), \(fixed(cpu.median, 2)) [\(fixed(cpu.min, 2))-\(fixed(cpu.max, 2))]. "
            + "The AAC and MP3 files are the same bytes both ways in every round"
            + (spare ? "" : ". This machine has \(cores) cores: the render loop, the meter and three encoders share them, so the "
               + "three at once cannot take the slowest encoder's time alone; the wall target needs \(Self.coresToSpare)"))
        // On fewer cores than the five threads the wall target is missed for want of cores, and the note says so.
        func status(_ isMet: Bool) -> String { isQuick ? "indicative" : isMet ? "met" : "missed" }
        let targets = [
            Target(name: wallName, definition: "wall time of the three-output render / the slowest single-output render, per round",
                   value: Figure(wall, .ratio), threshold: 1.1, comparison: "below", isMet: wall.median < 1.1,
                   status: status(wall.median < 1.1),
                   note: spare ? "on \(cores) cores" : "missed for want of cores: \(cores), not the \(Self.coresToSpare) the five busy threads need (the CPU ratio shows the mix is made once)"),
            Target(name: cpuName, definition: "CPU seconds of the three-output render / (the three single-output renders' less twice the WAV render's), per round",
                   value: Figure(cpu, .ratio), threshold: 1.1, comparison: "below", isMet: cpu.median < 1.1,
                   status: status(cpu.median < 1.1),
                   note: "the WAV render stands for the render loop: its encoder only copies"),
        ]
        return (section, targets)
    }
}
