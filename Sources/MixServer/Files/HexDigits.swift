import MixIO

/// Secure random bytes and the shape of a SHA-256 as the API writes it: the random parts of temporary names, tokens and
/// secrets. Pure Swift; hashing and hex are MixIO's `ContentHash`, the file calls its `FileSystem` and `DurableFile`.
enum HexDigits {

    /// `count` random bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `prefix` and 24 random hexadecimal digits: a temporary name no other writer picks.
    static func randomName(prefix: String) -> String {
        prefix + ContentHash.hex(randomBytes(12))
    }

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
