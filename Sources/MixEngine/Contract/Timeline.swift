import MixIO

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
        /// The voice that said it (`kokoro:jf_alpha`); nil for a recording.
        public var voice: String? = nil
        /// Each sentence it says, in frames of the timeline, when its voice says where they are.
        public var sentences: [Range<Int64>] = []
        /// Each word it says, in frames of the timeline: an English voice's, and a recording's with a `transcript`
        /// (`WordAligner`); the words the aligner does not know are left out.
        public var words: [Word] = []
    }

    /// One word where it is said, `[start, end)`, as written in the text or transcript.
    public struct Word: Sendable, Equatable {
        public var text: String
        public var start: Int64
        public var end: Int64

        public init(text: String, start: Int64, end: Int64) { self.text = text; self.start = start; self.end = end }

        /// The same word `offset` frames later.
        func moved(by offset: Int64) -> Word { Word(text: text, start: start + offset, end: end + offset) }
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
    /// The voices heard, in the order first heard, with their licences and the credits an app shows with the audio.
    public var voices: [SpeechVoice] = []
    /// The words a voice found in no lexicon and read by rule, by the JSON path of the text they are in (a name
    /// said wrong is most likely among them; a `lexicon` entry fixes it). Only hibari-tts says.
    public var guessedWords: [(path: String, words: [String])] = []
    /// What the tracks say about themselves, by track name, in track order.
    public var notes: [(track: String, note: any TimelineNote)] = []

    public init(sampleRate: Int, frameCount: Int64) { self.sampleRate = sampleRate; self.frameCount = frameCount }

    /// The section named `name`, if there is one.
    public func section(named name: String) -> Section? { sections.first { $0.name == name } }
}

/// What a track adds to the timeline (a beat schedule, breathing phases, the words spoken). A kind of source returns
/// its notes in its `SourcePlan`, and each note writes itself into the `--timeline` document, so neither the
/// timeline nor `TimelineJSON` names a kind: a new kind's note is a type in its own folder.
/// Conforming types are values (`Sendable`, safe to share).
public protocol TimelineNote: Sendable {
    /// Its `type` in the timeline document: `schedule`, `breathing`, `speech`, `chime`, `events`.
    var type: String { get }
    /// Its members after `"track"` and `"type"` (`"text": "...", "start": {...}, "end": {...}`), times given by
    /// `times` (seconds and frames).
    func members(_ times: TimelineJSON.Times) -> [JSONValue.Member]
}
