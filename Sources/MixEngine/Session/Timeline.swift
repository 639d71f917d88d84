/// What happens when in a render, in frames, for an app to show progress and captions ("Deepener,
/// 4:12 left") and for `validate` to print: a session's sections and voice segments, where the bed is
/// ducked, how it ends, and what each track says about itself (a beat schedule, breathing phases).
/// Written as JSON by `--timeline` (`TimelineJSON`).
///
/// A value (`Sendable`, safe to share): arrays of small values; allocates only those when made.
public struct Timeline: Sendable {
    /// A named part of a session, `[start, end)`.
    public struct Section: Sendable, Equatable {
        public var name: String
        public var start: Int64
        public var end: Int64
        /// Frames added by stretching it to the requested length (0 when it keeps its natural length).
        public var addedFrames: Int64
    }

    /// One thing the voice says, `[start, end)`, with where its speech really is.
    public struct Segment: Sendable, Equatable {
        /// Index into `sections`.
        public var section: Int
        /// The words (text and SSML segments) or the recording's path.
        public var caption: String
        public var isText: Bool
        public var start: Int64
        public var end: Int64
        /// Where speech is, in frames of the timeline.
        public var speech: [Range<Int64>]
        /// The gain that brought it to the voice level, in dB.
        public var gainDb: Double
    }

    /// A stretch of time where the bed is ducked: going down over `[downFrom, down)`, down until `upFrom`,
    /// back up at `up`.
    public struct Ducked: Sendable, Equatable {
        public var downFrom: Int64
        public var down: Int64
        public var upFrom: Int64
        public var up: Int64
    }

    /// How a session ends: `sleep` (the fade over `[fadeFrom, end)`) or `wake` (the rise, then a chime at `chime`).
    public struct Ending: Sendable, Equatable {
        public var kind: String
        public var start: Int64
        public var end: Int64
        public var fadeFrom: Int64?
        public var chime: Int64?
    }

    public var sampleRate: Int
    public var frameCount: Int64
    public var sections: [Section] = []
    public var segments: [Segment] = []
    public var ducked: [Ducked] = []
    public var ending: Ending?
    /// What the tracks say about themselves, by track name, in track order.
    public var notes: [(track: String, note: TimelineNote)] = []

    public init(sampleRate: Int, frameCount: Int64) { self.sampleRate = sampleRate; self.frameCount = frameCount }

    /// The section named `name`, if there is one.
    public func section(named name: String) -> Section? { sections.first { $0.name == name } }
}

/// What a track adds to the timeline. A kind of source returns them in its `SourcePlan`.
/// A plain enum of values (`Sendable`, safe to share); allocates only its arrays and strings.
public enum TimelineNote: Sendable, Equatable {
    /// A frequency that follows a schedule: `what` is `beat` (binaural) or `pulse` (isochronic).
    case schedule(what: String, carrierHz: Double, points: [SchedulePoint])
    /// Each phase of each breathing cycle.
    case breathing(pattern: String, phases: [BreathingPhase])
    /// Words spoken at a time.
    case speech(text: String, start: Int64, end: Int64)
    /// A chime (a bell, a rising tone) sounding over `[start, end)`.
    case chime(sound: String, start: Int64, end: Int64)
    /// One-shot sounds played at random times (an `events` track), in order.
    case events([TimelineEvent])
}

/// One event of an `events` track: which file played over `[start, end)`, at what gain and pan.
/// A value; allocates only the file's name. `Sendable`.
public struct TimelineEvent: Sendable, Equatable {
    public var file: String
    public var start: Int64
    public var end: Int64
    public var gainDb: Double
    public var pan: Double
    public init(file: String, start: Int64, end: Int64, gainDb: Double, pan: Double) {
        self.file = file; self.start = start; self.end = end; self.gainDb = gainDb; self.pan = pan
    }
}

/// A point of a schedule, resolved: at `frame` the rate is `hz`. A value; allocates nothing.
public struct SchedulePoint: Sendable, Equatable {
    public var frame: Int64
    public var hz: Double
    public var curve: String
    public init(frame: Int64, hz: Double, curve: String) { self.frame = frame; self.hz = hz; self.curve = curve }
}

/// One phase of one breathing cycle, `[start, end)`: `inhale`, `hold`, `exhale` or `rest`. A value.
public struct BreathingPhase: Sendable, Equatable {
    public var name: String
    public var cycle: Int
    public var start: Int64
    public var end: Int64
    public init(name: String, cycle: Int, start: Int64, end: Int64) {
        self.name = name; self.cycle = cycle; self.start = start; self.end = end
    }
}
