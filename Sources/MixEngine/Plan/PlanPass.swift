/// One step that completes the plan after the kinds have placed their tracks: the drift of a track's gain
/// and pan, its loudness, a kind's bed gains, a session's voice and ending, the ducking, sharing the files
/// many events play. Each takes the plan being built and extends it; `PlanPasses.all` lists them in the
/// order they run, which is the one place that order is written.
///
/// A conforming type is a value holding nothing (its work is in `apply`); it runs on the planning thread.
protocol PlanPass: Sendable {
    /// Extends `draft`; `session` gives the planner's services (frames from seconds, warnings, the files looked up).
    func apply(to draft: inout PlanDraft, session: PlanningContext) throws
}

/// The plan passes, in the order they run. A pass's place in the list matters: gains are multiplied in the
/// order they are added (so the order keeps renders identical), the loudness of a track is measured with its
/// drift, and files are shared once every event is known.
/// A constant table (a `let`); any thread may read it.
enum PlanPasses {
    static let all: [any PlanPass] = [
        DriftPass(),
        TrackLoudnessPass(),
        BedGainsPass(),
        SessionVoicePass(),
        EndingPass(),
        DuckingPass(),
        SharedFilesPass(),
    ]
}
