/// Text read from a file (tag keys and values, chapter titles, file and track names), made safe to print on a
/// terminal or in a line-per-field listing: a newline in a tag must not start a forged `CHAPTER001=` line, and an
/// escape sequence must not reach the terminal. The one function every printed piece of file-derived text goes
/// through (`mixrender info`, `loudness`, `validate`, the render summary); JSON output is escaped by its encoder.
///
/// No state; `escaped` allocates only when something needs escaping.
public enum PrintableText {
    /// `text` with every control character (C0, DEL, C1: general category Cc), line and paragraph separator and
    /// bidirectional control (U+202E and its kind, which reorder what follows) written as an escape:
    /// `\n`, `\r`, `\t`, else `\u{1B}`; a backslash is doubled, so an escape in the output always means one
    /// was made and `a\nb` printed is the six characters `a\\nb` only if the file held a backslash.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else { out.unicodeScalars.append(scalar); continue }
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// The bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E-U+200F, U+202A-U+202E,
    /// U+2066-U+2069): invisible, and they reorder the text after them. Other format characters (a zero-width
    /// joiner inside an emoji) are left alone.
    private static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                                    0x2066, 0x2067, 0x2068, 0x2069]

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\\" { return true }
        if scalar.value >= 0x20 && scalar.value < 0x7F { return false }   // printable ASCII, the common case
        let category = scalar.properties.generalCategory
        return category == .control || category == .lineSeparator || category == .paragraphSeparator
            || bidiControls.contains(scalar.value)
    }
}
