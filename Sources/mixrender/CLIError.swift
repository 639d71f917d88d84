/// An error in the command line's values, printed as one line (ArgumentParser's `ValidationError`
/// would add the usage text below it).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
