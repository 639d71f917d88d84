import CSndFile
import Glibc

/// Where `SoundFileWriter`'s bytes go, so that every failed write is seen with its `errno`.
///
/// libsndfile does not report all write errors: its MP3 and Ogg encoders ignore what `write(2)` returns, the
/// bytes it writes while closing (LAME's and FLAC's last frames, the Ogg end page, a header's sizes) fail
/// unseen because `sf_close` reports only `close(2)`, and what it does report is worded as its internals
/// ("unspecified internal error", "problem with initialization of the flac decoder"). So a file or any other
/// seekable descriptor is written through libsndfile's virtual IO (`sf_open_virtual`), whose callbacks here
/// make the `lseek`/`read`/`write` calls and keep the first write's `errno`. A pipe or socket cannot be: libsndfile
/// takes virtual IO as seekable and would seek back to write headers, so it gets the descriptor itself
/// (`sf_open_fd`, which knows a pipe), and its failures are found through `sf_error` (`SF_ERR_SYSTEM` carries
/// `strerror` of the failed write) after each call and, after closing, by `poll` seeing the reader gone.
///
/// Layout: a descriptor, whether it is a pipe, whether it is owned (closed by `close()`), and the first
/// failed write's `errno`. Allocates nothing after `init`. One thread at a time, as its writer.
final class SoundFileOutput {
    let descriptor: Int32
    /// A FIFO or socket: libsndfile writes it itself (`sf_open_fd`).
    let isPipe: Bool
    private var ownsDescriptor: Bool
    /// The `errno` of the first write that failed, or nil.
    private(set) var writeErrno: Int32?

    /// Creates (or truncates) `path` for writing, as libsndfile would (`O_WRONLY | O_CREAT | O_TRUNC`, 0666
    /// less the umask); errors name `displayPath`, and a missing folder is said as such.
    init(creating path: String, displayPath: String) throws {
        try LibC.checkPath(path, function: "open", operation: "create")
        var fd: Int32
        repeat { fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let code = errno
            throw AudioIOError(path: displayPath, function: "open",
                               reason: SndFile.createFailureReason(path: path, message: LibC.describe(code)),
                               operation: "create", code: code)
        }
        descriptor = fd
        isPipe = false
        ownsDescriptor = true
    }

    /// Writes into the open descriptor `descriptor` (standard output), which `close()` leaves open.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        var status = CStat()
        isPipe = fstat(descriptor, &status) == 0
            && (status.st_mode & S_IFMT == S_IFIFO || status.st_mode & S_IFMT == S_IFSOCK)
        ownsDescriptor = false
    }

    deinit { if ownsDescriptor { Glibc.close(descriptor) } }

    /// Opens it for libsndfile in `SFM_WRITE` mode: `sf_open_virtual` with the callbacks below, or for a pipe
    /// `sf_open_fd`. The returned handle must be closed (`sf_close`) before this object goes.
    func open(info: inout SF_INFO, displayPath: String) throws -> OpaquePointer {
        // Under SndFile.openLock: the reason a failed open gives is process-wide in libsndfile.
        // The handle leaves the lock as its address: the lock's result must be sendable, and the handle is this
        // object's alone.
        let (address, failure) = SndFile.openLock.withLock { _ -> (Int, String) in
            let opened = isPipe
                ? sf_open_fd(descriptor, Int32(SFM_WRITE), &info, 0)
                : sf_open_virtual(&Self.callbacks, Int32(SFM_WRITE), &info, Unmanaged.passUnretained(self).toOpaque())
            return (Int(bitPattern: opened), opened == nil ? String(cString: sf_strerror(nil)) : "")
        }
        if let opened = OpaquePointer(bitPattern: address) { return opened }
        if let code = writeErrno {
            throw AudioIOError(path: displayPath, function: "write", reason: AudioIOError.writeReason(code), operation: "write", code: code)
        }
        throw AudioIOError(path: displayPath, function: isPipe ? "sf_open_fd" : "sf_open_virtual",
                           reason: SndFile.readable(failure), operation: "create")
    }

    /// The `errno` of a write that failed so far: the first one the callbacks saw, or for a pipe the one
    /// libsndfile logged on `handle` (`SF_ERR_SYSTEM`, whose message is `strerror` of it) in its last call.
    func failedWrite(_ handle: OpaquePointer?) -> Int32? {
        if let writeErrno { return writeErrno }
        guard isPipe, let handle, sf_error(handle) == Int32(SF_ERR_SYSTEM) else { return nil }
        // "System error : Broken pipe." -> EPIPE
        let message = String(cString: sf_strerror(handle))
        let code = (1..<134).first { message.contains(LibC.describe(Int32($0)) + ".") }.map(Int32.init) ?? EIO
        writeErrno = code
        return code
    }

    /// After `sf_close`: for a pipe, whether its reader has gone (`poll` says `POLLERR` on the writing end),
    /// which a write made while closing would have met. Then closes the descriptor if it owns it, reporting
    /// `close`'s error (some file systems report a full disk only there).
    func close(displayPath: String) throws {
        if isPipe && writeErrno == nil {
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            if poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR) != 0 { writeErrno = EPIPE }
        }
        if ownsDescriptor {
            ownsDescriptor = false
            if Glibc.close(descriptor) != 0 && errno != EINTR && writeErrno == nil { writeErrno = errno }
        }
        if let code = writeErrno {
            throw AudioIOError(path: displayPath, function: "write", reason: AudioIOError.writeReason(code), operation: "write", code: code)
        }
    }

    /// Writes `count` bytes, again after a short write or `EINTR`; keeps the first failure's `errno` and
    /// returns what was written.
    private func write(_ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        var done = 0
        while done < count {
            let n = Glibc.write(descriptor, bytes + done, count - done)
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            if writeErrno == nil { writeErrno = n == 0 ? EIO : errno }
            break
        }
        return done
    }

    private static func output(_ user: UnsafeMutableRawPointer?) -> SoundFileOutput {
        Unmanaged<SoundFileOutput>.fromOpaque(user!).takeUnretainedValue()
    }

    /// libsndfile's virtual IO: `fstat`, `lseek`, `read` and `write` on the descriptor.
    nonisolated(unsafe) private static var callbacks = SF_VIRTUAL_IO(
        get_filelen: { user in
            var status = CStat()
            return fstat(output(user).descriptor, &status) == 0 ? sf_count_t(status.st_size) : -1
        },
        seek: { offset, whence, user in sf_count_t(lseek(output(user).descriptor, off_t(offset), whence)) },
        read: { pointer, count, user in
            guard let pointer else { return 0 }
            var n: Int
            repeat { n = Glibc.read(output(user).descriptor, pointer, Int(count)) } while n < 0 && errno == EINTR
            return sf_count_t(max(n, 0))
        },
        write: { pointer, count, user in
            guard let pointer else { return 0 }
            return sf_count_t(output(user).write(pointer, Int(count)))
        },
        tell: { user in sf_count_t(lseek(output(user).descriptor, 0, SEEK_CUR)) })
}
