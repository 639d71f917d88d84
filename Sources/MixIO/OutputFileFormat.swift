/// A container and codec mixrender writes.
/// A plain enum value (`Sendable`); allocates nothing, except a few temporary strings in `from(path:)`.
public enum OutputFileFormat: String, Sendable, CaseIterable {
    case oggVorbis, flac, wav, mp3, opus, caf, aiff, m4a

    /// The format for a file name's extension (`.ogg`/`.oga`, `.flac`, `.wav`, `.mp3`, `.opus`, `.caf`,
    /// `.aiff`/`.aif`, `.m4a`, any case), or nil.
    public static func from(path: String) -> OutputFileFormat? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "ogg", "oga": return .oggVorbis
        case "flac": return .flac
        case "wav": return .wav
        case "mp3": return .mp3
        case "opus": return .opus
        case "caf": return .caf
        case "aiff", "aif": return .aiff
        case "m4a": return .m4a
        default: return nil
        }
    }

    /// Whether samples are stored losslessly (WAV, FLAC, AIFF, ALAC in CAF), so `OutputSampleFormat` applies.
    public var isPCM: Bool { self == .flac || self == .wav || self == .aiff || self == .caf }

    /// The rates Opus encodes at.
    public static let opusRates = [8000, 12000, 16000, 24000, 48000]

    /// Every extension, for messages: "ogg, flac, wav, mp3, opus, caf, aiff or m4a" (".ogg, .flac, ..." with a dot).
    public static func extensionList(dotted: Bool = false) -> String {
        let names = allCases.map { (dotted ? "." : "") + $0.fileExtension }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The rates MPEG-1, 2 and 2.5 Layer III define.
    public static let mp3Rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    /// The rates AAC-LC defines from 8 to 96 kHz (ISO/IEC 14496-3's sampling frequency index; FFmpeg's encoder
    /// also takes 7350 Hz, which players rarely do).
    public static let aacRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// Whether the format keeps Vorbis comments, where chapter marks (`CHAPTER001=...`) go.
    public var carriesVorbisComments: Bool { self == .oggVorbis || self == .flac || self == .opus }

    /// The usual extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .oggVorbis: return "ogg"
        case .flac: return "flac"
        case .wav: return "wav"
        case .mp3: return "mp3"
        case .opus: return "opus"
        case .caf: return "caf"
        case .aiff: return "aiff"
        case .m4a: return "m4a"
        }
    }

    /// A human name, e.g. for reports: "Ogg Vorbis", "FLAC", "WAV", "MP3".
    public var displayName: String {
        switch self {
        case .oggVorbis: return "Ogg Vorbis"
        case .flac: return "FLAC"
        case .wav: return "WAV"
        case .mp3: return "MP3"
        case .opus: return "Ogg Opus"
        case .caf: return "CAF ALAC"
        case .aiff: return "AIFF"
        case .m4a: return "AAC (M4A)"
        }
    }
}
