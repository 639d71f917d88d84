import MixIO

/// The `--timeline` file: a render's `Timeline` as JSON, every moment in seconds and in frames, so an app
/// can show progress and captions and a test can find the voice's frames (see docs/sessions.md).
///
/// No state: any thread may call it. `document` allocates the text; `write` writes it through a temporary
/// file beside the destination, renamed into place when complete.
public enum TimelineJSON {
    /// The timeline as a JSON document; `range` is the part of it rendered (all of it by default), given
    /// in the document as `rendered`.
    public static func document(_ timeline: Timeline, range: Range<Int64>? = nil) -> String {
        let json = Writer(sampleRate: timeline.sampleRate)
        let time = json.time, span = json.span

        var lines: [String] = ["{"]
        lines.append("  \"sampleRate\": \(timeline.sampleRate),")
        lines.append("  \"duration\": \(time(timeline.frameCount)),")
        let rendered = range ?? 0..<timeline.frameCount
        lines.append("  \"rendered\": {\(span(rendered.lowerBound, rendered.upperBound))},")

        let sections = timeline.sections.enumerated().map { i, section -> String in
            let segments = timeline.segments.filter { $0.section == i }.map { segment -> String in
                let speech = segment.speech.map { "{\(span($0.lowerBound, $0.upperBound))}" }.joined(separator: ", ")
                return "        {\"\(segment.isText ? "text" : "file")\": \(quote(segment.caption)), \(span(segment.start, segment.end)), "
                    + "\"gainDb\": \(number(segment.gainDb)), \"speech\": [\(speech)]}"
            }
            return "    {\"name\": \(quote(section.name)), \(span(section.start, section.end)), \"stretchedBy\": \(time(section.addedFrames)),\n"
                + "      \"segments\": [\n" + segments.joined(separator: ",\n") + (segments.isEmpty ? "" : "\n") + "      ]}"
        }
        lines.append("  \"sections\": [\n" + sections.joined(separator: ",\n") + (sections.isEmpty ? "" : "\n") + "  ],")

        if let ending = timeline.ending {
            var fields = ["\"type\": \(quote(ending.kind))", span(ending.start, ending.end)]
            if let fade = ending.fadeFrom { fields.append("\"fadeFrom\": \(time(fade))") }
            if let chime = ending.chime { fields.append("\"chime\": \(time(chime))") }
            lines.append("  \"ending\": {" + fields.joined(separator: ", ") + "},")
        } else {
            lines.append("  \"ending\": null,")
        }

        let ducked = timeline.ducked.map {
            "    {\"downFrom\": \(time($0.downFrom)), \"down\": \(time($0.down)), \"upFrom\": \(time($0.upFrom)), \"up\": \(time($0.up))}"
        }
        lines.append("  \"ducked\": [\n" + ducked.joined(separator: ",\n") + (ducked.isEmpty ? "" : "\n") + "  ],")

        let tracks = timeline.notes.map { track, note in
            "    {\"track\": \(quote(track)), \"type\": \(quote(note.type)), " + note.members(json) + "}"
        }
        lines.append("  \"tracks\": [\n" + tracks.joined(separator: ",\n") + (tracks.isEmpty ? "" : "\n") + "  ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a `TimelineNote` writes its members with: times in seconds and frames, spans, numbers, strings.
    /// A value of one `Int`; its functions allocate the text they return.
    public struct Writer: Sendable {
        public let sampleRate: Int
        /// `{"seconds": 1.5, "frame": 72000}`
        public func time(_ frame: Int64) -> String {
            "{\"seconds\": \(number(Double(frame) / Double(sampleRate))), \"frame\": \(frame)}"
        }
        /// `"start": {...}, "end": {...}`
        public func span(_ start: Int64, _ end: Int64) -> String { "\"start\": \(time(start)), \"end\": \(time(end))" }
        public func number(_ x: Double) -> String { TimelineJSON.number(x) }
        public func quote(_ text: String) -> String { TimelineJSON.quote(text) }
        /// `"key": [` then `items` one per line (each already indented), then `]` on a line of its own.
        public func list(_ key: String, _ items: [String]) -> String {
            "\(quote(key)): [\n" + items.joined(separator: ",\n") + (items.isEmpty ? "" : "\n") + "    ]"
        }
    }

    /// Writes `document(timeline, range:)` to `path`, atomically.
    public static func write(_ timeline: Timeline, range: Range<Int64>? = nil, to path: String) throws {
        let output = try AtomicOutputFile(destination: path)
        do {
            try FileSystem.writeFile(path: output.temporaryPath, bytes: Array(document(timeline, range: range).utf8))
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
    }

    /// A number with at most six decimals, as JSON writes it (`12.5`, `3`).
    public static func number(_ x: Double) -> String {
        let rounded = (x * 1_000_000).rounded() / 1_000_000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }

    /// A JSON string literal.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // C0 as JSON requires; DEL, C1 (U+009B is a CSI to some terminals) and the line separators too,
                // so that JSON printed on a terminal carries no control character from a file either.
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
