import ArgumentParser
import Foundation
import MixRender

struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join lossless parts of one render (windows rendered with --start/--end) into one file, sample-exactly.",
        discussion: """
            The parts must share rate, channels and kind of samples (integer or float); 16-bit parts among 24-bit \
            ones are widened, exactly. Parts and output are lossless: .wav, .flac, .aiff or .caf. Lossy parts are \
            refused: each carries its own encoder delay and padding.
            """)

    @Argument(help: "The parts, in order (\(OutputFileFormat.losslessList(dotted: true))).")
    var parts: [String] = []

    @Option(name: .shortAndLong, help: "The output file; its extension picks the format (.wav, .flac, .aiff or .caf).")
    var output: String

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard !parts.isEmpty else { throw CLIError("join: give at least one part (mixrender join PART... -o OUT)") }
    }

    func run() throws {
        try InterruptCleanup.install()   // Ctrl-C removes the temporary output file and exits 130
        let job = try JoinJob(parts: parts, output: output)
        let result = try job.run()
        if !quiet { print(Printout.join(result)) }
    }
}
