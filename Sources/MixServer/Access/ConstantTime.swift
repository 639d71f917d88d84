/// Comparison of secrets (signatures, token hashes) whose time does not depend on where they first differ, so that
/// a caller cannot learn a secret byte by byte from how long a refusal takes.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Only their lengths (never secret here: a digest's length is public)
    /// can change how long it takes.
    @inline(never)
    static func isEqual(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) {
            difference |= x ^ y
        }
        return difference == 0
    }
}
