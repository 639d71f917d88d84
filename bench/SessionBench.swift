import DSPTestSupport
import MixDSP
import MixEngine
import MixIO

/// Sessions: how fast espeak-ng speaks (seconds of work per minute of speech), and where the time of a
/// session rendered to Ogg Vorbis goes (presets/sleep-hypnosis.json, stretched to `seconds`): the render
/// loop (sources and mixing, on the render thread) against the whole wall time, where the Vorbis encoder,
/// on its own thread, is the bound.
struct SessionBench {
    let isQuick: Bool
    let runs: Int
    let seconds: Double
    let progress: Progress

    func run() throws -> (Section, Target) {
        var section = Section(
            id: "session",
            title: "Sessions: speech synthesis, and presets/sleep-hypnosis.json at \(fixed(seconds / 60, 0)) min to Ogg Vorbis",
            labels: ["measure"],
            columns: [Column(key: "value", title: "value", format: .seconds)])

        // Distinct sentences each round: espeak-ng's output is kept per process, and a repeat would cost nothing.
        var perMinute: [Double] = []
        for round in 0..<runs {
            progress.say("session: synthesising speech, round \(round + 1)/\(runs)")
            var speech = 0.0, wall = 0.0
            let clock = ContinuousClock()
            for k in 0..<(isQuick ? 8 : 30) {
                let text = "Round \(round), sentence \(k). Let your breath slow down, and let the sound of the rain carry you further."
                let started = clock.now
                let spoken = try SpeechSynthesizer().synthesize(text, settings: SpeechSettings(voice: "espeak:en-us"), ssml: false)
                wall += (clock.now - started).seconds
                speech += spoken.durationSeconds
            }
            perMinute.append(wall / speech * 60)
        }
        section.add(["synthesis s per minute of speech"], ["value": Spread(perMinute)])

        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        var loopShare: [Double] = [], walls: [Double] = []
        for round in 0..<runs {
            progress.say("session: rendering \(fixed(seconds, 0)) s to Ogg Vorbis, round \(round + 1)/\(runs)")
            let job = try RenderJob(presetPath: "presets/sleep-hypnosis.json", overrides: RenderOverrides(durationSeconds: seconds))
            let result = try job.render(to: temporary.path("session-\(round).ogg"))
            let t = result.summary.timings
            loopShare.append((t.sources + t.mix) / t.wall)
            walls.append(t.wall)
        }
        section.add(["render wall time"], ["value": Spread(walls)])
        section.notes.append("render loop (sources + mixing) share of the wall time: \(fixed(100 * Spread(loopShare).median, 1)) % (median); the rest is the Vorbis encoder's thread")
        let share = Spread(loopShare)
        let isMet = share.median < 0.15
        let target = Target(name: "a session to Ogg stays encoder-bound",
                            definition: "(sources + mix seconds) / wall seconds of presets/sleep-hypnosis.json rendered to Ogg Vorbis",
                            value: Figure(share, .fraction), threshold: 0.15, comparison: "below", isMet: isMet,
                            status: isQuick ? "indicative" : isMet ? "met" : "missed",
                            note: "voice, ducking envelopes, binaural beats and the night bed; the encoder runs on its own thread")
        return (section, target)
    }
}
