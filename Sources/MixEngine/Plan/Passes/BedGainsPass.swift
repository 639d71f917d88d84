/// Gains a kind puts on the bed (`SourcePlan.bedGains`: a breathing pacer that swells it) go on every other
/// track that does not speak.
struct BedGainsPass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        let speaking = draft.speaking
        for from in draft.tracks.indices where !draft.tracks[from].bedGains.isEmpty {
            for t in draft.tracks.indices where t != from && !speaking.contains(t) {
                draft.tracks[t].planned.gains.envelopes += draft.tracks[from].bedGains
            }
        }
    }
}
