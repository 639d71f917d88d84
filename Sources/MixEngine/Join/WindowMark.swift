import MixIO

/// Which window of which render a part is: written into every file rendered with a start or an end (the tag
/// `MIXRENDER_WINDOW`, docs/tags.md), so `join` can check that its parts tile one render exactly, in order.
///
/// As text: `start=480000 end=960000 total=1440000 rate=48000 key=<the whole render's audio cache key>`. The key
/// is the render's as `mixrender key` gives it without a range (docs/report.md): the same preset and sources at
/// any range, on any machine, give the same key. A value; `Sendable`.
public struct WindowMark: Sendable, Equatable {
    /// The window, in frames of the whole render: `[start, end)`.
    public var start: Int64
    public var end: Int64
    /// The whole render's length, in frames, and its rate.
    public var total: Int64
    public var sampleRate: Int
    public var key: String

    /// The tag that carries it.
    public static let tagKey = "MIXRENDER_WINDOW"

    public init(start: Int64, end: Int64, total: Int64, sampleRate: Int, key: String) {
        self.start = start; self.end = end; self.total = total; self.sampleRate = sampleRate; self.key = key
    }

    public var text: String { "start=\(start) end=\(end) total=\(total) rate=\(sampleRate) key=\(key)" }

    /// The mark in `text`, or nil when it is not one (a foreign or edited tag).
    public init?(text: String) {
        var values: [Substring: Substring] = [:]
        for pair in text.split(separator: " ") {
            guard let eq = pair.firstIndex(of: "="), values[pair[..<eq]] == nil else { return nil }
            values[pair[..<eq]] = pair[pair.index(after: eq)...]
        }
        guard values.count == 5, let s = values["start"].flatMap({ Int64($0) }), let e = values["end"].flatMap({ Int64($0) }),
              let t = values["total"].flatMap({ Int64($0) }), let r = values["rate"].flatMap({ Int($0) }),
              let key = values["key"], !key.isEmpty, s >= 0, e > s, t >= e, r > 0 else { return nil }
        self.init(start: s, end: e, total: t, sampleRate: r, key: String(key))
    }

    /// The mark a finished part carries (tags read with TagLib), or nil when it carries none; a tag that is
    /// there but not a mark is an error naming the part.
    static func read(part path: String, format: OutputFileFormat) throws -> WindowMark? {
        guard FileTags.canWrite(format) else { return nil }
        guard let text = try FileTags.read(path: path, format: format).first(where: { $0.key == tagKey })?.value else { return nil }
        guard let mark = WindowMark(text: text) else {
            throw EngineError.part(path: path, reason: "its \(tagKey) tag ('\(text)') is not a window mark mixrender wrote")
        }
        return mark
    }

    /// Checks that `marks` (one per part, in the order given, each with the part's path and frame count) tile
    /// one render exactly: the same render (key, length and rate), the first from frame 0, each from where the
    /// one before ended, the last to the end, each holding the frames its mark says. Parts with no mark at all
    /// are not checked (files not rendered as windows); a mix of marked and unmarked parts is an error.
    static func checkTiling(_ parts: [(path: String, frames: Int64, mark: WindowMark?)]) throws {
        guard let firstMarked = parts.first(where: { $0.mark != nil }) else { return }
        let reference = firstMarked.mark!
        var expectedStart: Int64 = 0
        var previous: String?
        for part in parts {
            guard let mark = part.mark else {
                throw EngineError.part(path: part.path, reason: "carries no window mark, but '\(firstMarked.path)' does: every part must be a window of one render (\(setting: .start) and \(setting: .end); a CAF part cannot carry the mark, so render the parts as .flac, .wav or .aiff)")
            }
            guard mark.key == reference.key, mark.total == reference.total, mark.sampleRate == reference.sampleRate else {
                throw EngineError.part(path: part.path, reason: "is a window of another render than '\(firstMarked.path)' (its preset, sources or settings differ: cache key \(mark.key.prefix(12))... against \(reference.key.prefix(12))...)")
            }
            guard mark.end - mark.start == part.frames else {
                throw EngineError.part(path: part.path, reason: "holds \(part.frames) frames, but its mark says frames \(mark.start)-\(mark.end) of the render; the file was changed after it was rendered")
            }
            guard mark.start == expectedStart else {
                let place = previous.map { "the part before it ('\($0)') ends at frame \(expectedStart)" } ?? "the first part must start at frame 0"
                let hint = mark.start < expectedStart ? "parts out of order, or one window twice" : "a window is missing between them, or the parts are out of order"
                throw EngineError.part(path: part.path, reason: "is frames \(mark.start)-\(mark.end) of the render, but \(place): \(hint)")
            }
            expectedStart = mark.end
            previous = part.path
        }
        guard expectedStart == reference.total else {
            throw EngineError.part(path: previous!, reason: "ends at frame \(expectedStart), but the render lasts \(reference.total) frames: the parts after it are missing")
        }
    }
}
