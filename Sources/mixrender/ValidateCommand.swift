import ArgumentParser
import MixRender

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a preset and that every source file opens, without rendering.")

    @Argument(help: "The preset (JSON).")
    var preset: String

    @OptionGroup var overrides: OverrideOptions

    @OptionGroup var template: TemplateVariableOptions

    @OptionGroup var voices: VoicesFolderOptions

    @Option(help: "Also check that the render can be written in this format, as a render checks it before it starts (rates, bitrates, channels and tags the encoder takes): \(OutputFileFormat.extensionList()). Give it more than once for several.")
    var format: [String] = []

    @Option(help: "Also write the timeline as JSON, as render --timeline does: sections, spoken segments, ducking, schedules, breathing phases.")
    var timeline: String?

    @Flag(help: "Print the result as JSON for a back end (length, rate, channels, tracks, formats checked, warnings and the timeline); an invalid preset is still a one-line error on standard error and a failed exit.")
    var json = false

    func run() throws {
        voices.apply()
        let formats = try format.map { name -> OutputFileFormat in
            guard let f = OutputFileFormat.named(name) else {
                throw CLIError("--format: unknown format '\(name)'; expected \(OutputFileFormat.extensionList())")
            }
            return f
        }
        let job = try RenderJob(presetPath: preset, overrides: try overrides.resolved(), variables: try template.values())
        if let timeline {
            try job.checkWrites([(timeline, "--timeline")])
            _ = try AtomicOutputFile.check(destination: timeline)
        }
        var warnings = job.plan.warnings
        for format in formats {
            do {
                warnings += try job.check(format: format, name: format.fileExtension)
            } catch EngineError.output(_, let reason) {
                // Named as the option that asked for the check: "--format ogg: Ogg Vorbis takes a quality, ...".
                throw EngineError.setting(.format, reason: EngineReason(parts: [.text("\(format.fileExtension): ")] + reason.parts))
            }
        }
        if let timeline { try TimelineJSON.write(job.plan.timeline, range: job.range, to: timeline) }
        if json {
            print(ValidationJSON.document(job, formats: formats.map(\.fileExtension), warnings: warnings), terminator: "")
            return
        }
        Printout.warn(warnings)
        var lines = [Printout.validation(job)]
        if !formats.isEmpty { lines.append("formats   " + formats.map { ".\($0.fileExtension)" }.joined(separator: ", ") + ": OK") }
        if let timeline { lines.append("timeline  \(PrintableText.escaped(timeline))") }
        print(lines.joined(separator: "\n"))
    }
}
