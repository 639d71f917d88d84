import Glibc

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
    /// The cause a check that no call failed gives itself (`readDocument`'s "not a regular file"), where the `errno`
    /// it carries would say something broader.
    var checkedCause: Cause? = nil

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

    /// Why a write failed, from its `errno`, in words for a person: what happened, not the call's internals.
    public static func writeReason(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "no space left on the device"
        case EDQUOT: return "the disk quota is used up"
        case EPIPE: return "the program reading it stopped (the pipe was closed)"
        case EFBIG: return "the file grew past the largest size the file system (or the process's limit) allows"
        case EIO: return "the device reported an input/output error"
        case EROFS: return "the file system is read-only"
        case EBADF: return "it is not open for writing"
        default: return "the file system refused the write: " + String(cString: strerror(code)).lowercased()
        }
    }
}
