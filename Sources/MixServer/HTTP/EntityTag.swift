/// An HTTP entity tag (RFC 9110 §8.8.3), `"opaque"` or weak `W/"opaque"`, and the two comparisons a file download
/// needs: `If-None-Match` (weak comparison: a match means 304 Not Modified) and `If-Range` (strong comparison: a
/// mismatch means the whole file, not the range).
struct EntityTag: Sendable, Equatable {
    /// The characters between the quotes.
    var opaque: String
    var isWeak: Bool

    /// A tag with `opaque` (which must hold only `etagc` characters: no `"`, no space, no control character).
    init(opaque: String, isWeak: Bool = false) {
        precondition(opaque.utf8.allSatisfy(Self.isTagCharacter), "an entity tag holds no quote, space or control character")
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// The tag as the `ETag` header writes it.
    var header: String { (isWeak ? "W/" : "") + "\"" + opaque + "\"" }

    /// Whether an `If-None-Match` value matches this tag (then a GET or HEAD answers 304): `*`, or a list holding a
    /// tag with the same opaque value, weak or not. A malformed value matches nothing (the file is sent).
    func matches(ifNoneMatch value: String) -> Bool {
        let text = Self.trimmed(Array(value.utf8)[...])
        if text.elementsEqual("*".utf8) { return true }
        guard let tags = Self.parseList(text) else { return false }
        return tags.contains { $0.opaque == opaque }
    }

    /// Whether a `Range` may be served under an `If-Range` value (nil: no `If-Range`, so yes). Only a strong tag
    /// equal to this (strong) tag allows it; a weak tag, another tag, or a date (this server sends no
    /// `Last-Modified`) means the whole file.
    func allowsRange(ifRange value: String?) -> Bool {
        guard let value else { return true }
        guard !isWeak, let tags = Self.parseList(Self.trimmed(Array(value.utf8)[...])), tags.count == 1 else { return false }
        return !tags[0].isWeak && tags[0].opaque == opaque
    }

    /// The tags of a comma-separated list (empty elements allowed), or nil when an element is not a tag.
    private static func parseList(_ bytes: ArraySlice<UInt8>) -> [EntityTag]? {
        var tags: [EntityTag] = []
        for element in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var tag = trimmed(element)
            if tag.isEmpty { continue }
            var isWeak = false
            if tag.starts(with: "W/".utf8) {
                isWeak = true
                tag = tag.dropFirst(2)
            }
            guard tag.count >= 2, tag.first == 0x22, tag.last == 0x22 else { return nil }
            let opaque = tag.dropFirst().dropLast()
            guard opaque.allSatisfy(isTagCharacter) else { return nil }
            tags.append(EntityTag(opaque: String(decoding: opaque, as: UTF8.self), isWeak: isWeak))
        }
        return tags.isEmpty ? nil : tags
    }

    /// `etagc`: `!`, `#` to `~`, and bytes of non-ASCII characters.
    private static func isTagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (byte >= 0x23 && byte <= 0x7e) || byte >= 0x80
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
