import DSPTestSupport
import Foundation

/// The default night preset's peak memory at two lengths, as whole `mixrender` commands (the one beside the
/// bench) writing FLAC: the issue's target is at most 48 MiB at any length. `mixrender --version` is the floor
/// every process pays (the binary, the Swift runtime, Foundation and the linked C libraries; FFmpeg and espeak-ng
/// are opened only when a file or a voice needs them, and nothing links libcurl). Peak RSS is each child's own
/// (`wait4`).
struct MemoryBench {
    let isQuick: Bool
    let mixrender: String
    let progress: Progress

    func run() throws -> (Section, Target) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        let preset = try ShippedPreset.path("night.json", section: "memory")
        var section = Section(id: "memory", title: "Peak memory of the night preset (presets/night.json) to FLAC, whole commands",
                              labels: ["command"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "peakMiB", title: "peak RSS MiB", format: .mebibytes)])
        let floor = try ChildProcess.run(mixrender, ["--version"])
        section.add(["mixrender --version"], ["wall": Spread([floor.seconds]), "peakMiB": Spread([floor.peakMiB])])
        var peaks: [Double] = []
        // A quick run renders ten minutes (30 took a tenth of the smoke run): a smoke figure, indicative only.
        for duration in isQuick ? ["10m"] : ["30m", "2h"] {
            progress.say("memory: the night preset, \(duration)")
            let outcome = try ChildProcess.run(mixrender, [preset, "--duration", duration, "-o", temporary.path("night-\(duration).flac"), "--quiet"])
            try? FileManager.default.removeItem(atPath: temporary.path("night-\(duration).flac"))
            section.add(["night preset, \(duration)"], ["wall": Spread([outcome.seconds]), "peakMiB": Spread([outcome.peakMiB])])
            peaks.append(outcome.peakMiB)
        }
        section.notes.append("the floor is what any mixrender process holds; the renders add their buffers, flat in the length")
        let peak = peaks.max()!
        let isMet = peak <= 48
        return (section, Target(name: "the night preset's peak memory at any length",
                                definition: "the largest peak RSS of mixrender presets/night.json --duration D -o night.flac, D = \(isQuick ? "10m" : "30m and 2h")",
                                value: Figure(Spread([peak]), .mebibytes), threshold: 48, comparison: "below", isMet: isMet,
                                status: isQuick ? "indicative" : isMet ? "met" : "missed",
                                note: "\(fixed(floor.peakMiB, 1)) MiB of it is the process itself (mixrender --version)"))
    }
}
