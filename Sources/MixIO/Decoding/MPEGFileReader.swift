import CMPG123
import Glibc

/// Decodes MPEG audio (MP3, and MP2/MP1) with libmpg123 into interleaved `Float` frames.
///
/// libsndfile decodes MP3 through the same library, but takes the length from the header (a Xing/LAME
/// tag, or for a file without one an estimate from its size and first frame's bitrate) and stops reading
/// there: a variable-bitrate file without a tag was cut short, or planned seconds longer than its audio.
/// This reader scans every frame at open (`mpg123_scan`: headers only, about 2 ms per minute of audio),
/// so `info.frameCount` is the number of frames `read` gives, and libmpg123 is told to keep quiet
/// (`MPG123_QUIET`), so a damaged stream's "Illegal Audio-MPEG-Header" notes never reach the terminal.
/// Gapless playback is on (`MPG123_GAPLESS`): a LAME tag's encoder delay and padding are trimmed.
///
/// A file whose tag announces more frames than it holds was cut short (an interrupted download, a
/// copy that ran out of space) or is damaged: libmpg123 stops at the first bytes that are not a frame
/// of the same stream (`MPG123_NO_FRANKENSTEIN`, as libsndfile sets it: resynchronising on garbage can
/// find a false frame header of another rate, whose decode is noise). It is read as far as it goes, and
/// `info.warnings` says so.
///
/// Layout: an opaque libmpg123 handle (`mpg123_handle *`, which holds the file, the frame index and
/// the read position) and the `AudioFileInfo` made at opening. `init` allocates (libmpg123's state and
/// frame index, the info's strings); `read` and `seek` allocate nothing in Swift, except an error's
/// message. Not thread-safe: one thread at a time; separate readers may run on separate threads.
public final class MPEGFileReader: AudioFileReader {
    public let info: AudioFileInfo
    private let handle: OpaquePointer
    /// Bytes in one frame of output (`channelCount` floats).
    private let frameBytes: Int

    /// Opens `path` (`mpg123_new`, `mpg123_open`), fixes the output to 32-bit float at the stream's
    /// rate and channels (`mpg123_format`), and scans its frames for the exact length (`mpg123_scan`).
    /// `identity` and `tags` come from the caller's look at the file (`AudioFile.open` has opened it with
    /// libsndfile to learn that it is MPEG).
    public init(path: String, identity: FileIdentity? = nil, tags: AudioTags = AudioTags()) throws {
        try LibC.checkPath(path, function: "mpg123_open", operation: "open")
        Self.initializeLibrary()
        var code: Int32 = 0
        guard let handle = mpg123_new(nil, &code) else {
            throw AudioIOError(path: path, function: "mpg123_new", reason: String(cString: mpg123_plain_strerror(code)))
        }
        self.handle = handle
        let flags = MPG123_FORCE_FLOAT.rawValue | MPG123_GAPLESS.rawValue | MPG123_QUIET.rawValue
            | MPG123_NO_FRANKENSTEIN.rawValue
        mpg123_param2(handle, Int32(MPG123_ADD_FLAGS.rawValue), Int(flags), 0)
        mpg123_param2(handle, Int32(MPG123_REMOVE_FLAGS.rawValue), Int(MPG123_AUTO_RESAMPLE.rawValue), 0)
        // After a seek, Layer III needs the frames before the target decoded to refill its bit reservoir, which
        // reaches back up to 511 bytes: eight 32 kbit/s mono frames at 48 kHz. libmpg123's default is 2.
        mpg123_param2(handle, Int32(MPG123_PREFRAMES.rawValue), 8, 0)

        func failure(_ function: String) -> AudioIOError {
            AudioIOError(path: path, function: function, reason: Self.reason(handle))
        }
        guard mpg123_open(handle, path) == MPG123_OK.rawValue else {
            let error = failure("mpg123_open")
            mpg123_delete(handle)
            throw error
        }
        var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue, rate > 0, channels > 0 else {
            let error = failure("mpg123_getformat")
            mpg123_delete(handle)
            throw error
        }
        // One output format from here on, so a stream that changes rate mid-way is an error, not garbage.
        mpg123_format_none(handle)
        mpg123_format(handle, rate, channels, Int32(MPG123_ENC_FLOAT_32.rawValue))

        // What the header announces, before the scan replaces it with what the frames hold.
        let announced = Self.announcedLength(handle)
        guard mpg123_scan(handle) == MPG123_OK.rawValue else {
            let error = failure("mpg123_scan")
            mpg123_delete(handle)
            throw error
        }
        let frames = max(0, Int64(mpg123_length(handle)))
        var warnings: [String] = []
        if let announced, announced.frames > Int64(mpg123_framelength(handle)) {
            let said = Double(announced.samples) / Double(rate), holds = Double(frames) / Double(rate)
            warnings.append("the file ends early: its header announces \(Self.seconds(said)) of audio, but its frames "
                            + "stop at \(Self.seconds(holds)) (cut short, or damaged there); it is read as far as it goes")
        }
        frameBytes = Int(channels) * MemoryLayout<Float>.size
        var layer = "MP3"
        var frameInfo = mpg123_frameinfo2()
        if mpg123_info2(handle, &frameInfo) == MPG123_OK.rawValue, frameInfo.layer != 3 { layer = "MP\(frameInfo.layer)" }
        info = AudioFileInfo(path: path, formatName: layer, sampleRate: rate, channelCount: Int(channels),
                             frameCount: frames, isSeekable: true, tags: tags, identity: identity,
                             warnings: warnings)
    }

    /// Calls `mpg123_close` and `mpg123_delete`.
    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// Calls `mpg123_read`. Returns fewer frames than asked only at the end of the stream, and 0 after it.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        precondition(frames >= 0, "frames must not be negative")
        var filled = 0
        while filled < frames {
            var done = 0
            let bytes = (frames - filled) * frameBytes
            let result = mpg123_read(handle, UnsafeMutableRawPointer(buffer + filled * info.channelCount), bytes, &done)
            filled += done / frameBytes
            if result == MPG123_OK.rawValue || result == MPG123_NEW_FORMAT.rawValue { continue }
            if result == MPG123_DONE.rawValue { break }
            throw AudioIOError(path: info.path, function: "mpg123_read", reason: Self.reason(handle), operation: "read")
        }
        return filled
    }

    /// Calls `mpg123_seek(..., Int32(SEEK_SET))`: exact to the frame (the scan built the frame index).
    public func seek(to frame: Int64) throws {
        guard frame >= 0, frame <= info.frameCount else {
            throw AudioIOError(path: info.path, function: "mpg123_seek",
                               reason: "cannot go to frame \(frame): the file has \(info.frameCount)", operation: "seek in")
        }
        if mpg123_seek(handle, Int(frame), Int32(SEEK_SET)) < 0 {
            throw AudioIOError(path: info.path, function: "mpg123_seek", reason: Self.reason(handle), operation: "seek in")
        }
    }

    // MARK: - Helpers

    /// `mpg123_init` is process-wide and, before libmpg123 1.27, not safe to call from two threads at once.
    private static let initialized = Locked(false)
    private static func initializeLibrary() {
        initialized.withLock { done in
            if !done { _ = mpg123_init(); done = true }
        }
    }

    /// The length a Xing/Info tag announces, in MPEG frames and in samples; nil for a stream without one,
    /// whose header length is only an estimate. libmpg123 reports a tag as a VBR or ABR stream, or by the
    /// encoder delay that a LAME tag carries (`MPG123_ENC_DELAY`, -1 without one).
    private static func announcedLength(_ handle: OpaquePointer) -> (frames: Int64, samples: Int64)? {
        var frameInfo = mpg123_frameinfo2()
        var delay = -1
        var unused = 0.0
        let hasTag = (mpg123_info2(handle, &frameInfo) == MPG123_OK.rawValue && frameInfo.vbr != Int32(MPG123_CBR.rawValue))
            || (mpg123_getstate2(handle, Int32(MPG123_ENC_DELAY.rawValue), &delay, &unused) == MPG123_OK.rawValue && delay >= 0)
        guard hasTag else { return nil }
        return (Int64(mpg123_framelength(handle)), Int64(mpg123_length(handle)))
    }

    /// `mpg123_strerror`, made readable.
    private static func reason(_ handle: OpaquePointer) -> String {
        var text = Substring(String(cString: mpg123_strerror(handle)))
        while let last = text.last, last == "." || last == " " || last == "\n" { text = text.dropLast() }
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    private static func seconds(_ s: Double) -> String { "\((s * 1000).rounded() / 1000) s" }
}
