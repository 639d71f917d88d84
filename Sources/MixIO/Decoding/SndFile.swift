import CSndFile

/// The libsndfile calls shared by `SoundFileReader` and `SoundFileWriter`: opening, commands,
/// strings, format names, and turning libsndfile's messages into readable reasons.
enum SndFile {
    /// Held by every `sf_open`, `sf_open_fd` and `sf_open_virtual` and the reading of why one failed. libsndfile keeps
    /// that reason in one process-wide variable (`sf_errno`, read by `sf_error(NULL)` and `sf_strerror(NULL)`),
    /// which every open sets to 0 first (`psf_open_file`): a file it does not know, opened while another thread
    /// opened one, read "no error" and failed instead of going to FFmpeg ("cannot open 'storm.m4a': no Error
    /// (sf_open)", in CI's README test, where `loudness` opens two files at once; 2 runs in 3 of
    /// `ConcurrentOpenTests` before this lock). Opens are short (a header); decoding is not held.
    static let openLock = Locked(())

    /// Calls `sf_open`; on failure throws an `AudioIOError` naming the file and a readable reason.
    static func open(path: String, mode: Int32, info: inout SF_INFO) throws -> OpaquePointer {
        let writing = mode == Int32(SFM_WRITE)
        try LibC.checkPath(path, function: "sf_open", operation: writing ? "create" : "open")
        // Reading: libmpg123 prints notes on stderr while libsndfile probes a file that is not MPEG audio.
        let (opened, code, message) = openLock.withLock { _ -> (OpaquePointer?, Int, String) in
            let opened = writing ? sf_open(path, mode, &info) : LibC.withStandardErrorSilenced { sf_open(path, mode, &info) }
            return opened != nil ? (opened, 0, "") : (nil, Int(sf_error(nil)), String(cString: sf_strerror(nil)))
        }
        if let handle = opened { return handle }
        var error = AudioIOError(path: path, function: "sf_open",
                                 reason: openFailureReason(path: path, code: code, message: message, writing: writing),
                                 operation: writing ? "create" : "open")
        error.isUnrecognisedFormat = !writing && isUnrecognised(path: path, code: code, message: message)
        throw error
    }

    /// Whether a failed `sf_open` for reading means that libsndfile does not know the format of a regular,
    /// non-empty file: "format not recognised", or its MPEG probe's misleading "not a regular file".
    private static func isUnrecognised(path: String, code: Int, message: String) -> Bool {
        let file = FileFacts(path)
        guard file.exists, !file.isFolder, file.size != 0 else { return false }
        return code == SF_ERR_UNRECOGNISED_FORMAT || message.contains("not a regular file")
    }

    /// Calls `sf_command` with no data pointer, for the on/off switches (`SFC_SET_NORM_FLOAT`, ...).
    /// Returns what libsndfile returns (for most switches, the previous or new state).
    @discardableResult
    static func setFlag(_ handle: OpaquePointer, _ command: Int, _ isOn: Bool) -> Int32 {
        sf_command(handle, Int32(command), nil, Int32(isOn ? SF_TRUE : SF_FALSE))
    }

    /// Calls `sf_get_string`.
    static func string(_ handle: OpaquePointer, _ kind: Int) -> String? {
        guard let text = sf_get_string(handle, Int32(kind)) else { return nil }
        return String(cString: text)
    }

    /// Calls `sf_strerror` on an open handle and makes the message readable.
    static func lastReason(_ handle: OpaquePointer) -> String {
        readable(String(cString: sf_strerror(handle)))
    }

    /// Calls `sf_error_number` for an error code returned by e.g. `sf_close`.
    static func reason(forCode code: Int32) -> String {
        readable(String(cString: sf_error_number(code)))
    }

    // MARK: - Format names

    /// The format whose Vorbis comments TagLib reads in a file of this `SF_INFO.format`: Ogg Vorbis, Ogg Opus or FLAC.
    static func commentFormat(_ format: Int32) -> OutputFileFormat? {
        switch (Int(format) & SF_FORMAT_TYPEMASK, Int(format) & SF_FORMAT_SUBMASK) {
        case (SF_FORMAT_OGG, SF_FORMAT_VORBIS): return .oggVorbis
        case (SF_FORMAT_OGG, SF_FORMAT_OPUS): return .opus
        case (SF_FORMAT_FLAC, _): return .flac
        default: return nil
        }
    }

    /// A human name for an `SF_INFO.format`: "Ogg Vorbis", "FLAC 24-bit", "WAV 16-bit PCM", "MP3".
    /// Uses a small table and falls back to libsndfile's own names (`SFC_GET_FORMAT_INFO`).
    static func formatName(_ format: Int32) -> String {
        let major = Int(format) & SF_FORMAT_TYPEMASK
        let subtype = Int(format) & SF_FORMAT_SUBMASK
        switch (major, subtype) {
        case (SF_FORMAT_OGG, SF_FORMAT_VORBIS): return "Ogg Vorbis"
        case (SF_FORMAT_OGG, SF_FORMAT_OPUS): return "Ogg Opus"
        case (SF_FORMAT_MPEG, SF_FORMAT_MPEG_LAYER_III): return "MP3"
        case (SF_FORMAT_MPEG, SF_FORMAT_MPEG_LAYER_II): return "MP2"
        case (SF_FORMAT_MPEG, SF_FORMAT_MPEG_LAYER_I): return "MP1"
        case (SF_FORMAT_FLAC, SF_FORMAT_PCM_S8): return "FLAC 8-bit"
        case (SF_FORMAT_FLAC, SF_FORMAT_PCM_16): return "FLAC 16-bit"
        case (SF_FORMAT_FLAC, SF_FORMAT_PCM_24): return "FLAC 24-bit"
        default: break
        }
        let container: String
        switch major {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX: container = "WAV"
        case SF_FORMAT_AIFF: container = "AIFF"
        case SF_FORMAT_W64: container = "Wave64"
        case SF_FORMAT_RF64: container = "RF64"
        case SF_FORMAT_CAF: container = "CAF"
        case SF_FORMAT_FLAC: container = "FLAC"
        case SF_FORMAT_OGG: container = "Ogg"
        default: container = libraryFormatName(major) ?? "unknown format"
        }
        let encoding: String
        switch subtype {
        case SF_FORMAT_PCM_S8, SF_FORMAT_PCM_U8: encoding = "8-bit PCM"
        case SF_FORMAT_PCM_16: encoding = "16-bit PCM"
        case SF_FORMAT_PCM_24: encoding = "24-bit PCM"
        case SF_FORMAT_PCM_32: encoding = "32-bit PCM"
        case SF_FORMAT_FLOAT: encoding = "32-bit float"
        case SF_FORMAT_DOUBLE: encoding = "64-bit float"
        case SF_FORMAT_ULAW: encoding = "µ-law"
        case SF_FORMAT_ALAW: encoding = "A-law"
        default: encoding = libraryFormatName(subtype) ?? "encoding 0x\(String(subtype, radix: 16))"
        }
        return "\(container) \(encoding)"
    }

    /// Calls `sf_command(nil, SFC_GET_FORMAT_INFO, ...)` for one major or sub format.
    private static func libraryFormatName(_ format: Int) -> String? {
        var formatInfo = SF_FORMAT_INFO()
        formatInfo.format = Int32(format)
        let result = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &formatInfo,
                                Int32(MemoryLayout<SF_FORMAT_INFO>.size))
        guard result == 0, let name = formatInfo.name else { return nil }
        return String(cString: name)
    }

    // MARK: - Readable reasons

    /// Why `sf_open` failed, looking at the file itself where libsndfile's message is vague.
    /// Why creating `path` failed, in words: a missing folder, a folder in the way, or `message`.
    static func createFailureReason(path: String, message: String) -> String {
        let folder = parentFolder(of: path)
        let parent = FileFacts(folder)
        if !parent.exists { return "folder '\(folder)' does not exist" }
        if !parent.isFolder { return "'\(folder)' is not a folder" }
        if FileFacts(path).isFolder { return "a folder of that name exists" }
        return readable(message)
    }

    private static func openFailureReason(path: String, code: Int, message: String, writing: Bool) -> String {
        let file = FileFacts(path)
        if writing { return createFailureReason(path: path, message: message) }
        if !file.exists { return "no such file" }
        if file.isFolder { return "is a folder, not an audio file" }
        if code == SF_ERR_UNRECOGNISED_FORMAT && file.size == 0 { return "empty file (0 bytes)" }
        // libsndfile's MPEG reader, handed a file that is not MPEG audio (an HTML error page saved as .mp3,
        // a truncated download), fails with its "does not exist or is not a regular file (possibly a pipe?)"
        // message; for a regular file that is there, the true cause is its contents.
        if message.contains("not a regular file") && file.exists && !file.isFolder {
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let kind = name.split(separator: ".").count > 1 ? " (the name says ." + name.split(separator: ".").last!.lowercased() + ")" : ""
            return "its contents are not audio libsndfile can decode\(kind)"
        }
        return readable(message)
    }

    /// What the file system says about a path (`FileSystem.identity`, which calls `stat`).
    private struct FileFacts {
        var exists = false, isFolder = false, size: Int?
        init(_ path: String) {
            guard let identity = FileSystem.identity(of: path) else { return }
            exists = true
            isFolder = identity.kind == .folder
            size = Int(identity.size)
        }
    }

    private static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = path[..<slash]
        return folder.isEmpty ? "/" : String(folder)
    }

    /// Turns a libsndfile message into plain words: known cryptic messages get a rewrite,
    /// the rest lose their "Error : " prefixes and trailing full stop.
    static func readable(_ message: String) -> String {
        switch message {
        case "Format not recognised.": return "not an audio file libsndfile can read"
        case "Supported file format but file is malformed.": return "malformed file"
        case "Supported file format but unsupported encoding.": return "the file's encoding is not supported"
        case "File contains data in an unimplemented format.": return "the file's encoding is not supported"
        case "File exists but no data could be read.": return "no audio data could be read"
        case "Seek attempted on unseekable file type.": return "the file is not seekable"
        case "Error : supplied offset beyond end of file.": return "position is past the end of the file"
        default: break
        }
        var text = Substring(message)
        for prefix in ["System error : ", "Error : ", "Error: ", "Error. "] where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        }
        // "Error in WAV file. No 'data' chunk marker." -> "malformed WAV file: no 'data' chunk marker"
        if text.hasPrefix("Error in "), let split = text.firstRange(of: " file") {
            let kind = text[text.index(text.startIndex, offsetBy: 9)..<split.lowerBound]
            let detail = text[split.upperBound...].drop { $0 == "." || $0 == "," || $0 == " " }
            return "malformed \(kind) file" + (detail.isEmpty ? "" : ": " + lowercasedFirst(trimmed(detail)))
        }
        return lowercasedFirst(trimmed(text))
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let last = text.last, last == "." || last == " " || last == "\n" { text = text.dropLast() }
        return text
    }

    /// "No such file" -> "no such file", but "WAV ..." and "MPEG-1 ..." keep their capitals.
    private static func lowercasedFirst(_ text: Substring) -> String {
        guard let first = text.first else { return "" }
        let second = text.dropFirst().first
        if first.isUppercase, second.map({ $0.isLowercase || $0 == " " }) ?? true {
            return first.lowercased() + text.dropFirst()
        }
        return String(text)
    }
}
