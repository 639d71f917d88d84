import MixDSP

/// The plan while it is built: the tracks the kinds planned, what each said about itself, and what the plan
/// passes (`PlanPass`) add. The `Planner` makes one, runs every pass of `PlanPasses.all` over it in order,
/// and builds the `RenderPlan` from it once.
///
/// A value of arrays; allocates only those. Used on the planning thread, during `Planner.plan`.
struct PlanDraft {
    /// One planned track and what its kind said about it.
    struct Track {
        var planned: PlannedTrack
        /// The preset's track it came from and that track's index; nil for a track a pass added (the
        /// session's voice, the wake ending's chime).
        var spec: TrackSpec?
        var index: Int?
        /// Its kind speaks (`SourcePlan.speech`): it is never ducked, nor swelled by another's bed gains.
        var speaks: Bool
        /// Gains its kind puts on the bed (the other tracks that do not speak): `SourcePlan.bedGains`.
        var bedGains: [Envelope]
    }

    var tracks: [Track] = []
    /// Where the render speaks, in frames of the timeline: the ducking follows it.
    var speech: [Range<Int64>] = []
    /// The tracks whose gain the job sets by measuring them (`LoudnessMeasuring.applyTrackLoudness`), each as it
    /// stood when `TrackLoudnessPass` recorded it.
    var trackLoudness: [TrackLoudnessRequest] = []
    /// The master gain's envelopes: fades, a sleep ending's fade.
    var masterEnvelopes: [Envelope]
    var timeline: Timeline
    /// A session's layout (its sections, its voice's segments, its ending); nil for a mix.
    let layout: SessionLayout?
    /// The render's length in frames, a loopable render's crossfade past the end included.
    let frameCount: Int64
    let context: RenderFormat
    /// The preset's voice settings (its ducking, its pan).
    let voice: NarrationSpec

    /// The indices of the tracks that speak, or that a pass added to speak (the session's voice).
    var speaking: Set<Int> { Set(tracks.indices.filter { tracks[$0].speaks }) }
}
