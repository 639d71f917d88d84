/// What to send for a GET of a file, given its `Range` header (RFC 9110 §14): the whole file (200), one part of it
/// (206, with `Content-Range: bytes a-b/LENGTH`), or nothing (416, with `Content-Range: bytes */LENGTH`).
///
/// One range is served: `bytes=a-b`, `bytes=a-` and `bytes=-n` (the last n bytes), with spaces allowed around
/// the parts. A header with several ranges gets the whole file (RFC 9110 lets a server ignore `Range`, and one part
/// is all a player or an interrupted download asks for), and so does a header that does not parse or names
/// another unit. Numbers of any length are read without overflow. Check `If-Range` first (`EntityTag`): when it
/// does not match, pass no `Range`.
struct ByteRange: Sendable, Equatable {
    /// 200, 206 or 416.
    var status: Int
    /// The first byte to send.
    var first: Int64
    /// How many bytes to send (0 for a 416).
    var length: Int64
    /// The `Content-Range` value for a 206 or a 416; nil for a 200.
    var contentRange: String?

    /// The longest `Range` value read; a longer one is ignored.
    static let maximumHeaderLength = 1024

    /// The answer to `header` (the `Range` value, or nil without one) for a file of `fileLength` bytes.
    init(header: String?, fileLength: Int64) {
        precondition(fileLength >= 0, "a file's length is not negative")
        let whole = ByteRange(status: 200, first: 0, length: fileLength, contentRange: nil)
        guard let header, header.utf8.count <= Self.maximumHeaderLength,
              let spec = Self.parse(Array(header.utf8)) else {
            self = whole
            return
        }
        switch spec {
        case .from(let first, let last):
            // A first byte at or past the end (or too large for Int64, so certainly past it) is unsatisfiable.
            guard let first, first < fileLength else {
                self = ByteRange(status: 416, first: 0, length: 0, contentRange: "bytes */\(fileLength)")
                return
            }
            let end = min(last ?? Int64.max, fileLength - 1)
            self = ByteRange(status: 206, first: first, length: end - first + 1,
                             contentRange: "bytes \(first)-\(end)/\(fileLength)")
        case .suffix(let count):
            guard count > 0 else {
                self = ByteRange(status: 416, first: 0, length: 0, contentRange: "bytes */\(fileLength)")
                return
            }
            // An empty file has no byte to name in a Content-Range: send it whole (and empty).
            guard fileLength > 0 else {
                self = whole
                return
            }
            let length = min(count, fileLength)
            let first = fileLength - length
            self = ByteRange(status: 206, first: first, length: length,
                             contentRange: "bytes \(first)-\(fileLength - 1)/\(fileLength)")
        }
    }

    private init(status: Int, first: Int64, length: Int64, contentRange: String?) {
        self.status = status
        self.first = first
        self.length = length
        self.contentRange = contentRange
    }

    /// One range of the header. A number too large for Int64 is nil (`from`'s first) or Int64.max (the others):
    /// either way past the end of any file.
    private enum Spec {
        case from(first: Int64?, last: Int64?)
        case suffix(Int64)
    }

    /// The single range of a `Range` value, or nil when it is malformed, names another unit, or has several.
    private static func parse(_ bytes: [UInt8]) -> Spec? {
        let text = trimmed(bytes[...])
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        guard trimmed(text[..<equals]).lazy.map(lowercased).elementsEqual("bytes".utf8) else { return nil }
        // The list rule (RFC 9110 §5.6.1) allows empty elements: ", , 0-1" is one range.
        let elements = text[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { trimmed($0) }.filter { !$0.isEmpty }
        guard elements.count == 1 else { return nil }
        let element = elements[0]
        guard let dash = element.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let firstDigits = trimmed(element[..<dash])
        let lastDigits = trimmed(element[(dash + 1)...])
        if firstDigits.isEmpty {
            guard let count = number(lastDigits) else { return nil }
            return .suffix(count ?? .max)
        }
        guard let first = number(firstDigits) else { return nil }
        if lastDigits.isEmpty { return .from(first: first, last: nil) }
        guard let last = number(lastDigits) else { return nil }
        // A last byte before the first makes the range (and so the header) invalid (RFC 9110 §14.1.1).
        if let first, let last, last < first { return nil }
        if first == nil, last != nil { return nil }
        return .from(first: first, last: last ?? .max)
    }

    /// The value of a run of ASCII digits: nil when it is not one, `.some(nil)` when it is too large for Int64.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64?? {
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for digit in digits {
            let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times.addingReportingOverflow(Int64(digit - 0x30))
            if overflowed || overflowedAgain { return .some(nil) }
            value = sum
        }
        return .some(value)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte
    }
}
