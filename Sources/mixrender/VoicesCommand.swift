import ArgumentParser
import MixRender
import Foundation

/// `mixrender voices`: every voice a preset may name, with its engine, languages, whether it is natural or a draft,
/// whether it is installed, its licence and where it comes from.
struct VoicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voices",
        abstract: "List the voices a session may name (\"voice\": \"hibari:heart\", \"kokoro:jf_alpha\", \"espeak:en-gb\", \"espeak:en-gb+f3\").")

    @Flag(help: "Print JSON: {\"voices\": [{id, engine, name, languages, gender, quality, installed, licence, attribution, origin, default}], \"variants\": [...], \"refused\": [{name, reason}]}.")
    var json = false

    @OptionGroup var folder: VoicesFolderOptions

    func run() throws {
        folder.apply()
        let refused = InstalledVoices.current().refused
        defer {
            // Each voice of the folder that was refused: one line, and a failed exit, after the list.
            for refusal in refused { FileHandle.standardError.write(Data("Error: \(refusal.reason)\n".utf8)) }
        }
        let (voices, variants) = try SpeechSynthesizer.catalogue()
        let installed = Dictionary(uniqueKeysWithValues: SpeechEngines.natural.map { ($0.key, $0.isInstalled) })
        func isInstalled(_ engine: String) -> Bool { installed[engine] ?? true }
        if json {
            let rows: [[String: Any]] = voices.map {
                ["id": $0.id, "engine": $0.engine, "name": $0.name, "languages": $0.languages, "gender": $0.gender,
                 "quality": $0.quality, "installed": isInstalled($0.engine),
                 "licence": $0.licence, "attribution": $0.attribution, "origin": $0.origin,
                 "default": $0.id == SpeechSettings.defaultVoice]
            }
            let data = try JSONSerialization.data(withJSONObject: ["voices": rows, "variants": variants,
                                                                   "refused": refused.map { ["name": $0.name, "reason": $0.reason] }],
                                                  options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
            if !refused.isEmpty { throw ExitCode(1) }
            return
        }
        let width = max(24, (voices.map(\.id.count).max() ?? 0) + 2)
        func column(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0) }
        print(column("VOICE", width) + column("LANGUAGE", 14) + column("GENDER", 8) + column("QUALITY", 9) + column("LICENCE", 18) + "ORIGIN")
        for voice in voices {
            var note = voice.id == SpeechSettings.defaultVoice ? " (default for English)" : ""
            if !isInstalled(voice.engine) { note += " (not installed: scripts/install-speech.sh)" }
            print(column(voice.id, width) + column(voice.languages.joined(separator: ","), 14) + column(voice.gender.isEmpty ? "-" : voice.gender, 8)
                  + column(voice.quality, 9) + column(voice.licence, 18) + voice.origin + note)
        }
        print("espeak-ng variants (add to an espeak voice: espeak:en-gb+f3): " + variants.joined(separator: " "))
        if !refused.isEmpty { throw ExitCode(1) }
    }
}
