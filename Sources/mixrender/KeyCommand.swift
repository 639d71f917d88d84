import ArgumentParser
import MixRender

/// `mixrender key PRESET`: the cache key of a render, without rendering (docs/report.md, "Cache key").
struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Print a render's cache key without rendering: the same preset, overrides, inputs and version give the same key.",
        discussion: """
            The audio key by default (the same for every output format); with --format, the file key, which
            --report writes as cacheKey.file for an output of that format.
            """)

    @Argument(help: "The preset (JSON).")
    var preset: String

    @OptionGroup var overrides: OverrideOptions

    @OptionGroup var template: TemplateVariableOptions

    @Option(help: "The output format (\(OutputFileFormat.extensionList()), as the output's extension): print the file key.")
    var format: String?

    @Flag(help: .hidden)
    var canonical = false

    func run() throws {
        let chosen = try format.map { name -> OutputFileFormat in
            guard let f = OutputFileFormat.from(path: "output.\(name)") else {
                throw CLIError("--format: unknown format '\(name)'; expected \(OutputFileFormat.extensionList())")
            }
            return f
        }
        let render = try PresetRender(presetFile: preset, overrides: try overrides.resolved(), variables: try template.values())
        print(canonical ? try render.cacheKeyText(format: chosen) : try render.cacheKey(format: chosen),
              terminator: canonical ? "" : "\n")
    }
}
