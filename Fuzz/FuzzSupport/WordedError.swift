import MixEngine
import MixIO

/// What the preset and job-list targets ask of an error: one the command line can word (the engine's or
/// MixIO's), in one line. Anything else is a finding.
public func expectWordedError(_ error: Error) {
    let message: String
    switch error {
    case let error as EngineError: message = error.description
    case let error as AudioIOError: message = EngineError.singleLine(error.description)
    default: preconditionFailure("an error the CLI cannot word: \(type(of: error)): \(error)")
    }
    precondition(!message.isEmpty && !message.contains("\n"), "not a one-line message: \(message)")
}
