import DSPTestSupport
import MixDSP
import MixEngine
import MixIO

/// Normalising to a loudness: the measuring pass (the mix rendered without an encoder, measured before the
/// limiter, in parts on every core) against the render of the same plan to Ogg Vorbis, taken in turn in one
/// run, on the reference night mix (`NightMix`) at `seconds`. The material is prepared before either is
/// timed, as a normalised render shares it between its passes and the write. Also the summary's output
/// meter: the same render to Ogg with and without it.
struct LoudnessBench {
    let isQuick: Bool
    let runs: Int
    let seconds: Double
    let progress: Progress

    func run() throws -> (Section, Target) {
        var section = Section(
            id: "loudness",
            title: "Loudness: the measuring pass of the night mix at \(fixed(seconds / 60, 0)) min, against its render to Ogg Vorbis",
            labels: ["measure"],
            columns: [Column(key: "value", title: "value", format: .seconds)])
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        progress.say("loudness: writing the night mix's loops ...")
        let mix = try NightMix.make(in: temporary.url.path, isQuick: isQuick)
        let preset = try mix.preset(seconds: seconds)
        let plan = try Planner(presetFile: "bench night mix").plan(preset, analysis: Analyzer().analyse(preset))
        let material = PreparedMaterial()
        try material.prepare(for: plan)
        func renderToOgg(_ name: String, metered: Bool) throws -> Double {
            let settings = OutputSettings(format: .oggVorbis, sampleRate: plan.sampleRate, channelCount: plan.channelCount,
                                          vorbisQuality: preset.output.quality)
            let writer = try SoundFileWriter(path: temporary.path(name), settings: settings)
            return try Renderer(plan: plan).render(to: writer, material: material, measuresOutput: metered).timings.wall
        }
        let clock = ContinuousClock()
        var measuring: [Double] = [], rendering: [Double] = [], ratios: [Double] = [], unmetered: [Double] = [], costs: [Double] = []
        for round in 0..<runs {
            progress.say("loudness: measuring pass, round \(round + 1)/\(runs)")
            let started = clock.now
            _ = try Normalisation.measure(plan, at: .beforeLimiter, material: material)
            let measure = (clock.now - started).seconds
            progress.say("loudness: render to Ogg Vorbis, round \(round + 1)/\(runs)")
            let render = try renderToOgg("night-\(round).ogg", metered: true)
            progress.say("loudness: render to Ogg Vorbis without the output meter, round \(round + 1)/\(runs)")
            let bare = try renderToOgg("bare-\(round).ogg", metered: false)
            measuring.append(measure); rendering.append(render); ratios.append(measure / render)
            unmetered.append(bare); costs.append(render / bare)
        }
        section.add(["measuring pass"], ["value": Spread(measuring)])
        section.add(["render to Ogg Vorbis"], ["value": Spread(rendering)])
        section.add(["render to Ogg Vorbis, no output meter"], ["value": Spread(unmetered)])
        section.notes.append("the output meter (EBU R128 and true peak, on the render thread) costs a render to Ogg \(fixed(Spread(costs).median, 3))x its wall time without it (median)")
        let ratio = Spread(ratios)
        let isMet = ratio.median < 0.15
        let target = Target(name: "normalising costs little",
                            definition: "measuring pass seconds / render-to-Ogg seconds of the night mix, in turn in one run",
                            value: Figure(ratio, .fraction), threshold: 0.15, comparison: "below", isMet: isMet,
                            status: isQuick ? "indicative" : isMet ? "met" : "missed",
                            note: "the pass renders in parts on every core; a second pass runs only when the limiter may act")
        return (section, target)
    }
}
