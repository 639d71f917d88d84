import DSPTestSupport
import MixDSP
import MixEngine
import MixIO

/// Normalising to a loudness: the measuring pass (the mix rendered without an encoder, measured before the
/// limiter, in parts on every core) against the render of the same plan to Ogg Vorbis, taken in turn in one
/// run, on presets/night.json at `seconds`. The material is prepared before either is timed, as a normalised
/// render shares it between its passes and the write.
struct LoudnessBench {
    let runs: Int
    let seconds: Double
    let progress: Progress

    func run() throws -> (Section, Target) {
        var section = Section(
            id: "loudness",
            title: "Loudness: the measuring pass of presets/night.json at \(fixed(seconds / 60, 0)) min, against its render to Ogg Vorbis",
            labels: ["measure"],
            columns: [Column(key: "value", title: "value", format: .seconds)])
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        let job = try RenderJob(presetPath: "presets/night.json", overrides: RenderOverrides(durationSeconds: seconds))
        let material = PreparedMaterial()
        try material.prepare(for: job.plan)
        let clock = ContinuousClock()
        var measuring: [Double] = [], rendering: [Double] = [], ratios: [Double] = []
        for round in 0..<runs {
            progress.say("loudness: measuring pass, round \(round + 1)/\(runs)")
            let started = clock.now
            _ = try Normalisation.measure(job.plan, at: .beforeLimiter, material: material)
            let measure = (clock.now - started).seconds
            progress.say("loudness: render to Ogg Vorbis, round \(round + 1)/\(runs)")
            let render = try job.render(to: temporary.path("night-\(round).ogg"), material: material).summary.timings.wall
            measuring.append(measure); rendering.append(render); ratios.append(measure / render)
        }
        section.add(["measuring pass"], ["value": Spread(measuring)])
        section.add(["render to Ogg Vorbis"], ["value": Spread(rendering)])
        let ratio = Spread(ratios)
        let isMet = ratio.median < 0.15
        let target = Target(name: "normalising costs little",
                            definition: "measuring pass seconds / render-to-Ogg seconds of presets/night.json, in turn in one run",
                            value: Figure(ratio, .fraction), threshold: 0.15, comparison: "below", isMet: isMet,
                            status: seconds < 3600 ? "indicative" : isMet ? "met" : "missed",
                            note: "the pass renders in parts on every core; a second pass runs only when the limiter may act")
        return (section, target)
    }
}
