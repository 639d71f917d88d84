import CFFmpeg
import Glibc

/// What `FFmpegDecoder`, `FFmpegFileReader`, `FFmpegFileWriter` and `MP4Chapters` share about FFmpeg's
/// libraries: loading them, silencing their log, their error codes and messages, and human names for what
/// they find.
///
/// FFmpeg is not linked but opened the first time a file needs it (`load(for:)` for the codecs,
/// `loadContainers(for:)` for libavformat; `cffmpeg_load_codecs` and `cffmpeg_load_containers` in the shim): a
/// render that reads and writes no file through FFmpeg never maps its libraries, about 21 MB of resident memory.
/// Every FFmpeg call goes through `av` (codecs) or `format` (containers), the functions looked up then.
///
/// No state of its own but the loaded functions, set once per process: any thread may call these at once.
enum FFmpeg {
    /// `AVERROR_EOF`, `AVERROR(EAGAIN)`, ...: macros Swift does not import, given by the shim.
    static let endOfFile = cffmpeg_error_eof()
    static let tryAgain = cffmpeg_error_again()
    static let invalidData = cffmpeg_error_invalid_data()
    static let streamNotFound = cffmpeg_error_stream_not_found()
    static let decoderNotFound = cffmpeg_error_decoder_not_found()

    /// `AV_NOPTS_VALUE`: a frame or packet without a timestamp.
    static let noTimestamp = Int64.min

    /// Loads FFmpeg's codec libraries (libavutil, libavcodec) the first time any thread calls it (a `static let` is
    /// initialised once, thread-safely) and sets their log to `AV_LOG_QUIET`: FFmpeg otherwise prints its notes on
    /// stderr. mixrender reports FFmpeg's failures in its own errors; the log is process-wide, so nothing else here
    /// uses it. Throws, naming `path` and the operation, when the libraries cannot be loaded.
    static func load(for path: String, operation: String = "open") throws {
        if case .failure(let reason) = codecs { throw loadError(reason, path: path, operation: operation) }
    }

    /// Loads libavformat too (after the codecs' libraries), for a file whose container FFmpeg reads or writes:
    /// about 9 MB more of resident memory, which a file mixrender demuxes itself (Ogg) does not pay.
    static func loadContainers(for path: String, operation: String = "open") throws {
        try load(for: path, operation: operation)
        if case .failure(let reason) = containers { throw loadError(reason, path: path, operation: operation) }
    }

    private static func loadError(_ reason: LoadFailure, path: String, operation: String) -> AudioIOError {
        AudioIOError(path: path, function: "dlopen", reason: "FFmpeg's libraries could not be loaded (\(reason.reason)); "
                     + "install libavformat and libavcodec (Debian: the libavformat-dev and libavcodec-dev packages)",
                     operation: operation)
    }

    /// FFmpeg's codec functions (libavutil, libavcodec). Only after `load(for:)` succeeded: every way into FFmpeg
    /// starts with it.
    static var av: CFFmpegCodecs {
        guard case .success(let functions) = codecs else { preconditionFailure("FFmpeg.load(for:) is called before any FFmpeg call") }
        return functions
    }

    /// libavformat's functions. Only after `loadContainers(for:)` succeeded.
    static var format: CFFmpegContainers {
        guard case .success(let functions) = containers else {
            preconditionFailure("FFmpeg.loadContainers(for:) is called before any libavformat call")
        }
        return functions
    }

    private struct LoadFailure: Error { var reason: String }

    private static let codecs: Result<CFFmpegCodecs, LoadFailure> = {
        var message = [CChar](repeating: 0, count: 512)
        guard let functions = cffmpeg_load_codecs(&message, message.count) else { return .failure(LoadFailure(reason: String(cString: message))) }
        functions.pointee.av_log_set_level(AV_LOG_QUIET)
        return .success(functions.pointee)
    }()

    private static let containers: Result<CFFmpegContainers, LoadFailure> = {
        var message = [CChar](repeating: 0, count: 512)
        guard let functions = cffmpeg_load_containers(&message, message.count) else { return .failure(LoadFailure(reason: String(cString: message))) }
        return .success(functions.pointee)
    }()

    /// Calls `av_strerror` for an FFmpeg error code and makes the message read like libsndfile's
    /// ("Invalid data found when processing input" -> "invalid data found when processing input").
    /// Allocates the string.
    static func reason(forCode code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard av.av_strerror(code, &buffer, buffer.count) == 0 else { return "error \(code)" }
        let message = String(cString: buffer)
        guard let first = message.first else { return "error \(code)" }
        return first.lowercased() + message.dropFirst()
    }

    /// An `AudioIOError` for a failed FFmpeg call: the file, the function, its readable message.
    /// A write refused by the system (`AVERROR(ENOSPC)`, a closed pipe, ...) is worded as any other write error
    /// (`AudioIOError.writeReason`).
    static func error(_ path: String, _ function: String, code: Int32, operation: String = "open") -> AudioIOError {
        if operation != "open", [ENOSPC, EDQUOT, EPIPE, EFBIG, EIO, EROFS].contains(-code) {
            return AudioIOError(path: path, function: function, reason: AudioIOError.writeReason(-code), operation: "write", code: -code)
        }
        return AudioIOError(path: path, function: function, reason: reason(forCode: code), operation: operation)
    }

    // MARK: - Names

    /// A human name for an audio stream: its encoding, then its container in brackets:
    /// "AAC (MPEG-4)", "Opus (WebM)", "Vorbis (Ogg)". A Matroska file is called WebM when its name says so
    /// (FFmpeg reads both with one demuxer and does not tell them apart). Calls `avcodec_descriptor_get`
    /// for encodings outside the small table.
    static func formatName(codec: AVCodecID, container: UnsafePointer<AVInputFormat>, path: String) -> String {
        "\(encodingName(codec)) (\(containerName(container, path: path)))"
    }

    private static func encodingName(_ codec: AVCodecID) -> String {
        switch codec {
        case AV_CODEC_ID_AAC, AV_CODEC_ID_AAC_LATM: return "AAC"
        case AV_CODEC_ID_OPUS: return "Opus"
        case AV_CODEC_ID_VORBIS: return "Vorbis"
        case AV_CODEC_ID_MP3: return "MP3"
        case AV_CODEC_ID_FLAC: return "FLAC"
        case AV_CODEC_ID_ALAC: return "ALAC"
        case AV_CODEC_ID_AC3: return "AC-3"
        case AV_CODEC_ID_EAC3: return "E-AC-3"
        default:
            guard let descriptor = av.avcodec_descriptor_get(codec) else { return codecName(codec) }
            return String(cString: descriptor.pointee.long_name ?? descriptor.pointee.name)
        }
    }

    /// FFmpeg's short name for an encoding (`avcodec_get_name`: "aac", "opus", "unknown_codec").
    static func codecName(_ codec: AVCodecID) -> String {
        av.avcodec_get_name(codec).map { String(cString: $0) } ?? "unknown_codec"
    }

    private static func containerName(_ container: UnsafePointer<AVInputFormat>, path: String) -> String {
        switch String(cString: container.pointee.name) {
        case "mov,mp4,m4a,3gp,3g2,mj2": return "MPEG-4"
        case "matroska,webm": return path.lowercased().hasSuffix(".webm") ? "WebM" : "Matroska"
        case "ogg": return "Ogg"
        case "aac": return "ADTS"
        case "mp3": return "MPEG audio"
        case let name: return container.pointee.long_name.map { String(cString: $0) } ?? name
        }
    }
}
