import ArgumentParser
import MixRender

/// `mixrender kinds`: every kind of source a track may play, with its settings, from the kinds' own declarations
/// (`SourceKindCatalog`).
struct KindsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kinds",
        abstract: "List every kind of source a track may play (file, generator, rain, ...) with its settings, what each takes and its default.")

    @Argument(help: "Only these kinds (their track keys: rain, wind, ...).")
    var kinds: [String] = []

    @Flag(help: "Print JSON for a program: {\"kinds\": [{key, description, endless, loops, settings: [{key, required, and the setting's JSON schema}]}]}; a kind that is one value has \"value\" instead of settings.")
    var json = false

    func run() throws {
        let catalog = SourceKindCatalog()
        let keys = catalog.kinds.map(\.key)
        let chosen = try kinds.map { key -> SourceKindCatalog.Kind in
            guard let kind = catalog.kind(key) else {
                let hint = NameSuggestion.closest(to: key, among: keys).map { "did you mean '\($0)'? " } ?? ""
                throw CLIError("unknown kind '\(PrintableText.escaped(key))'; \(hint)the kinds are \(keys.joined(separator: ", "))")
            }
            return kind
        }
        print(json ? catalog.json(kinds.isEmpty ? nil : chosen) : catalog.text(kinds.isEmpty ? nil : chosen), terminator: "")
    }
}
