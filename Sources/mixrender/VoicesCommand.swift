import ArgumentParser
import MixRender
import Foundation

/// `mixrender voices`: every voice a preset may name, with its engine, languages, gender and origin.
struct VoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "List the voices a session may name (\"voice\": \"hibari:heart\", \"espeak:en-gb\", \"espeak:en-gb+f3\").")

    @Flag(help: "Print JSON: {\"voices\": [{id, engine, name, languages, gender, origin, installed}], \"variants\": [...]}.")
    var json = false

    func run() throws {
        let (voices, variants) = try SpeechSynthesizer.catalogue()
        let neuralInstalled = SpeechHelperLocation.hibariEnvironmentFolder() != nil
        if json {
            let rows: [[String: Any]] = voices.map {
                ["id": $0.id, "engine": $0.engine, "name": $0.name, "languages": $0.languages, "gender": $0.gender,
                 "origin": $0.origin, "installed": $0.engine != "hibari" || neuralInstalled,
                 "default": $0.id == SpeechSettings.defaultVoice]
            }
            let data = try JSONSerialization.data(withJSONObject: ["voices": rows, "variants": variants], options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let width = max(24, (voices.map(\.id.count).max() ?? 0) + 2)
        for voice in voices {
            var note = voice.id == SpeechSettings.defaultVoice ? " (default)" : ""
            if voice.engine == "hibari" && !neuralInstalled { note += " (not installed: scripts/install-speech.sh)" }
            let gender = voice.gender.isEmpty ? "-" : voice.gender
            print(voice.id.padding(toLength: width, withPad: " ", startingAt: 0)
                  + voice.languages.joined(separator: ",").padding(toLength: 14, withPad: " ", startingAt: 0)
                  + gender.padding(toLength: 8, withPad: " ", startingAt: 0) + voice.origin + note)
        }
        print("espeak-ng variants (add to an espeak voice: espeak:en-gb+f3): " + variants.joined(separator: " "))
    }
}
