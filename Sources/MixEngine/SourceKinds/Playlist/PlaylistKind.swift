import MixDSP

/// `"playlist": {"files": [...], "crossfade": "8s"}`: files played one after another, each crossfaded
/// into the next; with the track's `loop`, the last crossfades back into the first. See README.md beside
/// this file.
///
/// A value: an array of path `String`s and a `FadeSpec`; allocates only those. `Sendable`, safe to
/// share; `plan` runs on the planning thread.
public struct PlaylistKind: DeclaredSourceKind {
    public static let key = "playlist"
    public static let defaultCrossfade = FadeSpec(seconds: 3, curve: .equalPower)
    /// The most plays of its files a looping playlist makes (each is an event of the plan): 100 hours of
    /// files of 3.6 s.
    public static let maximumPlays: Int64 = 100_000

    /// Resolved against the preset's folder.
    public var paths: [String]
    public var crossfade: FadeSpec
    public init(paths: [String], crossfade: FadeSpec = PlaylistKind.defaultCrossfade) {
        self.paths = paths
        self.crossfade = crossfade
    }

    /// Its settings, declared once for the reader and the schema (defaults from `init`).
    static var settings: DeclaredSettings<PlaylistKind> {
        DeclaredSettings(description: "Files played one after another, each crossfaded into the next.", defaults: PlaylistKind(paths: []), settings: [
            .files("files", \.paths, atMost: ReadingLimits.maximumTracks, required: "a list of at least one audio file",
                   none: "a playlist needs at least one file", most: "a playlist lists at most",
                   "The files, in the order they play."),
            .crossfade("crossfade", \.crossfade, "Crossfade between neighbours."),
        ])
    }

    /// Item k starts where item k-1 starts its fade-out; each overlap is the crossfade, at most half of
    /// either item. A looping playlist holds its items in memory (each plays many times); one that plays
    /// once streams them.
    /// Every file probed.
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {
        for path in paths { requests.file(path) }
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let lengths = try paths.enumerated().map { k, path in try track.length(of: path, key: "\(Self.key).files[\(k)]") }
        let isLooping = track.loop != nil
        let held = isLooping
            ? try paths.enumerated().map { k, path in
                PreparedFile(file: try track.file(path, key: "\(Self.key).files[\(k)]"), context: track.context) }
            : []
        let limit = track.explicitEnd ?? (isLooping ? track.frameCount : Int64.max)
        let x = track.frames(crossfade.seconds)
        if isLooping {
            // Every play is an event: short files looped for hours would be millions of them.
            let round = paths.indices.reduce(Int64(0)) { sum, k in
                sum + lengths[k] - min(x, lengths[k] / 2, lengths[(k + 1) % paths.count] / 2)
            }
            let span = min(limit, track.frameCount) - track.start
            let plays = span / round * Int64(paths.count)
            guard plays <= Self.maximumPlays else {
                throw track.error("\(Self.key).files", "looped over the track's \(track.session.clock(span)), its files "
                                  + "(\(track.seconds(frames: round)) a round) would play \(plays) times, more than "
                                  + "\(Self.maximumPlays); loop a longer playlist, or join the files into one file and loop that")
            }
        }
        var events: [PlannedEvent] = []
        var position = track.start
        var k = 0
        var previousOverlap: Int64 = 0
        while position < min(limit, track.frameCount) {
            let item = k % paths.count
            let isLast = !isLooping && k == paths.count - 1
            let next = (k + 1) % paths.count
            // The overlap with the next item: the crossfade, at most half of either item.
            let overlap = isLast ? 0 : min(x, lengths[item] / 2, lengths[next] / 2)
            if !isLast && overlap < x && k < paths.count {
                track.warn("\(Self.key).crossfade", "\(track.seconds(crossfade.seconds)) is longer than half of "
                           + "files[\(item)] or files[\(next)]; using \(track.seconds(frames: overlap)) there")
            }
            var envelopes: [Envelope] = []
            if previousOverlap > 0 { envelopes.append(.fadeIn(start: position, length: previousOverlap, curve: crossfade.curve)) }
            if overlap > 0 { envelopes.append(.fadeOut(end: position + lengths[item], length: overlap, curve: crossfade.curve)) }
            let material: any EventMaterial = isLooping ? held[item] : StreamedFile(path: paths[item])
            events.append(PlannedEvent(start: position, end: position + lengths[item], material: material,
                                       gains: GainStack(envelopes: envelopes)))
            position += lengths[item] - overlap
            previousOverlap = overlap
            k += 1
            if isLast { break }
        }
        return SourcePlan(events: events, end: min(limit, events.last.map { $0.end } ?? track.start))
    }
}

extension SourceSpec {
    /// Files played one after another (`PlaylistKind`).
    public static func playlist(paths: [String], crossfade: FadeSpec) -> SourceSpec {
        SourceSpec(PlaylistKind(paths: paths, crossfade: crossfade))
    }
}
