import CSndFile
import CTagLibShim
import Glibc

/// Tags and chapter marks of finished audio files, through TagLib (libsndfile writes only a fixed handful of
/// tags): Vorbis comments in Ogg Vorbis, Ogg Opus and FLAC; ID3v2.3 in MP3 and AIFF; RIFF INFO and ID3v2.3 in
/// WAV (docs/tags.md has the mapping). CAF has no TagLib support: its tags are libsndfile's 'info' chunk, read
/// with `sf_get_string`. Used on a finished temporary file, before it is renamed into place.
///
/// No state; each call opens the file, does its work and closes it. TagLib keeps no shared state here (the shim
/// sets its quiet debug listener and its UTF-8 RIFF INFO handler, the same each time), so calls on different
/// files may run on several threads at once. `read` and `contents` allocate what they return.
public enum FileTags {
    /// Where one of a file's chapters was found: an ID3v2 `CHAP` frame's element id, and its place in the
    /// top-level `CTOC` (nil when none lists it); an M4A chapter has no element id and its place in the file.
    /// A value; allocates only its string.
    public struct ChapterFrame: Sendable, Equatable {
        public var elementID: String
        public var tableOfContentsIndex: Int?
        public init(elementID: String, tableOfContentsIndex: Int?) {
            self.elementID = elementID; self.tableOfContentsIndex = tableOfContentsIndex
        }
    }

    /// What a file carries: its fields (for Vorbis comments, chapter marks among them), its ID3v2 or M4A chapters
    /// (marks in milliseconds, each with its end, in table-of-contents order: those the top-level `CTOC` lists, in
    /// its order, then the others by start) and where each was found (`chapterFrames[k]` is `chapters[k]`'s).
    /// A value; allocates its arrays.
    public struct Contents: Sendable {
        public var fields: [(key: String, value: String)] = []
        public var chapters: [ChapterMark] = []
        public var chapterFrames: [ChapterFrame] = []
        /// The values of `key` (compared without case), in order.
        public func values(_ key: String) -> [String] {
            let upper = key.uppercased()
            return fields.filter { $0.key.uppercased() == upper }.map(\.value)
        }
    }

    /// The start of the placeholder comment that holds a FLAC's or an MP3's room for tags until `write` sets them
    /// (`OutputSettings.tagRoomBytes`): `write` removes every comment (Vorbis `COMMENT`, ID3v2 `COMM`) that begins
    /// with it (the shim's `roomMarker`, the same text).
    public static let roomMarker = "mixrender: room reserved for tags"

    /// The formats whose tags `write` sets through TagLib (all but CAF, whose tags libsndfile writes).
    public static func canWrite(_ format: OutputFileFormat) -> Bool { format != .caf }

    /// Whether `format` keeps chapter marks: Vorbis comments (`CHAPTERnnn`), ID3v2 `CHAP`/`CTOC` frames, or (M4A)
    /// the chapter track its writer muxes (`FFmpegFileWriter`), which `write` leaves alone.
    public static func carriesChapters(_ format: OutputFileFormat) -> Bool { canWrite(format) }

    /// Whether `format` keeps free-form keys: everything TagLib writes (a Vorbis comment, an ID3v2 `TXXX`).
    public static func carriesFreeFormKeys(_ format: OutputFileFormat) -> Bool { canWrite(format) }

    /// Sets `fields` in the `format` file at `path`: earlier values of those keys are removed, every other
    /// field is kept, and a key given several times gets several values (in order; an ID3v2.3 frame or a RIFF
    /// INFO field holds them joined with '/'). Keys are Vorbis comment names (ASCII, no `=`), such as `TITLE`,
    /// `CHAPTER001`, `MOOD`; values are any UTF-8 without NUL. `chapters` (ID3v2 formats only; in Vorbis comment
    /// formats chapter marks are fields) replace the file's CHAP and CTOC frames, each from its start to its `end`
    /// (or the next one's start; give the last one its end: `Chapters.closed`), in milliseconds; nil leaves them.
    public static func write(path: String, format: OutputFileFormat, fields: [(key: String, value: String)],
                             chapters: [ChapterMark]? = nil) throws {
        let container = try self.container(format, path: path, operation: "tag")
        for (key, value) in fields {
            guard !key.isEmpty, key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value <= 0x7D && $0 != "=" }) else {
                throw AudioIOError(path: path, function: "", reason: "'\(key)' is not a Vorbis comment name (ASCII, no '=')", operation: "tag")
            }
            guard !value.utf8.contains(0) else {
                throw AudioIOError(path: path, function: "", reason: "the value of \(key) contains a NUL character", operation: "tag")
            }
        }
        if let chapters, !chapters.isEmpty, format.carriesVorbisComments {
            throw AudioIOError(path: path, function: "", reason: "chapter marks are comments (CHAPTERnnn) in \(format.displayName)", operation: "tag")
        }
        if let name = chapters?.first(where: { $0.name.utf8.contains(0) })?.name {
            throw AudioIOError(path: path, function: "", reason: "the chapter name '\(name)' contains a NUL character", operation: "tag")
        }
        // TagLib takes some files that are not of the format (it put an ID3v2 tag before a text file's first
        // byte): the first bytes are checked first, so a file that is not what it should be is never touched.
        try checkIs(format, path: path, operation: "tag")
        try reserveGrowth(path: path, format: format, fields: fields, chapters: chapters ?? [])
        var error = [CChar](repeating: 0, count: 256)
        let names = (chapters ?? []).map(\.name)
        let status = try withCStrings(fields.map(\.key)) { keys in
            try withCStrings(fields.map(\.value)) { values in
                try withCStrings(names) { names in
                    try LibC.checkPath(path, function: "TagLib", operation: "tag")
                    let list = chapters ?? []
                    let marks = list.enumerated().map { index, chapter in
                        let end = chapter.end ?? (index + 1 < list.count ? list[index + 1].frame : chapter.frame)
                        return mr_chapter(start_ms: chapter.milliseconds(chapter.frame), end_ms: chapter.milliseconds(end), name: names[index])
                    }
                    return marks.withUnsafeBufferPointer { marks in
                        mr_tags_write(path, container, keys, values, Int32(fields.count), marks.baseAddress,
                                      chapters == nil ? -1 : Int32(marks.count), &error, error.count)
                    }
                }
            }
        }
        guard status == 0 else {
            throw AudioIOError(path: path, function: "TagLib", reason: String(cString: error), operation: "tag")
        }
    }

    /// Reserves room on the disk for what tagging may add to the file at `path` (`LibC.reserve`), before TagLib
    /// touches it: TagLib ignores failed writes, and a tag that grew a 48-second Ogg on a full file system left a
    /// 44-second file and exit 0. The growth is bounded by the tags' size (UTF-8 in Vorbis comments and MP4
    /// items, up to twice that in ID3v2's UTF-16; a frame or field header each) plus 16 KiB and 1/64 more for
    /// Ogg page headers and padding. A full disk is an error here, with the file untouched; a file system that
    /// cannot reserve (no `fallocate`) is tagged as before.
    static func reserveGrowth(path: String, format: OutputFileFormat, fields: [(key: String, value: String)], chapters: [ChapterMark]) throws {
        let perByte = format.carriesVorbisComments || format == .m4a ? 1 : 2
        let tagBytes = fields.reduce(0) { $0 + perByte * ($1.key.utf8.count + $1.value.utf8.count) + 16 }
            + chapters.reduce(0) { $0 + perByte * $1.name.utf8.count + 64 }
        let fd = try LibC.open(path, flags: O_WRONLY | O_CLOEXEC, operation: "tag")
        defer { Glibc.close(fd) }
        let size = Int64(try LibC.fstat(fd, path: path, operation: "tag").st_size)
        _ = try LibC.reserve(fd, from: size, bytes: Int64(tagBytes + tagBytes / 64) + 16 * 1024, path: path, operation: "tag")
    }

    /// Every field of the `format` file at `path`: Vorbis comments with keys in TagLib's order (sorted), each
    /// key's values in file order; ID3v2 as TagLib's property map (`TITLE`, `COMMENT`, a `TXXX` as its
    /// description); WAV also its RIFF INFO as `INFO:INAM`...; CAF its 'info' chunk as the known keys.
    public static func read(path: String, format: OutputFileFormat) throws -> [(key: String, value: String)] {
        try contents(path: path, format: format).fields
    }

    /// The fields and the ID3v2 chapters (`CHAP` frames, in file order) of the `format` file at `path`.
    public static func contents(path: String, format: OutputFileFormat) throws -> Contents {
        if format == .caf { return try cafContents(path: path) }
        let container = try self.container(format, path: path, operation: "read the tags of")
        try checkIs(format, path: path, operation: "read the tags of")
        final class Collected { var contents = Contents() }
        let collected = Collected()
        var error = [CChar](repeating: 0, count: 256)
        try LibC.checkPath(path, function: "TagLib", operation: "read the tags of")
        let status = withExtendedLifetime(collected) {
            mr_tags_read(path, container, { context, key, value in
                let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                collected.contents.fields.append((String(cString: key!), String(cString: value!)))
            }, { context, id, start, end, name, index in
                let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                collected.contents.chapters.append(ChapterMark(name: String(cString: name!), frame: Int64(start), end: Int64(end), sampleRate: 1000))
                collected.contents.chapterFrames.append(ChapterFrame(elementID: String(cString: id!), tableOfContentsIndex: index >= 0 ? Int(index) : nil))
            }, Unmanaged.passUnretained(collected).toOpaque(), &error, error.count)
        }
        // Table-of-contents order, which players show (an ID3v2 file's CHAP frames may come in any order).
        let order = collected.contents.chapters.indices.sorted {
            let (a, b) = (collected.contents.chapterFrames[$0].tableOfContentsIndex ?? Int.max, collected.contents.chapterFrames[$1].tableOfContentsIndex ?? Int.max)
            return (a, collected.contents.chapters[$0].frame) < (b, collected.contents.chapters[$1].frame)
        }
        collected.contents.chapters = order.map { collected.contents.chapters[$0] }
        collected.contents.chapterFrames = order.map { collected.contents.chapterFrames[$0] }
        if status == 0 && format == .m4a {
            collected.contents.chapters = try MP4Chapters.read(path: path)
            collected.contents.chapterFrames = collected.contents.chapters.indices.map { ChapterFrame(elementID: "", tableOfContentsIndex: $0) }
        }
        guard status == 0 else {
            throw AudioIOError(path: path, function: "TagLib", reason: String(cString: error), operation: "read the tags of")
        }
        return collected.contents
    }

    /// The tag format of the file at `path`, from its first bytes (not its name): Ogg Vorbis or Opus, FLAC, MP3
    /// (an ID3v2 tag or an MPEG audio frame), WAV (RIFF; an RF64 WAV is nil: TagLib does not read it), AIFF or
    /// AIFF-C, CAF. Nil for anything else or a file that cannot be read.
    public static func detectFormat(path: String) -> OutputFileFormat? {
        guard !path.utf8.contains(0), let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var head = [UInt8](repeating: 0, count: 64)
        let count = fread(&head, 1, head.count, file)
        let bytes = head.prefix(count)
        func ascii(_ offset: Int, _ text: String) -> Bool {
            let want = Array(text.utf8)
            return bytes.count >= offset + want.count && Array(bytes[offset..<offset + want.count]) == want
        }
        if ascii(0, "OggS") {
            return ascii(28, "OpusHead") ? .opus : ascii(29, "vorbis") ? .oggVorbis : nil
        }
        if ascii(0, "fLaC") { return .flac }
        if ascii(0, "RIFF") && ascii(8, "WAVE") { return .wav }
        if ascii(0, "FORM") && (ascii(8, "AIFF") || ascii(8, "AIFC")) { return .aiff }
        if ascii(0, "caff") { return .caf }
        if ascii(0, "ID3") { return .mp3 }
        if ascii(4, "ftyp") { return .m4a }
        // An MPEG audio frame: 11 sync bits, layer III.
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 && bytes[1] & 0x06 == 0x02 { return .mp3 }
        return nil
    }

    /// Throws unless the file at `path` begins as a `format` file does (`detectFormat`).
    private static func checkIs(_ format: OutputFileFormat, path: String, operation: String) throws {
        try LibC.checkPath(path, function: "open", operation: operation)
        guard FileSystem.identity(of: path) != nil else {
            throw AudioIOError(path: path, function: "open", reason: "no such file", operation: operation)
        }
        let found = detectFormat(path: path)
        guard found == format else {
            throw AudioIOError(path: path, function: "", reason: "it is not \(format.displayName) (it begins as \(found?.displayName ?? "something else"))", operation: operation)
        }
    }

    private static func container(_ format: OutputFileFormat, path: String, operation: String) throws -> Int32 {
        switch format {
        case .oggVorbis: return Int32(MR_TAG_OGG_VORBIS.rawValue)
        case .flac: return Int32(MR_TAG_FLAC.rawValue)
        case .opus: return Int32(MR_TAG_OGG_OPUS.rawValue)
        case .mp3: return Int32(MR_TAG_MPEG.rawValue)
        case .aiff: return Int32(MR_TAG_AIFF.rawValue)
        case .wav: return Int32(MR_TAG_WAV.rawValue)
        case .m4a: return Int32(MR_TAG_MP4.rawValue)
        case .caf:
            throw AudioIOError(path: path, function: "", reason: "TagLib does not write CAF; its tags are libsndfile's (sf_set_string)", operation: operation)
        }
    }

    /// A CAF's 'info' chunk through libsndfile (`sf_get_string`), as the known keys it holds.
    private static func cafContents(path: String) throws -> Contents {
        var info = SF_INFO()
        let handle = try SndFile.open(path: path, mode: Int32(SFM_READ), info: &info)
        defer { sf_close(handle) }
        var contents = Contents()
        for (kind, key) in SoundFileWriter.stringKinds {
            if let text = SndFile.string(handle, kind) { contents.fields.append((key, text)) }
        }
        return contents
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
