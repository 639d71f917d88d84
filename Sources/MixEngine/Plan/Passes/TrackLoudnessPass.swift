/// The tracks that give a `loudness` (or a `name` another track's loudness refers to), recorded as they stand
/// now, their drift applied and before later passes add bed gains, ducking or shared files: the job measures
/// each alone and sets its gain (`LoudnessMeasuring.applyTrackLoudness`). The planner never renders.
struct TrackLoudnessPass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        let named = draft.tracks.indices.compactMap { t -> TrackLoudnessRequest? in
            guard let spec = draft.tracks[t].spec, let index = draft.tracks[t].index, spec.loudness != nil || spec.name != nil else { return nil }
            return TrackLoudnessRequest(track: t, solo: draft.tracks[t].planned, spec: spec, jsonPath: "tracks[\(index)]")
        }
        draft.trackLoudness = named.contains { $0.spec.loudness != nil } ? named : []
    }
}
