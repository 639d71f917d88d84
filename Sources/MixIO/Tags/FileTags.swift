import CTagLibShim

/// Vorbis comments (tags and chapter marks) of Ogg Vorbis, Ogg Opus and FLAC files, through TagLib: libsndfile writes
/// only a fixed handful of tags, TagLib any comment. Used on a finished temporary file, before it is renamed
/// into place.
///
/// No state; each call opens the file, does its work and closes it. TagLib keeps no shared state here, so
/// calls on different files may run on several threads at once. `read` allocates the list it returns.
public enum FileTags {
    /// Sets `fields` in the `format` file at `path`: earlier values of those keys are removed, every other
    /// comment is kept, and a key given several times gets several values (in order). Keys are Vorbis comment
    /// names (ASCII, no `=`), such as `TITLE`, `CHAPTER001`, `CHAPTER001NAME`; values are any UTF-8.
    public static func write(path: String, format: OutputFileFormat, fields: [(key: String, value: String)]) throws {
        let container = try self.container(format, path: path)
        for (key, value) in fields {
            guard !key.isEmpty, key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value <= 0x7D && $0 != "=" }) else {
                throw AudioIOError(path: path, function: "", reason: "'\(key)' is not a Vorbis comment name (ASCII, no '=')", operation: "tag")
            }
            guard !value.utf8.contains(0) else {
                throw AudioIOError(path: path, function: "", reason: "the value of \(key) contains a NUL character", operation: "tag")
            }
        }
        var error = [CChar](repeating: 0, count: 256)
        let status = try withCStrings(fields.map(\.key)) { keys in
            try withCStrings(fields.map(\.value)) { values in
                try LibC.checkPath(path, function: "TagLib", operation: "tag")
                return mr_tags_write(path, container, keys, values, Int32(fields.count), &error, error.count)
            }
        }
        guard status == 0 else {
            throw AudioIOError(path: path, function: "TagLib", reason: String(cString: error), operation: "tag")
        }
    }

    /// Every comment of the `format` file at `path`, keys in TagLib's order (sorted), each key's values in
    /// file order.
    public static func read(path: String, format: OutputFileFormat) throws -> [(key: String, value: String)] {
        let container = try self.container(format, path: path)
        final class Collected { var fields: [(key: String, value: String)] = [] }
        let collected = Collected()
        var error = [CChar](repeating: 0, count: 256)
        try LibC.checkPath(path, function: "TagLib", operation: "read the tags of")
        let status = withExtendedLifetime(collected) {
            mr_tags_read(path, container, { context, key, value in
                let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                collected.fields.append((String(cString: key!), String(cString: value!)))
            }, Unmanaged.passUnretained(collected).toOpaque(), &error, error.count)
        }
        guard status == 0 else {
            throw AudioIOError(path: path, function: "TagLib", reason: String(cString: error), operation: "read the tags of")
        }
        return collected.fields
    }

    private static func container(_ format: OutputFileFormat, path: String) throws -> Int32 {
        switch format {
        case .oggVorbis: return Int32(MR_TAG_OGG_VORBIS.rawValue)
        case .flac: return Int32(MR_TAG_FLAC.rawValue)
        case .opus: return Int32(MR_TAG_OGG_OPUS.rawValue)
        default:
            throw AudioIOError(path: path, function: "", reason: "\(format.displayName) has no Vorbis comments", operation: "tag")
        }
    }

    /// Calls `body` with `strings` as an array of C strings (valid during the call).
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> R) throws -> R {
        let pointers: [UnsafeMutablePointer<CChar>] = strings.map { string in
            let bytes = string.utf8CString
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            _ = UnsafeMutableBufferPointer(start: pointer, count: bytes.count).initialize(from: bytes)
            return pointer
        }
        defer { pointers.forEach { $0.deallocate() } }
        return try body(pointers.map { UnsafePointer($0) })
    }
}
