import MixDSP
import MixIO

/// The voice part of a preset that makes it a session (see docs/sessions.md): narration in named
/// sections over the preset's tracks (the bed), and how the session ends.
///
/// A value (`Sendable`, safe to share): arrays of sections and segments, strings and numbers; it
/// allocates only those when made. Times are seconds, as everywhere in a `Preset`; the planner
/// (`SessionPlanner`) turns them into frames once the voice's lengths are known.
public struct SessionSpec: Sendable, Equatable {
    public var sections: [SectionSpec]
    public var ending: EndingSpec?
    public init(sections: [SectionSpec], ending: EndingSpec? = nil) { self.sections = sections; self.ending = ending }
}

/// One named part of a session (induction, deepener, ...): voice segments in order, and how the
/// section takes part in a fixed-length render.
/// A value: a name, numbers and an array of segments; allocates only those. `Sendable`, safe to share.
public struct SectionSpec: Sendable, Equatable {
    public var name: String
    /// Whether the section grows when the session is rendered to a fixed `duration` (its bed, tones and
    /// pacer run longer; its time added goes where `pacing` says).
    public var stretch: Bool = false
    /// Where a stretching section's added time goes (`SectionPacing`).
    public var pacing: SectionPacing = .even
    /// The shortest a pause after a segment becomes when the section stretches (filled first); 0 for none.
    public var shortestPauseSeconds: Double = 0
    /// The longest a pause after a segment (but the last) may become when the section stretches; nil for none.
    public var longestPauseSeconds: Double?
    /// The shortest the section lasts, voice or not (a section of breathing with no words needs one).
    public var minimumSeconds: Double = 0
    public var segments: [SegmentSpec]
    public init(name: String, stretch: Bool = false, minimumSeconds: Double = 0, segments: [SegmentSpec]) {
        self.name = name; self.stretch = stretch; self.minimumSeconds = minimumSeconds; self.segments = segments
    }
}

/// Where a stretching section puts the time it gains: spread over the pauses after its segments (the
/// last one running to the section's end), evenly or by weights, or all after the last segment.
///
/// `even` is the default: a script of three suggestions in a 16-minute section is heard across the 16
/// minutes, one every five, rather than in its first minute followed by fifteen of bed alone, which is what
/// authors mean when they let a section fill a length; `end` keeps the voice's own timing (a breathing section
/// whose cue must stay right after its introduction).
public enum SectionPacing: Sendable, Equatable {
    case even
    case end
    /// One weight per segment: the share of the added time the pause after it gets.
    case weights([Double])

    /// The frames each pause gets of `extra`: `natural[k]` is the pause after segment k as laid out (the last
    /// runs to the section's end). `shortest` pauses are filled first (in order, while time lasts), the rest
    /// is shared by weight (whole frames, the last pause taking the odd ones), and a pause that would pass
    /// `longest` gives its excess to the others by weight; what no pause can take goes to the last one.
    func added(to natural: [Int64], extra: Int64, shortest: Int64, longest: Int64?) -> [Int64] {
        let n = natural.count
        guard n > 0, extra > 0 else { return [Int64](repeating: 0, count: n) }
        var added = [Int64](repeating: 0, count: n)
        let weights: [Double]
        switch self {
        case .end:
            added[n - 1] = extra
            return added
        case .even: weights = [Double](repeating: 1, count: n)
        case .weights(let given): weights = given
        }
        var left = extra
        for k in 0..<n where left > 0 && natural[k] < shortest {
            let fill = min(shortest - natural[k], left)
            added[k] += fill
            left -= fill
        }
        // Pauses that may still grow: all but those at `longest` (the last always may, as the section's end).
        var open = Set(0..<n)
        while left > 0 {
            let shares = open.filter { weights[$0] > 0 }.sorted()
            guard !shares.isEmpty else { added[n - 1] += left; break }
            let total = shares.reduce(0.0) { $0 + weights[$1] }
            var given: Int64 = 0
            var next = added
            for (i, k) in shares.enumerated() {
                let share = i == shares.count - 1 ? left - given : Int64((Double(left) * weights[k] / total).rounded(.down))
                next[k] += share
                given += share
            }
            left = 0
            if let longest {
                for k in shares where k != n - 1 && natural[k] + next[k] > longest {
                    let keep = max(added[k], longest - natural[k])
                    left += next[k] - keep
                    next[k] = keep
                    open.remove(k)
                }
            }
            added = next
        }
        return added
    }
}

/// One thing the voice says: a recording or a text to speak, and where it goes.
/// A value: the source, optional times and a gain; allocates only the text or path. `Sendable`, safe to share.
public struct SegmentSpec: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// A recording (its path resolved against the preset's folder).
        case file(path: String)
        /// Text spoken aloud (the neural voice or espeak-ng); `ssml` says whether it is SSML markup (`<break time="2s"/>`).
        case text(String, ssml: Bool, settings: SpeechSettings)
    }
    public var source: Source
    /// Silence before the segment, after the previous one (or the section's start).
    public var gapBefore: Double = 0
    /// Silence after it, before the next one.
    public var pauseAfter: Double = 0
    /// A fixed time instead of following the previous segment: on the session's timeline as written
    /// (before any section stretches; it moves with its section when an earlier one does).
    public var atSeconds: Double?
    /// A correction after levelling, in dB.
    public var gainDb: Double = 0
    /// A recording's words as it says them (English): aligned with it for the timeline's word times (`WordAligner`).
    public var transcript: String?
    public init(source: Source) { self.source = source }
}

/// How a session ends, after the last words.
/// A plain enum of values (`Sendable`, safe to share); allocates nothing.
public enum EndingSpec: Sendable, Equatable {
    /// The sleep timer: the bed plays on for `holdSeconds`, then everything fades out over `fade`.
    case sleep(holdSeconds: Double, fade: FadeSpec)
    /// The bed and beats rise by `riseDb` over `riseSeconds`, then a chime sounds (a source of the `chime` kind,
    /// read from its word) and the session ends.
    case wake(riseSeconds: Double, riseDb: Double, chime: SourceSpec?)
}
