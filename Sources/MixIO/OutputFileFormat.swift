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
    /// Every help text and message that lists formats takes its list from here, so none can leave one out
    /// (`FormatListTests` checks the help texts and the docs' tables against `allCases`).
    public static func extensionList(dotted: Bool = false) -> String { list(allCases, dotted: dotted) }

    /// The lossless formats, which `join` takes: "wav, flac, aiff or caf" (with dots when `dotted`).
    public static func losslessList(dotted: Bool = false) -> String { list(allCases.filter(\.isPCM), dotted: dotted) }

    /// `formats`' extensions as an English list: "ogg, flac or wav".
    static func list(_ formats: [OutputFileFormat], dotted: Bool) -> String {
        let names = formats.map { (dotted ? "." : "") + $0.fileExtension }
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    /// The rates MPEG-1, 2 and 2.5 Layer III define.
    public static let mp3Rates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    /// The constant bitrates, in kbit/s, an MP3 at `sampleRate` can have: MPEG-1 (32 to 48 kHz) has 32 to 320,
    /// MPEG-2 (16 to 24 kHz) 8 to 160, and MPEG-2.5 (8 to 12 kHz) 8 to 64 of the same table.
    public static func mp3Bitrates(sampleRate: Int) -> [Int] {
        if sampleRate >= 32000 { return [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320] }
        let mpeg2 = [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        return sampleRate >= 16000 ? mpeg2 : mpeg2.filter { $0 <= 64 }
    }

    /// The lowest constant bitrate, in kbit/s, whose frames hold LAME's Info tag (the encoder delay and padding
    /// a player trims to be gapless): LAME writes the tag in a frame of the stream's own bitrate and leaves it
    /// out when 156 bytes and the side information do not fit (its `InitVbrTag`). Below it, an MP3 decodes
    /// with a frame and a half of silence more than was rendered. Variable bitrates always have room.
    public static func mp3GaplessMinimumKbps(sampleRate: Int, channelCount: Int) -> Int {
        let isMPEG1 = sampleRate >= 32000
        let sideInfo = 4 + (isMPEG1 ? (channelCount == 1 ? 17 : 32) : (channelCount == 1 ? 9 : 17))
        return mp3Bitrates(sampleRate: sampleRate).first { (isMPEG1 ? 144_000 : 72_000) * $0 / sampleRate >= sideInfo + 156 }!
    }

    /// The bitrates Opus takes, in kbit/s per channel (libopus's useful range, as libsndfile maps it).
    public static let opusBitratesPerChannel = 6...256

    /// The rates AAC-LC defines from 8 to 96 kHz (ISO/IEC 14496-3's sampling frequency index; FFmpeg's encoder
    /// also takes 7350 Hz, which players rarely do).
    public static let aacRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// Whether the format can be written to a pipe (`-o -`): its encoder never needs to seek back. WAV, AIFF and
    /// CAF write their length at the start, and MP4 its index once the audio is written.
    public var canStream: Bool { streamRefusal == nil }

    /// Why the format cannot be written to a pipe, or nil when it can.
    public var streamRefusal: String? {
        switch self {
        case .oggVorbis, .opus, .flac, .mp3: return nil
        case .wav, .aiff, .caf: return "\(displayName) writes its length at the start once the audio is written, so it needs a file it can seek in; for a lossless stream use flac"
        case .m4a: return "MP4 writes its index after the audio, so it needs a file it can seek in; for a stream use mp3 or opus"
        }
    }

    /// The formats a pipe takes, for messages: "ogg, flac, mp3 or opus".
    public static var streamableList: String {
        list(allCases.filter(\.canStream), dotted: false)
    }

    /// The format a name given on the command line (`--format`) stands for: an extension (`ogg`, `oga`, `aif`...,
    /// any case, with or without the dot), or nil.
    public static func named(_ name: String) -> OutputFileFormat? {
        from(path: "x." + (name.hasPrefix(".") ? String(name.dropFirst()) : name))
    }

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
