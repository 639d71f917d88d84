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
        var measuring: [Double] = [], rendering: [Double] = [], ratios: [Double] = [], unmetered: [Double] = [], costs: [Double] = []
        for round in 0..<runs {
            progress.say("loudness: measuring pass, round \(round + 1)/\(runs)")
            let started = clock.now
            _ = try Normalisation.measure(job.plan, at: .beforeLimiter, material: material)
            let measure = (clock.now - started).seconds
            progress.say("loudness: render to Ogg Vorbis, round \(round + 1)/\(runs)")
            let render = try job.render(to: temporary.path("night-\(round).ogg"), material: material).summary.timings.wall
            measuring.append(measure); rendering.append(render); ratios.append(measure / render)
            // The same render without the summary's loudness tap (EBU R128 and true peak on the render thread).
            progress.say("loudness: render to Ogg Vorbis without the output meter, round \(round + 1)/\(runs)")
            let settings = try job.outputSettings(for: temporary.path("bare-\(round).ogg"))
            let writer = try SoundFileWriter(path: temporary.path("bare-\(round).ogg"), settings: settings)
            let bare = try Renderer(plan: job.plan).render(to: writer, material: material, measuresOutput: false).timings.wall
            unmetered.append(bare); costs.append(render / bare)
        }
        section.add(["measuring pass"], ["value": Spread(measuring)])
        section.add(["render to Ogg Vorbis"], ["value": Spread(rendering)])
        section.add(["render to Ogg Vorbis, no output meter"], ["value": Spread(unmetered)])
        section.notes.append("the output meter's cost on a render to Ogg: \(fixed(Spread(costs).median, 3))x the wall time without it (median)")
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
