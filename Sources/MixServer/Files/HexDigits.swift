import MixIO

/// The shape of a SHA-256 as the API writes it. Random bytes and names are MixIO's `RandomBytes`, hashing and hex its
/// `ContentHash`.
enum HexDigits {
    /// Whether `text` (UTF-8) is exactly 64 lowercase hexadecimal digits (a SHA-256 as the API writes it).
    static func isSHA256(_ text: some Collection<UInt8>) -> Bool {
        text.count == 64 && text.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}

extension Error {
    /// Why a file call failed, for a message that names the file itself: an `AudioIOError`'s reason
    /// (`No space left on device`), anything else as it describes itself.
    var fileReason: String {
        (self as? AudioIOError)?.reason ?? "\(self)"
    }
}
