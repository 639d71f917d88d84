/// One chapter mark, the one chapter type: the preset's `chapters` (read at the output rate, which is final once
/// the preset is loaded), the marks an output carries, and what a file's chapters are read back as. Its name and
/// the frame it starts at, counted from the file's first frame, at `sampleRate`; it ends at `end`, or, when that
/// is nil, where the next one starts (the last one at the end of the file). Vorbis comments carry it as
/// `timestamp` (`Chapters.comments` in the engine), ID3v2 as a `CHAP` frame in milliseconds (`FileTags.write`,
/// which needs each mark's end: `Chapters.closed`), M4A as its chapter track (`FFmpegFileWriter`). Read back
/// from a file (`FileTags.contents`) a mark is in milliseconds (`sampleRate` 1000) with its end.
///
/// A value: a `String` and up to three numbers; allocates only the string. `Sendable`, safe to share.
public struct ChapterMark: Sendable, Equatable {
    /// The most chapters a list may have: Vorbis comments number them `CHAPTER001` to `CHAPTER999`.
    public static let maximumCount = 999
    /// The longest name, in bytes of UTF-8.
    public static let maximumNameBytes = 1024

    public var name: String
    public var frame: Int64
    /// Where it ends (exclusive), at `sampleRate`; nil: where the next one starts, or the file ends.
    public var end: Int64?
    public var sampleRate: Int

    /// Whether a Vorbis comment's key is one of a chapter mark's (`CHAPTER001`, `CHAPTER001NAME`, any case):
    /// written from chapters, read back into them, never shown or taken as a free-form tag.
    public static func isCommentKey(_ key: String) -> Bool {
        key.uppercased().hasPrefix("CHAPTER") && key.dropFirst(7).first?.isNumber == true
    }

    public init(name: String, frame: Int64, end: Int64? = nil, sampleRate: Int) {
        self.name = name
        self.frame = frame
        self.end = end
        self.sampleRate = sampleRate
    }

    /// `frame`, a position at `sampleRate`, in milliseconds rounded to the nearest (as ID3v2 `CHAP` frames hold it).
    public func milliseconds(_ frame: Int64) -> UInt32 {
        UInt32(clamping: (frame * 1000 + Int64(sampleRate) / 2) / Int64(sampleRate))
    }

    /// Its start as `HH:MM:SS.mmm`, rounded to the millisecond.
    public var timestamp: String { timestamp(frame) }

    /// `frame`, a position at `sampleRate` (its start or its end), as `HH:MM:SS.mmm`, rounded to the millisecond.
    public func timestamp(_ frame: Int64) -> String {
        let ms = (frame * 1000 + Int64(sampleRate) / 2) / Int64(sampleRate)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = String(String(ms % 1000 + 1000).dropFirst())
        return "\(two(ms / 3_600_000)):\(two(ms / 60_000 % 60)):\(two(ms / 1000 % 60)).\(fraction)"
    }
}
