import MixDSP

/// A session's voice: its segments become one track, `voice`, that speaks (so it is never ducked), and its
/// sections and segments go on the timeline. A mix has none.
struct SessionVoicePass: PlanPass {
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        guard let layout = draft.layout else { return }
        draft.timeline.sections = layout.sections
        draft.timeline.segments = layout.segments.map(\.segment)
        let events = layout.segments.map(\.event).sorted { $0.start < $1.start }
        guard !events.isEmpty else { return }
        let total = draft.frameCount
        let track = PlannedTrack(name: "voice", start: events.map(\.start).min()!, end: min(events.map(\.end).max()!, total),
                                 events: events.map { $0.cut(at: total) }.filter { $0.end > $0.start },
                                 gains: GainStack(), balance: balanceGains(pan: draft.voice.pan, channelCount: draft.context.channelCount))
        draft.tracks.append(PlanDraft.Track(planned: track, spec: nil, index: nil, speaks: true, bedGains: []))
        draft.speech += layout.segments.flatMap(\.segment.speech)
    }
}
