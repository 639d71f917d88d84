import MixIO

/// Chapter marks as Vorbis comments, the convention players and taggers read in Ogg and FLAC:
/// `CHAPTER001=00:00:00.000`, `CHAPTER001NAME=Induction`, numbered from 001 in time order.
/// (https://wiki.xiph.org/Chapter_Extension)
///
/// ID3v2 formats take them as `CHAP` frames with a `CTOC`, each with its end (`closed`).
///
/// The marks themselves are `ChapterMark`s (MixIO). No state; `comments` and `closed` allocate the list.
public enum Chapters {
    /// The comments for `marks`, two per chapter.
    public static func comments(_ marks: [ChapterMark]) -> [(key: String, value: String)] {
        marks.enumerated().flatMap { index, mark -> [(key: String, value: String)] in
            let number = String(String(index + 1 + 1000).dropFirst())
            return [(key: "CHAPTER\(number)", value: mark.timestamp), (key: "CHAPTER\(number)NAME", value: mark.name)]
        }
    }

    /// The marks as ID3v2 `CHAP` frames want them: each with its end, the next one's start (the last one's
    /// `frameCount`, the file's end).
    public static func closed(_ marks: [ChapterMark], frameCount: Int64) -> [ChapterMark] {
        marks.enumerated().map { index, mark in
            var closed = mark
            closed.end = index + 1 < marks.count ? marks[index + 1].frame : frameCount
            return closed
        }
    }

    /// The chapter marks among a file's comments, in their numbers' order: each `CHAPTERnnn` time with its
    /// `CHAPTERnnnNAME` (empty when missing). Keys are compared without case, as Vorbis comments are.
    public static func marks(inComments comments: [(key: String, value: String)]) -> [(timestamp: String, name: String)] {
        var times: [String: String] = [:], names: [String: String] = [:]
        for (key, value) in comments {
            let upper = key.uppercased()
            guard upper.hasPrefix("CHAPTER") else { continue }
            let rest = String(upper.dropFirst("CHAPTER".count))
            if rest.hasSuffix("NAME") { names[String(rest.dropLast(4))] = value } else { times[rest] = value }
        }
        return times.keys.sorted().map { (times[$0]!, names[$0] ?? "") }
    }
}
