/// The gain of each track that gives a `loudness` (or a `name` another track's loudness refers to), found by
/// measuring the track alone: `Planner.setTrackLoudness`.
struct TrackLoudnessPass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        let named = draft.tracks.indices.compactMap { t -> (track: Int, spec: TrackSpec, jsonPath: String)? in
            guard let spec = draft.tracks[t].spec, let index = draft.tracks[t].index, spec.loudness != nil || spec.name != nil else { return nil }
            return (t, spec, "tracks[\(index)]")
        }
        var tracks = draft.tracks.map(\.planned)
        try Planner.setTrackLoudness(named, tracks: &tracks, context: draft.context, total: draft.frameCount, session: session)
        for t in tracks.indices { draft.tracks[t].planned = tracks[t] }
    }
}
