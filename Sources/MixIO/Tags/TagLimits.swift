/// Each output format's own limit on the tags it can hold, checked before anything is rendered: a preset's tags
/// are capped in proportion (`TagFields.maximumFields` and the rest, about 16 MiB in all), but two formats hold
/// less, and writing past their limit gave a file no reader opens (FLAC) or dropped tags without a word (CAF).
///
/// - FLAC: the Vorbis comment is one metadata block, whose length has 24 bits: at most 16,777,215 bytes
///   (4 + vendor + 4, then 4 + `KEY=value` for each value). Past it TagLib wrote a block no reader could open.
/// - CAF: libsndfile 1.2.0 writes its 'info' chunk from a 16 KiB buffer (`caf_write_strings`): the known keys, each
///   as `name NUL value NUL`, in `SoundFileWriter.stringKinds` order, must fit in 16,383 bytes; one that does not
///   was silently left out.
/// - ID3v2 (MP3, AIFF, WAV): a tag's size is a 28-bit synchsafe integer, at most 268,435,455 bytes; each v2.3
///   frame's a 32-bit one. RIFF INFO (WAV) and AIFF chunks have 32-bit sizes, MP4 atoms 32 bits (or 64), and an
///   Ogg packet (Vorbis and Opus comments) has no limit of its own: the preset's caps keep all of these far below
///   their limits (at most 64 keys x 16 values x 16 KiB, in UTF-16 about 33 MB of ID3v2), and they are checked
///   with the same sums all the same.
///
/// No state; allocates only its messages.
public enum TagLimits {
    /// A FLAC metadata block's largest length (24 bits).
    public static let flacBlockBytes = (1 << 24) - 1
    /// The most a CAF's 'info' chunk holds as libsndfile 1.2.0 writes it.
    public static let cafInfoBytes = 16 * 1024 - 1
    /// The largest ID3v2 tag (a 28-bit synchsafe size).
    public static let id3v2TagBytes = (1 << 28) - 1
    /// Room kept for what is written besides the preset's tags: the vendor string, ReplayGain's fields.
    static let reserveBytes = 1024

    /// What does not fit, or nil: the preset key (upper case) that passes the limit first (nil when it is the
    /// whole that does not fit) and the reason, naming the limit. `fields` are the preset's tags (title
    /// included), `extra` what mixrender adds (chapter marks as comments in Vorbis comment formats).
    public static func problem(format: OutputFileFormat, fields: TagFields,
                               extra: [(key: String, value: String)] = []) -> (key: String?, reason: String)? {
        switch format {
        case .flac:
            var total = 8 + reserveBytes + extra.reduce(0) { $0 + 5 + $1.key.utf8.count + $1.value.utf8.count }
            for field in fields.fields {
                total += field.values.reduce(0) { $0 + 5 + field.key.utf8.count + $1.utf8.count }
                if total > flacBlockBytes {
                    return (field.key, "the tags pass FLAC's limit: its Vorbis comment block holds at most \(grouped(flacBlockBytes)) bytes (a 24-bit length), and the tags up to this one take \(grouped(total)) with mixrender's own fields; shorten or drop values")
                }
            }
        case .caf:
            var total = 0
            for (_, key) in SoundFileWriter.stringKinds {
                guard let values = fields[key] else { continue }
                total += key.utf8.count + 1 + values.joined(separator: "/").utf8.count + 1
                if total > cafInfoBytes {
                    return (key, "the tags pass CAF's limit: libsndfile writes its 'info' chunk from a 16 KiB buffer, at most \(grouped(cafInfoBytes)) bytes, and the known tags up to this one take \(grouped(total)); shorten them, or use .flac or .m4a for long tags")
                }
            }
        case .mp3, .aiff, .wav:
            // Each key one frame: 10 bytes of header, an encoding byte, the values joined by '/', in UTF-16 (2 bytes a
            // code unit, a byte order mark) when not Latin-1; a TXXX also holds its description.
            var total = 10 + reserveBytes + extra.reduce(0) { $0 + 12 + 2 * ($1.key.utf16.count + $1.value.utf16.count) }
            for field in fields.fields {
                let text = field.values.joined(separator: "/")
                total += 10 + 3 + 2 * (field.key.utf16.count + text.utf16.count + 2)
                if total > id3v2TagBytes {
                    return (field.key, "the tags pass ID3v2's limit: a tag holds at most \(grouped(id3v2TagBytes)) bytes (a 28-bit size)")
                }
            }
        case .oggVorbis, .opus, .m4a:
            break   // no limit within the preset's caps (see the type's notes)
        }
        return nil
    }

    /// The room (bytes) a FLAC or MP3 reserves when it is created for the tags written into it afterwards
    /// (`OutputSettings.tagRoomBytes`), so that TagLib writes them in place: an estimate of the Vorbis comment
    /// block or ID3v2 tag TagLib renders for `fields`, `extra` (chapter marks as comments) and `chapterNames` (ID3v2
    /// `CHAP` frames), plus ReplayGain's fields and a little slack. TagLib keeps a tag's size when the new one fits
    /// and what is left over is no more than its padding threshold (at least 4096 bytes for FLAC, 1024 for ID3v2,
    /// at most 1 % of the file), so the estimate aims a few hundred bytes high. 0 for other formats, and past
    /// 1 MiB of tags (TagLib would not keep that much padding either way).
    public static func room(format: OutputFileFormat, fields: TagFields, extra: [(key: String, value: String)] = [],
                            chapterNames: [String] = []) -> Int {
        let replayGain = 160, slack = 512
        var total: Int
        switch format {
        case .flac:
            total = fields.comments.reduce(0) { $0 + 5 + $1.key.utf8.count + $1.value.utf8.count }
                + extra.reduce(0) { $0 + 5 + $1.key.utf8.count + $1.value.utf8.count }
        case .mp3:
            // ID3v2.3 as the shim writes it: one frame a key (10 bytes of header, an encoding byte, Latin-1 or
            // UTF-16 with a byte order mark), a TXXX with its description, a COMM with a language; chapters as a
            // CTOC and a CHAP each with a TIT2.
            func text(_ s: String) -> Int { s.unicodeScalars.allSatisfy { $0.value <= 0xFF } ? s.unicodeScalars.count + 1 : 2 * s.utf16.count + 4 }
            total = 10
            for field in fields.fields {
                let value = field.values.joined(separator: "/")
                total += 11 + text(value) + (TagFields.knownKeys.contains(field.key) ? 0 : text(field.key)) + (field.key == "COMMENT" ? 4 : 0)
                if field.key == "DATE" { total += 24 }   // TYER and TDAT
            }
            if !chapterNames.isEmpty {
                total += 17 + chapterNames.indices.reduce(0) { $0 + "chp\($1)".utf8.count + 1 }
                for (index, name) in chapterNames.enumerated() { total += 10 + "chp\(index)".utf8.count + 1 + 16 + 11 + text(name) }
            }
        default:
            return 0
        }
        total += replayGain + slack
        return total > 1 << 20 ? 0 : total
    }

    /// `n` with thousands separated by commas: 16,777,215.
    static func grouped(_ n: Int) -> String {
        var digits = String(n), out = ""
        while digits.count > 3 { out = "," + digits.suffix(3) + out; digits.removeLast(3) }
        return digits + out
    }
}
