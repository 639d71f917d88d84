import MixDSP
import MixIO
import OrderedCollections

/// What a render needs found out before it can be laid out: the files to probe, the texts to synthesise, the
/// recordings to measure, the files to decode whole at the output rate. Each kind adds what its planning will
/// look up (`SourceKind.analysisRequests`), a session adds its segments' speech; the `Analyzer` makes them all.
/// Each request is kept once, in the order first asked for.
///
/// A value of arrays and sets (`Sendable`); allocates only those.
public struct AnalysisRequests: Sendable {
    /// The output format the plan will use: decoded files and utterances are measured at its rate.
    public let format: RenderFormat

    /// Each kept once, in the order first asked for.
    private(set) var files: OrderedSet<String> = []
    private(set) var texts: OrderedSet<SpeechRequest> = []
    /// The request each text asked for became, its voice chosen once, here (`SpeechRequest`).
    private(set) var speechRequests: [SpeechRequest.Asked: SpeechRequest] = [:]
    private(set) var recordings: OrderedSet<RecordingRequest> = []
    private(set) var decodes: [DecodeRequest] = []

    init(format: RenderFormat) { self.format = format }

    /// round(seconds x rate), as the planner converts times.
    public func frames(_ seconds: Double) -> Int64 { Int64((seconds * Double(format.sampleRate)).rounded()) }

    /// The file at `path` probed (`AudioFileInfo`): what `TrackPlanning.file` and `length` look up.
    public mutating func file(_ path: String) {
        files.append(path)
    }

    /// `text` said with `settings` and measured: what `TrackPlanning.clip` looks up.
    public mutating func speech(text: String, ssml: Bool, settings: SpeechSettings) {
        let asked = SpeechRequest.Asked(text: text, ssml: ssml, settings: settings)
        guard speechRequests[asked] == nil else { return }
        let request = SpeechRequest(text: text, ssml: ssml, settings: settings)
        speechRequests[asked] = request
        texts.append(request)
    }

    /// A recording played as speech, probed and measured (its speech level and where it speaks, and its words
    /// when it has a transcript).
    mutating func recording(_ request: RecordingRequest) {
        file(request.path)
        recordings.append(request)
    }

    /// The file at `path` decoded whole at the output rate (circularly, as a loop, when `isCircular`), when it
    /// is at most `longestFrames` long there: what `TrackPlanning.decoded` looks up. Asked twice with two limits,
    /// the longer one holds.
    public mutating func decoded(_ path: String, isCircular: Bool, longestFrames: Int64) {
        file(path)
        let key = DecodeRequest.Key(path: path, isCircular: isCircular)
        if let i = decodes.firstIndex(where: { $0.key == key }) {
            decodes[i].longestFrames = max(decodes[i].longestFrames, longestFrames)
        } else {
            decodes.append(DecodeRequest(key: key, longestFrames: longestFrames))
        }
    }
}

/// A recording played as speech: its path, and the words it says when they are given (`transcript`), to be aligned
/// with it (`WordAligner`). A value (`Sendable`).
struct RecordingRequest: Hashable, Sendable {
    let path: String
    let transcript: String?
}

/// A file decoded whole at the output rate: which file, and whether as a loop (`AnalysisRequests.decoded`).
/// A value (`Sendable`).
struct DecodeRequest: Sendable {
    struct Key: Hashable, Sendable {
        let path: String
        let isCircular: Bool
    }
    let key: Key
    /// Longer than this at the output rate, it is not decoded (planning does not use it, or refuses the file).
    var longestFrames: Int64
}
