import MixIO

/// Everything the planner looks up instead of reading: each file's `AudioFileInfo`, each text said and measured
/// (`Utterance`), each recording's analysis, each file decoded at the output rate. Made by the `Analyzer` from
/// a final `Preset`; `Planner.plan(_:analysis:)` only reads it. A request that failed holds its reason, which
/// the planner throws where it looks the entry up, naming that JSON path (so errors come in the order planning
/// meets them, as they did when planning read the files itself). An entry planning looks for and does not find
/// is a programming error (a kind that plans from something it did not ask for).
///
/// A value of dictionaries (`Sendable`, safe to share); decoded audio is shared, never written, and utterances
/// share their samples.
public struct Analysis: Sendable {
    /// Why a request failed: the message planning puts after the JSON path.
    struct Failure: Error, Sendable {
        let message: String
    }

    /// A text said, measured, and what keeping it in (or taking it from) the `--cache-dir` store warned.
    struct Spoken: Sendable {
        var utterance: Utterance
        var warnings: [String]
    }

    var files: [String: Result<AudioFileInfo, Failure>] = [:]
    /// The request each text asked for became (`AnalysisRequests.speechRequests`): what planning finds its entry by.
    var speechRequests: [SpeechRequest.Asked: SpeechRequest] = [:]
    var speech: [SpeechRequest: Result<Spoken, Failure>] = [:]
    var recordings: [RecordingRequest: Result<Utterance, Failure>] = [:]
    /// Absent for a file longer than its request's limit (it was not decoded).
    var decoded: [DecodeRequest.Key: Result<PreparedAudio, Failure>] = [:]
    /// How much speech this analysis said, and how long that took.
    public var synthesis = SynthesisStats()
    /// What this analysis made itself rather than took from the `PreparedMaterial`'s analyses.
    public var made = Counts()

    /// How many requests an analysis made (and so did not find made before). A value (`Sendable`).
    public struct Counts: Sendable, Equatable {
        /// Texts synthesised (or taken from the `--cache-dir` store) and measured.
        public var texts = 0
        /// Recordings decoded and measured.
        public var recordings = 0
        /// Files decoded whole at the output rate.
        public var decodes = 0
        public init() {}
    }

    /// An analysis with nothing in it but `files` (a test plans from files that need not exist).
    public init(files: [String: AudioFileInfo] = [:]) {
        self.files = files.mapValues { .success($0) }
    }
}

/// Speech synthesised in the analysis phase: seconds of speech made and the wall-clock seconds it took.
/// A value of two `Double`s; allocates nothing. `Sendable`.
public struct SynthesisStats: Sendable, Equatable {
    public var speechSeconds = 0.0
    public var wallSeconds = 0.0
    public init() {}
}
