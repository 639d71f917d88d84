/// A container and codec mixrender writes.
/// A plain enum value (`Sendable`); allocates nothing, except a few temporary strings in `from(path:)`.
public enum OutputFileFormat: String, Sendable, CaseIterable {
    case oggVorbis, flac, wav, mp3

    /// The format for a file name's extension (`.ogg`/`.oga`, `.flac`, `.wav`, `.mp3`, any case), or nil.
    public static func from(path: String) -> OutputFileFormat? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "ogg", "oga": return .oggVorbis
        case "flac": return .flac
        case "wav": return .wav
        case "mp3": return .mp3
        default: return nil
        }
    }

    /// Whether samples are stored as they are (WAV, FLAC), so `OutputSampleFormat` applies.
    public var isPCM: Bool { self == .flac || self == .wav }

    /// The rates MPEG-1, 2 and 2.5 Layer III define.
    public static let mp3Rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    /// Whether the format keeps Vorbis comments, where chapter marks (`CHAPTER001=...`) go.
    public var carriesVorbisComments: Bool { self == .oggVorbis || self == .flac }

    /// The usual extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .oggVorbis: return "ogg"
        case .flac: return "flac"
        case .wav: return "wav"
        case .mp3: return "mp3"
        }
    }

    /// A human name, e.g. for reports: "Ogg Vorbis", "FLAC", "WAV", "MP3".
    public var displayName: String {
        switch self {
        case .oggVorbis: return "Ogg Vorbis"
        case .flac: return "FLAC"
        case .wav: return "WAV"
        case .mp3: return "MP3"
        }
    }
}
