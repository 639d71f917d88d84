import MixDSP

/// The voice's `ducking`: where the render speaks, the tracks that duck (`ducks`, and do not speak) go down
/// by a gain envelope (`Ducking` in MixDSP), and the timeline shows where.
struct DuckingPass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        guard let spec = draft.voice.ducking else { return }
        let frames = session.frames
        let duck = Ducking(depth: Float(gain(fromDecibels: spec.depthDb)), lookahead: frames(spec.lookaheadSeconds),
                           attack: min(frames(spec.attackSeconds), frames(spec.lookaheadSeconds)),
                           hold: frames(spec.holdSeconds), release: frames(spec.releaseSeconds),
                           attackCurve: spec.attackCurve, releaseCurve: spec.releaseCurve)
        let spans = duck.spans(draft.speech)
        if let envelope = duck.envelope(spans) {
            for t in draft.tracks.indices where !draft.tracks[t].speaks && draft.tracks[t].spec?.ducks == true {
                draft.tracks[t].planned.gains.envelopes.append(envelope)
            }
        }
        draft.timeline.ducked = spans.map { Timeline.Ducked(downFrom: $0.downFrom, down: $0.down, upFrom: $0.upFrom, up: $0.up) }
    }
}
