import MixEngine
import MixIO

/// The library throws `EngineError` only (and `CancellationError` when its task is cancelled): this turns MixIO's
/// `AudioIOError`, a C library's failure naming its file, into the `EngineError` case for that file.
enum LibraryError {
    /// `error` as the library throws it: an `AudioIOError` about `output` (the file or stream being written) becomes
    /// `EngineError.output`, about any other file `EngineError.input` (a source that cannot be read), its reason
    /// naming the C function (`malformed file (sf_open)`); any other error passes unchanged.
    static func wrapped(_ error: any Error, output: String?) -> any Error {
        guard let error = error as? AudioIOError else { return error }
        let reason = EngineError.singleLine(error.function.isEmpty ? error.reason : "\(error.reason) (\(error.function))")
        if let output, error.path == output || error.path.isEmpty {
            return EngineError.output(path: output, reason: EngineReason(stringLiteral: reason))
        }
        return EngineError.input(path: error.path, reason: EngineReason(stringLiteral: reason))
    }

    /// Runs `body`, wrapping what it throws (`wrapped(_:output:)`).
    static func wrapping<T>(output: String?, _ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw wrapped(error, output: output) }
    }
}
