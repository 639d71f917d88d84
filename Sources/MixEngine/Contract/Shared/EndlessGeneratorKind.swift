/// A kind whose track is one endless generator over the track's whole span, made as it plays from the kind's own
/// settings (noise, rain, wind, surf, fire, crickets): the kind is its own event material, with nothing to prepare.
/// A conforming kind writes `describe(into:)` and `makeSource(_:prepared:)`; planning is shared here.
public protocol EndlessGeneratorKind: SourceKind, EventMaterial {
    /// Refuses a track the sound cannot be made for (crickets need a rate that holds their song); by default
    /// every track is fine.
    func check(_ track: TrackPlanning) throws
}

extension EndlessGeneratorKind {
    public func check(_ track: TrackPlanning) throws {}

    /// One event from the track's start to its end (or the render's).
    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        try check(track)
        let end = track.explicitEnd ?? track.frameCount
        return SourcePlan(events: [PlannedEvent(start: track.start, end: end, material: self)], end: end)
    }
}
