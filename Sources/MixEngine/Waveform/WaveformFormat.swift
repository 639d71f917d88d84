/// What a waveform output file holds, chosen by its extension.
/// A plain enum value (`Sendable`); allocates nothing, except temporary strings in `from(path:)`.
public enum WaveformFormat: String, Sendable, CaseIterable {
    /// BBC audiowaveform's JSON, version 2, plus RMS and band levels per column.
    case json
    /// BBC audiowaveform's binary format, version 2.
    case dat
    /// A PNG image (libpng).
    case png
    /// An SVG image.
    case svg

    /// The format for a path's extension (case-insensitive), or nil.
    public static func from(path: String) -> WaveformFormat? {
        WaveformFormat(rawValue: extensionOf(path).lowercased())
    }

    public var isImage: Bool { self == .png || self == .svg }

    /// The text after the last dot of the file name, or "".
    static func extensionOf(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// "rain.json" with level 512 -> "rain.512.json": one file per zoom level.
    static func path(_ path: String, level: Int) -> String {
        let ext = extensionOf(path)
        return String(path.dropLast(ext.count + 1)) + ".\(level).\(ext)"
    }
}
