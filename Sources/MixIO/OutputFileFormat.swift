/// A container and codec mixrender writes.
/// A plain enum value (`Sendable`); allocates nothing, except a few temporary strings in `from(path:)`.
public enum OutputFileFormat: String, Sendable, CaseIterable {
    case oggVorbis, flac, wav

    /// The format for a file name's extension (`.ogg`/`.oga`, `.flac`, `.wav`, any case), or nil.
    public static func from(path: String) -> OutputFileFormat? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "ogg", "oga": return .oggVorbis
        case "flac": return .flac
        case "wav": return .wav
        default: return nil
        }
    }

    /// Whether the format keeps Vorbis comments, where chapter marks (`CHAPTER001=...`) go.
    public var carriesVorbisComments: Bool { self == .oggVorbis || self == .flac }

    /// The usual extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .oggVorbis: return "ogg"
        case .flac: return "flac"
        case .wav: return "wav"
        }
    }

    /// A human name, e.g. for reports: "Ogg Vorbis", "FLAC", "WAV".
    public var displayName: String {
        switch self {
        case .oggVorbis: return "Ogg Vorbis"
        case .flac: return "FLAC"
        case .wav: return "WAV"
        }
    }
}
