/// One chapter mark, the one type every output uses: its name and the frame it starts at, counted from the
/// file's first frame, at `sampleRate`. A chapter ends where the next one starts, the last one at the end of the
/// file. Vorbis comments carry it as `timestamp` (`Chapters.comments` in the engine), ID3v2 as a `CHAP` frame in
/// milliseconds (`FileTags.Chapter`, which is also what a file is read back as), M4A as its chapter track
/// (`FFmpegFileWriter`).
///
/// A value: a `String` and two numbers; allocates only the string. `Sendable`, safe to share.
public struct ChapterMark: Sendable, Equatable {
    public var name: String
    public var frame: Int64
    public var sampleRate: Int

    public init(name: String, frame: Int64, sampleRate: Int) {
        self.name = name
        self.frame = frame
        self.sampleRate = sampleRate
    }

    /// `HH:MM:SS.mmm`, rounded to the millisecond.
    public var timestamp: String {
        let ms = (frame * 1000 + Int64(sampleRate) / 2) / Int64(sampleRate)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = String(String(ms % 1000 + 1000).dropFirst())
        return "\(two(ms / 3_600_000)):\(two(ms / 60_000 % 60)):\(two(ms / 1000 % 60)).\(fraction)"
    }
}
