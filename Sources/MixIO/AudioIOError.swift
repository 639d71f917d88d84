/// An error from one of the C libraries MixIO wraps, written for a person at a terminal:
/// `cannot open 'rain.ogg': malformed file (sf_open)`.
///
/// A value: four `String`s and an optional `errno`; allocates only its strings when made. `Sendable`,
/// safe to share.
public struct AudioIOError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file as the caller named it; empty when no file is involved (resampler, FFT).
    public var path: String
    /// The C function that failed, e.g. `sf_open`; empty when the error is a check that no single call
    /// failed (a destination whose folder does not exist), which the message then does not name.
    public var function: String
    /// Why, in plain words (libsndfile's and libsamplerate's messages, made readable).
    public var reason: String
    /// What was being done, as a verb phrase: `open`, `create`, `read`, `write`, `seek in`, ...
    /// When `path` is empty it names the object too (`create a resampler for 44100 Hz -> 48000 Hz`).
    public var operation: String
    /// The `errno` the C function reported, when it is a libc call (nil for libsndfile, libsamplerate, ...).
    /// `cause` sorts the common ones for callers that word the message themselves.
    public var code: Int32?
    /// Whether the library did not recognise the file's format at all (libsndfile, for a regular file that
    /// is not empty), so that `AudioFile.open` may try another one.
    var isUnrecognisedFormat = false

    public init(path: String, function: String, reason: String, operation: String = "open", code: Int32? = nil) {
        self.path = path
        self.function = function
        self.reason = reason
        self.operation = operation
        self.code = code
    }

    public var description: String {
        let target = path.isEmpty ? operation : "\(operation) '\(path)'"
        return function.isEmpty ? "cannot \(target): \(reason)" : "cannot \(target): \(reason) (\(function))"
    }
}
