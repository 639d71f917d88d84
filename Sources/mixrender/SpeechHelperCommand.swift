import ArgumentParser
import MixRender
import Foundation

/// `mixrender speech-helper espeak`: the espeak-ng helper process (hidden; started by mixrender itself for
/// each text, docs/sessions.md "Voices"). Speaks one request from standard input to standard output and exits.
struct SpeechHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "speech-helper", shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough)
    var arguments: [String] = []

    func run() throws {
        guard arguments.first == "espeak" else { throw CLIError("speech-helper: expected 'espeak'") }
        Foundation.exit(SpeechHelperServer.runEspeak(arguments: Array(arguments.dropFirst())))
    }
}
