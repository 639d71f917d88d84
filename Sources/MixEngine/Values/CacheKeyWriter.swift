import MixDSP
import MixIO

/// The canonical text a cache key is the SHA-256 of: one `name=value` line per fact of the resolved plan,
/// in a fixed order, with numbers as Swift prints them (the shortest text that reads back as the same
/// value) and strings as JSON literals. Nothing in it depends on how the preset was spelled: times are
/// frames, gains are the linear factors the mixer uses, files are the SHA-256 of their content.
///
/// A value holding the text and the inputs' digests; each call appends to the text (allocating as a
/// `String` grows). Used by one thread.
public struct CacheKeyWriter {
    public private(set) var text = ""
    /// The SHA-256 of each input file's content, by the path the plan names it by.
    let digests: [String: String]
    /// Paths a material named that had no digest (a bug in the planner's bookkeeping; the key is refused).
    private(set) var unhashed: [String] = []
    private var depth = 0

    init(digests: [String: String]) { self.digests = digests }

    public mutating func field(_ name: String, _ value: String) { line(name, JSONLiteral.string(value)) }
    public mutating func field(_ name: String, _ value: Int) { line(name, String(value)) }
    public mutating func field(_ name: String, _ value: Int64) { line(name, String(value)) }
    public mutating func field(_ name: String, _ value: UInt64) { line(name, String(value)) }
    public mutating func field(_ name: String, _ value: Bool) { line(name, value ? "true" : "false") }
    /// -0 is written as 0: they sound the same.
    public mutating func field(_ name: String, _ value: Double) { line(name, (value == 0 ? 0 : value).description) }
    public mutating func field(_ name: String, _ value: Float) { line(name, (value == 0 ? 0 : value).description) }

    /// A file by its content: the SHA-256 of its bytes, never its path (the same file copied elsewhere is
    /// the same input; a file changed in place is another).
    public mutating func file(_ name: String, path: String) {
        if let digest = digests[path] { line(name, "sha256:" + digest) } else { unhashed.append(path); line(name, "unhashed") }
    }

    /// A nested group: `name {`, what `body` writes, `}`.
    public mutating func group(_ name: String, _ body: (inout CacheKeyWriter) -> Void) {
        text += String(repeating: "  ", count: depth) + name + " {\n"
        depth += 1
        body(&self)
        depth -= 1
        text += String(repeating: "  ", count: depth) + "}\n"
    }

    public mutating func envelope(_ name: String, _ envelope: Envelope) {
        group(name) { w in
            for p in envelope.points { w.line("point", "\(p.position) \((p.value == 0 ? 0 : p.value).description) \(p.curve.rawValue)") }
        }
    }

    /// A constant and its envelopes, in the order they multiply.
    public mutating func gains(_ name: String, _ gains: GainStack) {
        group(name) { w in
            w.field("constant", gains.constant)
            for e in gains.envelopes { w.envelope("envelope", e) }
        }
    }

    public mutating func schedule(_ name: String, _ schedule: RateSchedule) {
        group(name) { w in
            w.field("sampleRate", schedule.sampleRate)
            for p in schedule.points { w.line("point", "\(p.position) \(p.value.description) \(p.curve.rawValue)") }
        }
    }

    private mutating func line(_ name: String, _ value: String) {
        text += String(repeating: "  ", count: depth) + name + "=" + value + "\n"
    }
}
