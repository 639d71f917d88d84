import ArgumentParser
import MixRender

/// `--cache-dir` and `--cache-dir-mb`, the same for `render` and `batch`: a folder of prepared sounds, syntheses and
/// loudness measurements kept between processes (`MaterialStore`).
struct CacheDirOptions: ParsableArguments {
    @Option(help: "A folder that keeps prepared sounds and loudness measurements between renders and processes (made if missing; safe to share): a window, another format or another machine with the same folder measures nothing again.")
    var cacheDir: String?

    @Option(name: .customLong("cache-dir-mb"), parsing: .unconditional, help: "MiB the --cache-dir folder's entries may take on disk; least recently used go first (default 4096).")
    var cacheDirMB = 4096

    func validate() throws {
        guard cacheDirMB >= 1 && cacheDirMB <= 1 << 30 else { throw CLIError("--cache-dir-mb must be between 1 and \(1 << 30)") }
    }

    /// The folder's store, made (and trimmed to its budget) if it was given.
    func store() throws -> MaterialStore? {
        try cacheDir.map { try MaterialStore(folder: $0, budgetBytes: Int64(cacheDirMB) << 20) }
    }
}

/// `--var NAME=VALUE`: a template's variables (docs/templates.md), for render, validate and key.
struct TemplateVariableOptions: ParsableArguments {
    @Option(name: .customLong("var"), help: ArgumentHelp("A template's variable, NAME=VALUE (repeatable): the template's own checks apply, and a text is spoken as text, never markup, a file or an option (docs/templates.md).", valueName: "NAME=VALUE"))
    var variables: [String] = []

    /// The variables given, each value as a string (the template reads a number or a length from it); nil: none given.
    func values() throws -> [String: JSONValue]? {
        guard !variables.isEmpty else { return nil }
        var values: [String: JSONValue] = [:]
        for argument in variables {
            guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                throw CLIError("--var '\(PrintableText.escaped(argument))': expected NAME=VALUE")
            }
            let name = String(argument[..<equals])
            guard values[name] == nil else { throw CLIError("--var: '\(PrintableText.escaped(name))' is given twice") }
            values[name] = .string(String(argument[argument.index(after: equals)...]))
        }
        return values
    }
}
