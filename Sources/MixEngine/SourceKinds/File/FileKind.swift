import MixDSP
import MixIO

/// `"file": "sounds/rain.ogg"`: one audio file, played once from its beginning, or looped with a
/// crossfaded seam when the track has `loop`. See README.md beside this file.
///
/// A value holding one path `String`; allocates only that. `Sendable`, safe to share; `plan` runs on
/// the planning thread.
public struct FileKind: DeclaredSourceKind {
    public static let key = "file"

    /// Resolved against the preset's folder.
    public var path: String
    public init(path: String) { self.path = path }

    /// Its settings: one path, resolved against the preset's folder.
    static var settings: DeclaredSettings<FileKind> {
        DeclaredSettings(value: .path(key, \.path, "A recording (anything mixrender reads: WAV, FLAC, Ogg, MP3, M4A, ...), played once from its start, or looped with a crossfaded seam when the track has loop; relative to the preset's folder."), defaults: FileKind(path: ""))
    }

    /// The file probed; when it loops, decoded too if it may be shorter than twice the crossfade (`shortLoopSeam`).
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {
        requests.file(path)
        if let loop { requests.decoded(path, isCircular: true, longestFrames: 2 * requests.frames(loop.crossfade.seconds) - 1) }
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let length = try track.length(of: path, key: Self.key)
        let info = try track.file(path, key: Self.key)
        guard let loop = track.loop else {
            let end = min(track.explicitEnd ?? (track.start + length), track.start + length)
            return SourcePlan(events: [PlannedEvent(start: track.start, end: end, material: StreamedFile(path: path))], end: end)
        }
        let requested = track.frames(loop.crossfade.seconds)
        let seam = requested > length / 2 ? try shortLoopSeam(track, info: info, requested: requested, curve: loop.crossfade.curve)
                                          : Int(requested)
        let looped = PreparedFile(file: info, seam: .init(crossfadeFrames: seam, curve: loop.crossfade.curve),
                                  context: track.context)
        let end = track.explicitEnd ?? track.frameCount
        return SourcePlan(events: [PlannedEvent(start: track.start, end: end, material: looped)], end: end)
    }
}

extension FileKind {
    /// A seam may be at most half the loop, and a loop that short is mostly seam: a short sound whose energy
    /// is in its attack then plays several dB low (a 50 ms drip with a 25 ms seam, 8 dB), because the seam
    /// fades the attack in. The loop is decoded in the analysis (it is shorter than twice the crossfade, so a few
    /// seconds at most) and its seam is the longest, from half the loop down to `minimumSeamSeconds`,
    /// that keeps the loop within `seamLevelTolerance` dB of the file's level. The warning says what was done.
    /// (`requested > length / 2` is `length <= 2 requested - 1`: the limit `analysisRequests` decodes up to.)
    static let seamLevelTolerance = 0.5
    static let minimumSeamSeconds = 0.0005

    func shortLoopSeam(_ track: TrackPlanning, info: AudioFileInfo, requested: Int64, curve: Curve) throws -> Int {
        let decoded = try track.decoded(path, isCircular: true, key: Self.key)
        let (audio, length) = (decoded.audio, decoded.length)
        let half = length / 2
        let seam = LoopSource.seamKeepingLevel(material: audio, length: length, requested: half,
                                               minimum: Int(track.frames(Self.minimumSeamSeconds)), curve: curve,
                                               tolerance: Self.seamLevelTolerance)
        let change = LoopSource.levelChange(material: audio, length: length, crossfade: seam, curve: curve)
        var message = "\(track.seconds(Double(requested) / Double(track.sampleRate))) is longer than half the "
            + "\(track.seconds(frames: Int64(length))) loop; "
        if seam == half {
            message += "using \(track.seconds(frames: Int64(seam)))"
        } else {
            let lost = LoopSource.levelChange(material: audio, length: length, crossfade: half, curve: curve)
            message += "using \(track.seconds(frames: Int64(seam))), since a \(track.seconds(frames: Int64(half))) seam "
                + "would play it \(Self.decibels(lost))"
            if abs(change) > Self.seamLevelTolerance { message += " (it still plays \(Self.decibels(change)))" }
        }
        track.warn("loop.crossfade", message)
        return seam
    }

    /// "8.2 dB low", "2.1 dB high".
    private static func decibels(_ change: Double) -> String {
        change.isFinite ? "\((abs(change) * 10).rounded() / 10) dB \(change < 0 ? "low" : "high")" : "silent"
    }
}

extension SourceSpec {
    /// An audio file (`FileKind`).
    public static func file(path: String) -> SourceSpec { SourceSpec(FileKind(path: path)) }
}
