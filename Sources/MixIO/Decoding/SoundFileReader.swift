import CSndFile
import MixDSP

/// Decodes an audio file with libsndfile (WAV, AIFF, FLAC, Ogg Vorbis, Ogg Opus, MP3) into
/// interleaved `Float` frames normalised to [-1, 1]. Lossy decoders (Vorbis, Opus, MP3) may overshoot
/// full scale slightly: libsndfile does not clip what they decode.
///
/// Layout: an opaque libsndfile handle (`SNDFILE *`, which holds the read position) and the
/// `AudioFileInfo` read at opening. `init` allocates (libsndfile's state, the info's strings); `read` and
/// `seek` allocate nothing in Swift, except an error's message. Not thread-safe: one thread at a time,
/// not necessarily the one that opened it. Separate readers may run on separate threads, but a failed
/// open takes its reason from libsndfile's process-wide last error (`sf_error(NULL)`), which another
/// thread's failing open can overwrite.
public final class SoundFileReader: AudioFileReader {
    public let info: AudioFileInfo
    /// Whether libsndfile found MPEG audio, which `AudioFile.open` hands to `MPEGFileReader`.
    let isMPEG: Bool
    /// `SF_INFO.format`: container and encoding, as `sf_open` found them (see `SoundFileReader+PCM.swift`).
    let sfFormat: Int32
    let handle: OpaquePointer

    /// Opens `path` with `sf_open` (`SFM_READ`) and sets the read behaviour explicitly:
    /// `SFC_SET_NORM_FLOAT` on (integer files scale to [-1, 1]), `SFC_SET_SCALE_FLOAT_INT_READ` off.
    ///
    /// Only regular files are opened: a pipe, a device or a socket (`/dev/stdin`, `/dev/zero`, a FIFO) would
    /// block or never end, so it is refused first (`stat`), as is a path with a NUL character in it.
    public init(path: String) throws {
        let identity = FileSystem.identity(of: path)
        if let identity, identity.kind == .other {
            throw AudioIOError(path: path, function: "", reason: "not a regular file (a pipe, a device or a socket); "
                               + "mixrender reads audio files only", operation: "open")
        }
        var sfInfo = SF_INFO()
        handle = try SndFile.open(path: path, mode: Int32(SFM_READ), info: &sfInfo)
        isMPEG = Int(sfInfo.format) & SF_FORMAT_TYPEMASK == SF_FORMAT_MPEG
        sfFormat = sfInfo.format
        SndFile.setFlag(handle, SFC_SET_NORM_FLOAT, true)
        SndFile.setFlag(handle, SFC_SET_SCALE_FLOAT_INT_READ, false)
        let tags = AudioTags(title: SndFile.string(handle, SF_STR_TITLE),
                             artist: SndFile.string(handle, SF_STR_ARTIST),
                             comment: SndFile.string(handle, SF_STR_COMMENT))
        var frames = sfInfo.frames
        // libsndfile says SF_COUNT_MAX (INT64_MAX) when the header does not give the length (a FLAC written to a pipe says
        // 0 samples): a pass over the file counts them, so that the length is what decodes, as for every reader.
        if frames == Int64.max && !isMPEG && sfInfo.channels > 0 {
            do { frames = try Self.countFrames(path: path) } catch { sf_close(handle); throw error }
        }
        info = AudioFileInfo(path: path, formatName: SndFile.formatName(sfInfo.format),
                             sampleRate: Int(sfInfo.samplerate), channelCount: Int(sfInfo.channels),
                             frameCount: frames, isSeekable: sfInfo.seekable != 0, tags: tags,
                             identity: identity, commentFormat: SndFile.commentFormat(sfInfo.format))
        guard info.channelCount > 0, info.sampleRate > 0 else {  // deinit closes the handle
            throw AudioIOError(path: path, function: "sf_open",
                               reason: "the file reports \(info.channelCount) channels at \(info.sampleRate) Hz")
        }
    }

    /// Calls `sf_close`.
    deinit { sf_close(handle) }

    /// The frames `sf_readf_float` decodes from `path` until it gives 0, through a handle of its own.
    private static func countFrames(path: String) throws -> Int64 {
        var sfInfo = SF_INFO()
        let handle = try SndFile.open(path: path, mode: Int32(SFM_READ), info: &sfInfo)
        defer { sf_close(handle) }
        let blockFrames = 4096
        var buffer = [Float](repeating: 0, count: blockFrames * max(Int(sfInfo.channels), 1))
        var total: Int64 = 0
        while true {
            let count = sf_readf_float(handle, &buffer, sf_count_t(blockFrames))
            guard count > 0 else {
                if sf_error(handle) != Int32(SF_ERR_NO_ERROR) {
                    throw AudioIOError(path: path, function: "sf_readf_float", reason: SndFile.lastReason(handle),
                                       operation: "read")
                }
                return total
            }
            total += count
        }
    }

    public var tags: AudioTags { info.tags }

    /// Calls `sf_readf_float`. Returns fewer frames than asked only at the end of the file, and 0 after it;
    /// the container's `frameCount` may differ from what decodes, so read until 0.
    public func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        precondition(frames >= 0, "frames must not be negative")
        guard frames > 0 else { return 0 }
        let count = sf_readf_float(handle, buffer, sf_count_t(frames))
        if count <= 0 && sf_error(handle) != Int32(SF_ERR_NO_ERROR) {
            throw AudioIOError(path: info.path, function: "sf_readf_float",
                               reason: SndFile.lastReason(handle), operation: "read")
        }
        return Int(max(count, 0))
    }

    /// Calls `sf_seek(..., SF_SEEK_SET)`; throws if the file is not seekable or `frame` is out of range.
    public func seek(to frame: Int64) throws {
        guard info.isSeekable else {
            throw AudioIOError(path: info.path, function: "sf_seek",
                               reason: "the file is not seekable", operation: "seek in")
        }
        if sf_seek(handle, frame, Int32(SF_SEEK_SET)) < 0 {
            throw AudioIOError(path: info.path, function: "sf_seek",
                               reason: "cannot go to frame \(frame): \(SndFile.lastReason(handle))",
                               operation: "seek in")
        }
    }
}
