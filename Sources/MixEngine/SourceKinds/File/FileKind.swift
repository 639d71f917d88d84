import MixDSP

/// `"file": "sounds/rain.ogg"`: one audio file, played once from its beginning, or looped with a
/// crossfaded seam when the track has `loop`. See README.md beside this file.
///
/// A value holding one path `String`; allocates only that. `Sendable`, safe to share; `plan` runs on
/// the planning thread.
public struct FileKind: ReadableSourceKind {
    public static let key = "file"

    /// Resolved against the preset's folder.
    public var path: String
    public init(path: String) { self.path = path }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> FileKind {
        FileKind(path: try reader.path(cursor))
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let length = try track.length(of: path, key: Self.key)
        let info = try track.file(path, key: Self.key)
        guard let loop = track.loop else {
            let end = min(track.explicitEnd ?? (track.start + length), track.start + length)
            return SourcePlan(voices: [PlannedVoice(start: track.start, end: end, material: StreamedFile(path: path))], end: end)
        }
        let requested = track.frames(loop.crossfade.seconds)
        if requested > length / 2 {
            track.warn("loop.crossfade", "\(track.seconds(loop.crossfade.seconds)) is longer than half the loop; "
                       + "using \(track.seconds(frames: length / 2))")
        }
        let looped = PreparedFile(file: info, seam: .init(crossfadeFrames: Int(min(requested, length / 2)), curve: loop.crossfade.curve),
                                  context: track.context)
        let end = track.explicitEnd ?? track.frameCount
        return SourcePlan(voices: [PlannedVoice(start: track.start, end: end, material: looped)], end: end)
    }
}

extension SourceSpec {
    /// An audio file (`FileKind`).
    public static func file(path: String) -> SourceSpec { SourceSpec(FileKind(path: path)) }
}
