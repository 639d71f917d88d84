#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Writes a file through a fixed 64 KiB buffer, with helpers for the text and little-endian binary
/// that waveform files are made of. Every failure (`fopen`, `fwrite`, `fclose`) throws an
/// `AudioIOError` naming the file: `cannot write 'rain.json': No space left on device (fwrite)`.
///
/// Layout: a C `FILE *` and its own 64 KiB byte buffer. Allocates the buffer in `init` (and `fopen`
/// allocates stdio's); the writing methods allocate nothing, except an error's message. Not
/// thread-safe: one thread at a time.
public final class BufferedFileWriter {
    public let path: String
    /// The name errors use (the destination, when `path` is a temporary file beside it).
    public let displayPath: String
    private var file: UnsafeMutablePointer<FILE>?
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 16
    private var used = 0

    /// Creates (or truncates) `path` with `fopen`.
    public init(path: String, displayPath: String? = nil) throws {
        self.path = path
        self.displayPath = displayPath ?? path
        buffer = .allocate(capacity: capacity)
        guard let file = fopen(path, "wb") else {
            let reason = String(cString: strerror(errno))
            buffer.deallocate()
            throw AudioIOError(path: displayPath ?? path, function: "fopen", reason: reason, operation: "write")
        }
        self.file = file
    }

    deinit {
        if let file { fclose(file) }
        buffer.deallocate()
    }

    public func byte(_ b: UInt8) throws {
        if used == capacity { try flush() }
        buffer[used] = b
        used += 1
    }

    public func text(_ s: String) throws {
        var s = s
        try s.withUTF8 { for b in $0 { try byte(b) } }
    }

    /// Decimal digits of `value`, without allocating.
    public func integer(_ value: Int) throws {
        if used + 21 > capacity { try flush() }
        if value < 0 { buffer[used] = UInt8(ascii: "-"); used += 1 }
        var magnitude = value.magnitude
        let first = used
        repeat {
            buffer[used] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            used += 1
        } while magnitude > 0
        var i = first, j = used - 1
        while i < j { (buffer[i], buffer[j]) = (buffer[j], buffer[i]); i += 1; j -= 1 }
    }

    public func int32LE(_ value: Int32) throws { try uint32LE(UInt32(bitPattern: value)) }

    public func uint32LE(_ value: UInt32) throws {
        for shift in stride(from: 0, to: 32, by: 8) { try byte(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    public func int16LE(_ value: Int16) throws {
        let bits = UInt16(bitPattern: value)
        try byte(UInt8(truncatingIfNeeded: bits)); try byte(UInt8(truncatingIfNeeded: bits >> 8))
    }

    public func bytes(_ p: UnsafeRawBufferPointer) throws {
        for b in p { try byte(b) }
    }

    /// Writes what is buffered with `fwrite`.
    public func flush() throws {
        guard used > 0 else { return }
        guard let file else { throw AudioIOError(path: displayPath, function: "fwrite", reason: "the file is closed", operation: "write") }
        if fwrite(buffer, 1, used, file) != used {
            throw AudioIOError(path: displayPath, function: "fwrite", reason: String(cString: strerror(errno)), operation: "write")
        }
        used = 0
    }

    /// Flushes and closes with `fclose` (which reports a full disk, too).
    public func close() throws {
        try flush()
        guard let file else { return }
        self.file = nil
        if fclose(file) != 0 {
            throw AudioIOError(path: displayPath, function: "fclose", reason: String(cString: strerror(errno)), operation: "write")
        }
    }
}
