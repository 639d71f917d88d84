/// Reads and writes the time values of presets.
///
/// A time is a span or a moment in seconds. In JSON it is a number of seconds (`90`, `2.5`) or a string:
///
/// - a plain number of seconds: `"90"`, `"2.5"`
/// - numbers with units, largest unit first, each unit at most once: `"90s"`, `"45m"`, `"8h"`, `"500ms"`,
///   `"1h30m"`, `"2m30s"`, `"1h 30m"` (spaces between the parts are allowed); only the last part may have
///   a fraction (`"1.5h"`, `"1h30.5m"`). Units: `h`, `m`, `s`, `ms`.
/// - clock notation: `"m:ss"` (`"12:30"`), `"h:mm:ss"` (`"1:30:00"`), with an optional fraction of a second
///   (`"1:02:03.5"`). Every field after the first has exactly two digits and is below 60.
///
/// Negative, infinite and malformed times (`"-5s"`, `"abc"`, `"5x"`, `"1:99"`, `""`, `"m"`) are rejected.
///
/// No state: any thread may call it at once. `seconds` allocates a copy of the text's bytes, `string`
/// the string it returns.
public enum TimeParser {
    /// The longest time mixrender takes anywhere (a render's length, a position, a fade): 100 hours. Every
    /// time is checked against it where it is read, so frame positions (at most 100 h x 192 kHz, 6.9e10)
    /// stay far inside `Int64` whatever follows.
    public static let maximumSeconds = 100.0 * 3600
    /// The time `text` stands for, in seconds; nil if it is not a valid time (see the type's documentation).
    /// Leading and trailing spaces are ignored.
    public static func seconds(_ text: String) -> Double? {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == space { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == space { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { return nil }

        let value: Double?
        if bytes.contains(colon) {
            value = clock(bytes)
        } else if let plain = decimal(bytes) {
            value = plain.value
        } else {
            value = withUnits(bytes)
        }
        guard let seconds = value, seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }

    /// A compact, readable form of `seconds` that `seconds(_:)` reads back, rounded to the millisecond:
    /// `"8h"`, `"1h30m"`, `"2m0.5s"`, `"0.25s"`, `"0s"`. Non-finite and negative values are written as numbers.
    public static func string(fromSeconds seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { return "\(seconds)s" }
        let totalMs = Int64((seconds * 1000).rounded())
        let hours = totalMs / 3_600_000
        let minutes = totalMs / 60_000 % 60
        let ms = totalMs % 60_000
        var text = ""
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if ms > 0 || text.isEmpty {
            let whole = ms / 1000, fraction = ms % 1000
            if fraction == 0 {
                text += "\(whole)s"
            } else {
                var digits = String(fraction)
                digits = String(repeating: "0", count: 3 - digits.count) + digits
                while digits.hasSuffix("0") { digits.removeLast() }
                text += "\(whole).\(digits)s"
            }
        }
        return text
    }

    /// `m:ss.mmm`, or `h:mm:ss.mmm` from an hour on: a time as reports and messages show it (rounded to the
    /// millisecond).
    public static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { return "\(seconds) s" }
        let ms = Int64((seconds * 1000).rounded())
        let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let tail = two(s) + "." + String(String(f + 1000).dropFirst())
        return h > 0 ? "\(h):\(two(m)):" + tail : "\(m):" + tail
    }

    // MARK: - Grammar

    private static let space = UInt8(ascii: " ")
    private static let colon = UInt8(ascii: ":")
    private static let dot = UInt8(ascii: ".")

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// `digits ("." digits)?`, the whole slice; nil otherwise.
    private static func decimal(_ bytes: ArraySlice<UInt8>) -> (value: Double, hasFraction: Bool)? {
        guard let (value, hasFraction, end) = leadingDecimal(bytes), end == bytes.endIndex else { return nil }
        return (value, hasFraction)
    }

    /// `digits ("." digits)?` at the start of the slice, and where it ends.
    private static func leadingDecimal(_ bytes: ArraySlice<UInt8>) -> (Double, Bool, Int)? {
        var i = bytes.startIndex
        while i < bytes.endIndex, isDigit(bytes[i]) { i += 1 }
        guard i > bytes.startIndex else { return nil }
        var hasFraction = false
        if i < bytes.endIndex, bytes[i] == dot {
            var j = i + 1
            while j < bytes.endIndex, isDigit(bytes[j]) { j += 1 }
            guard j > i + 1 else { return nil }   // "5." is not a number
            i = j
            hasFraction = true
        }
        guard let value = Double(String(decoding: bytes[bytes.startIndex..<i], as: UTF8.self)) else { return nil }
        return (value, hasFraction, i)
    }

    /// `"1h30m"`, `"500ms"`, `"2m 30s"`: largest unit first, each at most once, a fraction only on the last part.
    private static func withUnits(_ bytes: ArraySlice<UInt8>) -> Double? {
        var rest = bytes
        var total = 0.0
        var lastRank = -1
        var sawFraction = false
        while !rest.isEmpty {
            guard !sawFraction, let (value, hasFraction, end) = leadingDecimal(rest) else { return nil }
            rest = rest[end...]
            while let first = rest.first, first == space { rest = rest.dropFirst() }
            let unit: (rank: Int, seconds: Double, length: Int)
            if rest.starts(with: "ms".utf8) {
                unit = (3, 0.001, 2)
            } else if let first = rest.first {
                switch first {
                case UInt8(ascii: "h"): unit = (0, 3600, 1)
                case UInt8(ascii: "m"): unit = (1, 60, 1)
                case UInt8(ascii: "s"): unit = (2, 1, 1)
                default: return nil
                }
            } else {
                return nil   // a number without a unit after other parts: "1h30"
            }
            guard unit.rank > lastRank else { return nil }
            lastRank = unit.rank
            sawFraction = hasFraction
            total += value * unit.seconds
            rest = rest.dropFirst(unit.length)
            while let first = rest.first, first == space { rest = rest.dropFirst() }
        }
        return lastRank >= 0 ? total : nil
    }

    /// `"m:ss"` or `"h:mm:ss"`, seconds with an optional fraction.
    private static func clock(_ bytes: ArraySlice<UInt8>) -> Double? {
        let fields = bytes.split(separator: colon, omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        guard let first = fields.first, !first.isEmpty, first.allSatisfy(isDigit),
              let leading = Double(String(decoding: first, as: UTF8.self)) else { return nil }
        var total = leading
        for (index, field) in fields.enumerated().dropFirst() {
            let isLast = index == fields.count - 1
            guard field.count >= 2, isDigit(field[field.startIndex]), isDigit(field[field.startIndex + 1]) else { return nil }
            let twoDigits = Double((field[field.startIndex] - UInt8(ascii: "0")) * 10 + (field[field.startIndex + 1] - UInt8(ascii: "0")))
            guard twoDigits < 60 else { return nil }
            var value = twoDigits
            if field.count > 2 {
                // only the last field, and only as "ss.fff"
                guard isLast, field[field.startIndex + 2] == dot,
                      let (fractional, _, end) = leadingDecimal(field), end == field.endIndex else { return nil }
                value = fractional   // the two digits and the fraction: "03.5" -> 3.5
            }
            total = total * 60 + value
        }
        return total
    }
}
