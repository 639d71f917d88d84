import MixIO

/// What `mixrender info --json` prints for a file, for back ends: its format, rate, channels and length, every tag
/// as the file holds it (chapter comments aside), its chapters and what reading it warned of; or the error that
/// kept it from being read. The text form is the CLI's (`Printout.info`); this is the same content as JSON.
public enum FileDescription {
    /// One readable file. `comments` are its tags as read (`FileTags.contents`), `chapters` its ID3v2 `CHAP` frames;
    /// Vorbis-comment chapters (`CHAPTER001=...`) are taken from the comments.
    public static func json(_ info: AudioFileInfo, comments: [(key: String, value: String)], chapters: [ChapterMark]) -> JSONValue {
        // A key given more than once (two ARTIST comments) is one member whose value is the list, in the file's order.
        var keys: [String] = [], values: [String: [String]] = [:]
        for (key, value) in comments where !ChapterMark.isCommentKey(key) {
            if values[key] == nil { keys.append(key) }
            values[key, default: []].append(value)
        }
        let tags = keys.map { key in
            let list = values[key]!
            return JSONValue.Member(key, list.count == 1 ? .string(list[0]) : .array(list.map { .string($0) }))
        }
        var marks: [JSONValue] = Chapters.marks(inComments: comments).map { mark in
            .object([JSONValue.Member("name", .string(mark.name)), JSONValue.Member("start", .string(mark.timestamp)),
                     JSONValue.Member("startSeconds", seconds(ofTimestamp: mark.timestamp).map { .rounded($0, places: 3) } ?? .null)])
        }
        marks += chapters.map { chapter in
            let rate = Double(chapter.sampleRate)
            return .object([JSONValue.Member("name", .string(chapter.name)), JSONValue.Member("start", .string(chapter.timestamp)),
                            JSONValue.Member("startSeconds", .rounded(Double(chapter.frame) / rate, places: 3)),
                            JSONValue.Member("endSeconds", chapter.end.map { .rounded(Double($0) / rate, places: 3) } ?? .null)])
        }
        return .object([
            JSONValue.Member("file", .string(info.path)),
            JSONValue.Member("format", .string(info.formatName)),
            JSONValue.Member("sampleRate", .number(Double(info.sampleRate))),
            JSONValue.Member("channels", .number(Double(info.channelCount))),
            JSONValue.Member("frames", .number(Double(info.frameCount))),
            JSONValue.Member("durationSeconds", .rounded(info.durationSeconds, places: 6)),
            JSONValue.Member("tags", .object(tags)),
            JSONValue.Member("chapters", .array(marks)),
            JSONValue.Member("warnings", .array(info.warnings.map { .string($0) })),
        ])
    }

    /// A file that could not be read: its path and the one-line error.
    public static func json(path: String, error: String) -> JSONValue {
        .object([JSONValue.Member("file", .string(path)), JSONValue.Member("error", .string(error))])
    }

    /// The array `info --json` prints, one element per file in the order given, laid out as every other document.
    public static func document(_ files: [JSONValue]) -> String { JSONValue.array(files).document(.readable) }

    /// "HH:MM:SS.mmm" (a Vorbis chapter's time) in seconds; nil if it is not one.
    static func seconds(ofTimestamp text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]) else { return nil }
        return h * 3600 + m * 60 + s
    }
}
