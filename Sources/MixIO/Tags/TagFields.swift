/// The tags a render writes into its file: an ordered list of fields, each a key and one or more values.
///
/// Keys are Vorbis comment names (printable ASCII without `=`), compared without case and kept in upper case
/// (`TITLE`, `MOOD`); values are any UTF-8 text without NUL. The known keys (`knownKeys`) go to each format's own
/// field (docs/tags.md); the others are free-form (a Vorbis comment of that name, an ID3v2 `TXXX`).
/// A value: an array of fields; allocates only it and its strings. `Sendable`, safe to share.
public struct TagFields: Sendable, Equatable {
    /// One key and its values, in order (at least one).
    public struct Field: Sendable, Equatable {
        public var key: String
        public var values: [String]
        public init(key: String, values: [String]) { self.key = key.uppercased(); self.values = values }
    }

    public private(set) var fields: [Field] = []

    public init(_ fields: [Field] = []) { for field in fields { set(field.key, field.values) } }

    /// The keys every tagging format has a field of its own for, in the order they are written.
    public static let knownKeys = ["TITLE", "ARTIST", "ALBUM", "COMMENT", "DATE", "GENRE", "TRACKNUMBER", "COPYRIGHT"]

    /// Limits that keep a preset's tags in proportion to a tag (ID3v2 frames and RIFF chunks carry sizes; a
    /// FLAC metadata block holds at most 16 MiB): keys, values per key, bytes per key and per value.
    public static let maximumFields = 64
    public static let maximumValues = 16
    public static let maximumKeyLength = 64
    public static let maximumValueBytes = 16_384

    /// The values of `key` (any case), or nil.
    public subscript(key: String) -> [String]? {
        let upper = key.uppercased()
        return fields.first { $0.key == upper }?.values
    }

    /// The first value of `key`, or nil.
    public func value(_ key: String) -> String? { self[key]?.first }

    /// Sets `key`'s values, in its place when it is there already, else at the end; no values removes it.
    public mutating func set(_ key: String, _ values: [String]) {
        let upper = key.uppercased()
        if let index = fields.firstIndex(where: { $0.key == upper }) {
            if values.isEmpty { fields.remove(at: index) } else { fields[index].values = values }
        } else if !values.isEmpty {
            fields.append(Field(key: upper, values: values))
        }
    }

    /// Sets or removes (nil) a single value.
    public mutating func set(_ key: String, _ value: String?) { set(key, value.map { [$0] } ?? []) }

    public var isEmpty: Bool { fields.isEmpty }

    /// Every value as a `(key, value)` pair, in order: a key with several values gives several pairs.
    public var comments: [(key: String, value: String)] {
        fields.flatMap { field in field.values.map { (key: field.key, value: $0) } }
    }

    /// Fields whose keys are not `knownKeys`.
    public var freeFormKeys: [String] { fields.map(\.key).filter { !Self.knownKeys.contains($0) } }

    /// What is wrong with `key` as a tag name, or nil: empty, too long, not printable ASCII, `=`, or a name
    /// mixrender writes itself (chapter marks `CHAPTERnnn...`, ReplayGain `REPLAYGAIN_...`, Opus's `R128_...`, its own `MIXRENDER_...`).
    public static func problem(key: String) -> String? {
        if key.isEmpty { return "a tag name must not be empty" }
        if key.utf8.count > maximumKeyLength { return "a tag name has at most \(maximumKeyLength) characters" }
        // Vorbis comment field names: 0x20 through 0x7D, except '='.
        if let bad = key.unicodeScalars.first(where: { !($0.value >= 0x20 && $0.value <= 0x7D) || $0 == "=" }) {
            let what = bad == "=" ? "'='" : bad.value > 0x7F ? "'\(bad)' (not ASCII)" : "a control character or '~'"
            return "a tag name is printable ASCII without '=' (Vorbis comment rules); this one has \(what)"
        }
        let upper = key.uppercased()
        if upper.hasPrefix("REPLAYGAIN_") || upper.hasPrefix("R128_") {
            return "ReplayGain tags are written by mixrender from the render's loudness (output.loudness, --loudness)"
        }
        if ChapterMark.isCommentKey(key) {
            return "chapter marks are written by mixrender from 'chapters' or a session's sections"
        }
        if upper.hasPrefix("MIXRENDER_") {
            return "MIXRENDER_ tags are mixrender's own (a window's place in its render, for join)"
        }
        return nil
    }

    /// What is wrong with `value` as a tag value, or nil: a NUL character or more than `maximumValueBytes`.
    public static func problem(value: String) -> String? {
        if value.utf8.contains(0) { return "a tag value must not contain a NUL character" }
        if value.utf8.count > maximumValueBytes { return "a tag value has at most \(maximumValueBytes) bytes (this one \(value.utf8.count))" }
        return nil
    }
}
