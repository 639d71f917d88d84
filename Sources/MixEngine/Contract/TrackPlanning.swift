import MixDSP
import MixIO
import OrderedCollections

/// What a kind needs to plan one track: where the track sits on the timeline, and the planner's services.
/// Made by the `Planner` for each track; a kind reads it and returns a `SourcePlan`.
///
/// A value of the track's facts plus a reference to the planner's session (warnings, the files looked up so
/// far and the `Analysis` it looks them up in), which every copy shares and nothing guards: not `Sendable`,
/// use it only on the thread running `Planner.plan`, during that call. Making one allocates nothing; its
/// services read nothing from disk (what a kind looks up, it asked for in `SourceKind.analysisRequests`) and
/// allocate only messages.
public struct TrackPlanning {
    /// The track's JSON path, `tracks[2]`; a kind names its own keys below it (`tracks[2].file`).
    public let jsonPath: String
    /// The track's first frame.
    public let start: Int64
    /// The frame the preset's `end` gives, if it gives one.
    public let explicitEnd: Int64?
    /// The track's `loop`, if it loops.
    public let loop: LoopSpec?
    /// The render's length in frames, and its format.
    public let frameCount: Int64
    /// The output format events render in (rate, channels, resampler): what prepared material is keyed by.
    public let context: RenderFormat
    public var sampleRate: Int { context.sampleRate }
    public var channelCount: Int { context.channelCount }
    let session: PlanningContext

    /// round(seconds x rate)
    public func frames(_ seconds: Double) -> Int64 { session.frames(seconds) }

    /// "3.2 s", for warnings.
    public func seconds(frames: Int64) -> String { session.seconds(Double(frames) / Double(sampleRate)) }
    public func seconds(_ s: Double) -> String { session.seconds(s) }

    /// A warning about `key` below the track (`loop.crossfade`): the render goes ahead.
    public func warn(_ key: String, _ message: String) { session.warn("\(jsonPath).\(key)", message) }

    /// An error about `key` below the track (`tone.frequencyHz`).
    public func error(_ key: String, _ message: String) -> EngineError { session.error("\(jsonPath).\(key)", message) }

    /// What the file at `path` is (probed once in the analysis, however many tracks use it); its absence
    /// or a decoding problem is a `PresetError` at `tracks[i].<key>`.
    public func file(_ path: String, key: String) throws -> AudioFileInfo {
        try session.file(path, jsonPath: "\(jsonPath).\(key)")
    }

    /// The length at the output rate of the file at `path` (at least one frame, or an error at `key`).
    public func length(of path: String, key: String) throws -> Int64 {
        let info = try file(path, key: key)
        guard info.frameCount > 0 else {
            throw session.error("\(jsonPath).\(key)", "'\(path)' holds no audio (0 frames)")
        }
        let length = StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate, outputRate: sampleRate)
        guard length > 0 else {   // one frame at 192 kHz is none at 8 kHz
            throw session.error("\(jsonPath).\(key)", "'\(path)' is shorter than one frame at \(sampleRate) Hz")
        }
        return length
    }

    /// The file at `path` decoded whole at the output rate (circularly when `isCircular`), as the analysis made
    /// it (the kind asked for it with `AnalysisRequests.decoded`, and looks it up only when its file is within
    /// that request's limit); a decoding problem is an error at `key`. Shared: read it, never write it.
    public func decoded(_ path: String, isCircular: Bool, key: String) throws -> PreparedAudio {
        try session.decoded(path, isCircular: isCircular, jsonPath: "\(jsonPath).\(key)")
    }

    /// The frame `point` stands for: a time, or the start or end of a session's section (an unknown
    /// section, or a section in a preset without any, is an error at `key` below the track).
    public func frame(of point: TimelinePoint, key: String) throws -> Int64 {
        try session.frame(of: point, jsonPath: "\(jsonPath).\(key)")
    }
}

/// What planning one preset gathers besides the plan (warnings, the files it looked up), and the `Analysis`
/// it looks everything up in: it reads nothing itself.
final class PlanningContext {
    let presetFile: String
    let sampleRate: Int
    let channelCount: Int
    /// The preset's voice settings (levels, fades, speech defaults).
    let voice: NarrationSpec
    /// What the analysis phase found: every file, text, recording and decode planning looks up.
    let analysis: Analysis
    var warnings: [String] = []
    /// The files looked up so far (each one's warnings are given once): what `RenderPlan.sourceFiles` becomes.
    var files: [String: AudioFileInfo] = [:]
    /// A session's sections, once laid out (for `frame(of:)`); empty for a mix (a session has at least one).
    var sections: [Timeline.Section] = []
    /// The texts looked up so far, so what keeping each in the store warned is given once.
    var warnedSpeech: Set<SpeechRequest> = []
    /// The voices that said its texts, each once, in the order first heard: the plan's credits (`Timeline.voices`).
    var voices: OrderedSet<String> = []
    /// The voice warnings given (`SpeechRequest.voiceWarning`): each once per plan, at the first text it is about.
    var warnedVoices: Set<String> = []
    /// The words each text's voice had to guess, by the text's JSON path, each text once: `Timeline.guessedWords`.
    var guessedWords: [(path: String, words: [String])] = []

    init(presetFile: String, sampleRate: Int, channelCount: Int = 2, voice: NarrationSpec = NarrationSpec(), analysis: Analysis) {
        self.presetFile = presetFile
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.voice = voice
        self.analysis = analysis
    }

    /// `m:ss.mmm` (or `h:mm:ss.mmm`) of a frame position, for messages.
    func clock(_ frames: Int64) -> String { TimeParser.clock(Double(frames) / Double(sampleRate)) }

    func frame(of point: TimelinePoint, jsonPath: String) throws -> Int64 {
        switch point {
        case .seconds(let s):
            return frames(s)
        case .section(let name, let edge):
            guard let section = sections.first(where: { $0.name == name }) else {
                guard !sections.isEmpty else { throw error(jsonPath, "names the section \(JSONValue.quote(name)), but this preset has no 'sections'") }
                var message = "no section is named \(JSONValue.quote(name))"
                if let suggestion = NameSuggestion.closest(to: name, among: sections.map(\.name)) { message += " (did you mean '\(suggestion)'?)" }
                throw error(jsonPath, message + "; the sections are " + sections.map { "'\($0.name)'" }.joined(separator: ", "))
            }
            return edge == .start ? section.start : section.end
        }
    }

    func warn(_ path: String, _ message: String) { warnings.append("\(presetFile): \(path): \(message)") }

    func error(_ path: String, _ message: String) -> EngineError {
        .preset(PresetError(file: presetFile, jsonPath: path, message: message))
    }

    /// round(seconds x rate)
    func frames(_ seconds: Double) -> Int64 { Int64((seconds * Double(sampleRate)).rounded()) }

    /// "3.2 s", for messages.
    func seconds(_ s: Double) -> String { "\((s * 1000).rounded() / 1000) s" }

    func file(_ path: String, jsonPath: String) throws -> AudioFileInfo {
        if let known = files[path] { return known }
        guard let entry = analysis.files[path] else {
            preconditionFailure("'\(path)' was not analysed: its kind's analysisRequests did not ask for it (\(jsonPath))")
        }
        let info = try entry.mapError { error(jsonPath, $0.message) }.get()
        files[path] = info
        for warning in info.warnings { warn(jsonPath, "'\(path)': \(warning)") }
        return info
    }

    func decoded(_ path: String, isCircular: Bool, jsonPath: String) throws -> PreparedAudio {
        guard let entry = analysis.decoded[DecodeRequest.Key(path: path, isCircular: isCircular)] else {
            preconditionFailure("'\(path)' was not decoded in the analysis: its kind's analysisRequests did not ask for it, or for one this long (\(jsonPath))")
        }
        return try entry.mapError { error(jsonPath, $0.message) }.get()
    }
}
