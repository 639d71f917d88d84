import DSPTestSupport
import Foundation

/// `mixrender waveform` against FFmpeg's `showwavespic` on a one-hour 48 kHz stereo Ogg Vorbis file (ten
/// minutes with `--quick`), the yardstick: a 1800x280 PNG from each, run in turn in every round (round
/// 0 is a warm-up), as whole commands with the `mixrender` beside the bench. The file is rendered first by that
/// mixrender (rain and wind, quality 0.4). Each round's ratio is FFmpeg's wall time over mixrender's; the target
/// is at least 2, at no more peak memory than before (66 MiB with 0.14.0 here; `memoryCeilingMiB`). Without ffmpeg
/// on PATH the section times mixrender alone and the target is not measured.
struct WaveformBench {
    let isQuick: Bool
    let runs: Int
    let mixrender: String
    let progress: Progress

    /// The peak of `mixrender waveform` with 0.14.0 on this file, which the target must not exceed.
    static let memoryCeilingMiB = 66.0

    func run() throws -> (Section, Target) {
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        let duration = isQuick ? "10m" : "1h"
        let preset = try temporary.preset("""
            { "duration": "\(duration)", "output": { "sampleRate": 48000, "channels": 2, "quality": 0.4 },
              "tracks": [ { "rain": { "seed": 6 }, "gainDb": -12 }, { "wind": { "seed": 7 }, "gainDb": -14 } ] }
            """, name: "waveform-source.json")
        let source = temporary.path("source.ogg")
        progress.say("waveform: rendering \(duration) of Ogg Vorbis to preview")
        _ = try ChildProcess.run(mixrender, [preset, "-o", source, "--quiet"])

        var section = Section(id: "waveform", title: "A 1800x280 waveform PNG of \(duration) of 48 kHz stereo Ogg Vorbis, whole commands",
                              labels: ["command"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "peakMiB", title: "peak RSS MiB", format: .mebibytes),
                                        Column(key: "ratio", title: "FFmpeg/mixrender", format: .ratio)])
        let ffmpeg = ChildProcess.find("ffmpeg")
        var ours: [ChildProcess.Outcome] = [], theirs: [ChildProcess.Outcome] = [], ratios: [Double] = []
        for round in 0...runs {
            progress.say("waveform: round \(round)/\(runs)")
            let a = try ChildProcess.run(mixrender, ["waveform", source, "-o", temporary.path("mixrender.png"),
                                                      "--width", "1800", "--height", "280"])
            let b = try ffmpeg.map {
                try ChildProcess.run($0, ["-v", "error", "-y", "-i", source, "-filter_complex", "showwavespic=s=1800x280",
                                          "-frames:v", "1", temporary.path("ffmpeg.png")])
            }
            guard round > 0 else { continue }
            ours.append(a)
            if let b { theirs.append(b); ratios.append(b.seconds / a.seconds) }
        }
        var figures = ["wall": Spread(ours.map(\.seconds)), "peakMiB": Spread(ours.map(\.peakMiB))]
        if !ratios.isEmpty { figures["ratio"] = Spread(ratios) }
        section.add(["mixrender waveform"], figures, notTaken: ["ratio": "no ffmpeg on PATH: nothing to compare with"])
        if !theirs.isEmpty {
            section.add(["ffmpeg showwavespic"], ["wall": Spread(theirs.map(\.seconds)), "peakMiB": Spread(theirs.map(\.peakMiB))],
                        notTaken: ["ratio": "FFmpeg is what the row above is compared with"])
        }
        section.notes.append("each round runs mixrender, then ffmpeg; the ratio is per round. Peak RSS is the child's own (wait4's ru_maxrss). "
            + "mixrender decodes Ogg Vorbis with FFmpeg's decoder on two threads (one per core, at most two), each taking every "
            + "other 2.7 s chunk, ahead of the analysis")
        let name = "a waveform PNG of an hour of Ogg Vorbis against FFmpeg's showwavespic"
        guard !ratios.isEmpty else {
            section.notes.append("no ffmpeg on PATH: FFmpeg was not timed")
            return (section, .notMeasured(name, why: "no ffmpeg on PATH", threshold: 2, comparison: "atLeast"))
        }
        let ratio = Spread(ratios)
        let peak = Spread(ours.map(\.peakMiB)).median
        let isMet = ratio.median >= 2 && peak <= Self.memoryCeilingMiB
        return (section, Target(name: name,
                                definition: "wall time of ffmpeg -filter_complex showwavespic=s=1800x280 / that of mixrender waveform "
                                    + "--width 1800 --height 280, per round, on the same \(duration) Ogg Vorbis file, "
                                    + "with mixrender's median peak RSS at most \(fixed(Self.memoryCeilingMiB, 0)) MiB (here \(fixed(peak, 1)) MiB)",
                                value: Figure(ratio, .ratio), threshold: 2, comparison: "atLeast", isMet: isMet,
                                status: isQuick ? "indicative" : isMet ? "met" : "missed",
                                note: "FFmpeg keeps every decoded sample until the end (its memory grows with the length); "
                                    + "mixrender's decoding and analysis overlap on two threads, in flat memory"))
    }
}
