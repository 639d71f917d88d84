/// How mixrender spells a JSON path, in errors and reports alike: keys joined by dots, indices in brackets, nothing
/// before the first key (`tracks[2].gainDb`).
enum JSONPath {
    /// `base.key`, or `key` at the top.
    static func path(_ base: String, key: String) -> String { base.isEmpty ? key : base + "." + key }
    /// `base[index]`.
    static func path(_ base: String, index: Int) -> String { base + "[\(index)]" }
}
