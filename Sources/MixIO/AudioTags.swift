/// The text tags mixrender writes and reads (libsndfile's `SF_STR_TITLE`, `SF_STR_ARTIST`, `SF_STR_COMMENT`).
/// A value of three optional `String`s; allocates only those strings. `Sendable`, safe to share.
public struct AudioTags: Sendable, Equatable {
    public var title: String?
    public var artist: String?
    public var comment: String?

    public init(title: String? = nil, artist: String? = nil, comment: String? = nil) {
        self.title = title
        self.artist = artist
        self.comment = comment
    }

    public var isEmpty: Bool { title == nil && artist == nil && comment == nil }
}
