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
        let job = try RenderJob(presetPath: preset, overrides: try overrides.resolved())
        let inputs = try InputFile.hashAll(job.plan)
        if canonical {
            let digests = Dictionary(inputs.map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
            print(try CacheKey.audioText(plan: job.plan, range: job.range, digests: digests), terminator: "")
            if let chosen { print(CacheKey.encodingText(job.outputSettings(format: chosen), chapters: job.chapters), terminator: "") }
            return
        }
        let key = try job.cacheKey(inputs: inputs, format: chosen)
        print(key.file ?? key.audio)
    }
}
