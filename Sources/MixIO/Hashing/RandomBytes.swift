/// Random bytes and names from the system's cryptographically secure generator (`SystemRandomNumberGenerator`: the
/// kernel's `getrandom`): secrets, and temporary names no other writer picks.
public enum RandomBytes {
    /// `count` random bytes.
    public static func make(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `prefix` and 24 random hexadecimal digits (96 bits): a temporary name no other writer picks.
    public static func name(prefix: String) -> String {
        prefix + ContentHash.hex(make(12))
    }
}
