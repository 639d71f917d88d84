import ArgumentParser
import MixRender

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a preset and that every source file opens, without rendering.")

    @Argument(help: "The preset (JSON).")
    var preset: String

    @OptionGroup var overrides: OverrideOptions

    func run() throws {
        let job = try RenderJob(presetPath: preset, overrides: try overrides.resolved())
        Printout.warn(job.plan.warnings)
        print(Printout.validation(job))
    }
}
