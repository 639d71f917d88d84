import MixIO

/// Chapter marks as Vorbis comments, the convention players and taggers read in Ogg and FLAC:
/// `CHAPTER001=00:00:00.000`, `CHAPTER001NAME=Induction`, numbered from 001 in time order.
/// (https://wiki.xiph.org/Chapter_Extension)
///
/// ID3v2 formats take them as `CHAP` frames with a `CTOC` (`id3Chapters`).
///
/// The marks themselves are `ChapterMark`s (MixIO). No state; `comments` and `id3Chapters` allocate the list.
public enum Chapters {
    /// The comments for `marks`, two per chapter.
    public static func comments(_ marks: [ChapterMark]) -> [(key: String, value: String)] {
        marks.enumerated().flatMap { index, mark -> [(key: String, value: String)] in
            let number = String(String(index + 1 + 1000).dropFirst())
            return [(key: "CHAPTER\(number)", value: mark.timestamp), (key: "CHAPTER\(number)NAME", value: mark.name)]
        }
    }

    /// The chapters as ID3v2 `CHAP` frames want them: each from its start to the next one's (the last to
    /// `frameCount`, the file's end), in milliseconds rounded to the nearest.
    public static func id3Chapters(_ marks: [ChapterMark], frameCount: Int64) -> [FileTags.Chapter] {
        func ms(_ frame: Int64, _ rate: Int) -> UInt32 { UInt32(clamping: (frame * 1000 + Int64(rate) / 2) / Int64(rate)) }
        return marks.enumerated().map { index, mark in
            let end = index + 1 < marks.count ? marks[index + 1].frame : frameCount
            return FileTags.Chapter(name: mark.name, startMilliseconds: ms(mark.frame, mark.sampleRate), endMilliseconds: ms(end, mark.sampleRate))
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
