import MixIO

/// Lowercase hexadecimal and secure random bytes: SHA-256 digests as the API writes them, and the random parts of
/// temporary names, tokens and secrets. Pure Swift; the file calls themselves are MixIO's (`FileSystem`,
/// `DurableFile`).
enum HexDigits {
    /// Lowercase hexadecimal digits of `bytes`.
    static func of(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `count` random bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `prefix` and 24 random hexadecimal digits: a temporary name no other writer picks.
    static func randomName(prefix: String) -> String {
        prefix + of(randomBytes(12))
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
