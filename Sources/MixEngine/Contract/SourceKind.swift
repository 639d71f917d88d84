import MixDSP

/// A kind of source a track can play (a file, a playlist, noise, a tone, ...): its settings as read from
/// the preset, and how they become events on the timeline.
///
/// Everything about a kind lives in its folder under `SourceKinds/`: this conformance (reading and
/// checking its JSON with JSON paths, planning it into frames), the `EventMaterial` its events play (DSP
/// that is pure goes in MixDSP), and its `README.md`, the doc section that docs/presets.md links to.
/// A kind becomes known to the preset reader and the planner by one line in `SourceKinds.all`.
///
/// A conforming type is a value (its settings), `Sendable` and `Equatable`; it holds no audio.
/// `plan` may allocate but reads nothing: what it looks up (files, speech, decoded audio) it asks for first in
/// `analysisRequests`, and the analysis phase makes. It runs on the planning thread and must not keep or pass
/// on its `TrackPlanning` (which shares the planner's unsynchronised state).
public protocol SourceKind: Sendable, Equatable {
    /// The track key that selects this kind and holds its settings: `file`, `generator`, `playlist`, `tone`.
    static var key: String { get }
    /// Whether it sounds for ever (a generator): it cannot loop, and its fades are checked against the
    /// rest of the render when the track has no `end`.
    static var isEndless: Bool { get }
    /// Whether a track of this kind may `loop` (a file or a playlist; not a generator, a text, a chime).
    static var canLoop: Bool { get }
    /// Whether its sound needs each output channel coded on its own (binaural beats: one tone per ear), so
    /// an output that codes channels jointly at a low bitrate is refused. False unless a kind says so.
    static var needsSeparateChannels: Bool { get }

    /// What planning a track of this kind looks up, added to `requests` (files to probe, texts to say, files to
    /// decode at the output rate); `loop` is the track's. Nothing, unless a kind says so.
    func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?)

    /// Places the track's events on the timeline, in frames. `track` says where the track starts and
    /// may end, whether it loops, and gives the planning services (frames from seconds, what the analysis
    /// found, warnings).
    func plan(_ track: TrackPlanning) throws -> SourcePlan

    /// How long it sounds from its track's start when the track gives no end, in seconds, when that is
    /// known before planning (a chime's ring): a session lays out its ending around it. nil: as long as the
    /// track (a generator) or only known by planning (a file).
    var soundingSeconds: Double? { get }
}

/// A kind that one word can stand for where a session names a sound (the wake ending's `"chime": "rise"`):
/// the session reads the word through `SourceKindRegistry.sound(_:kind:allowingNone:)`, so it never names the kind's type.
protocol WordReadableSourceKind: ReadableSourceKind {
    /// The words it takes, in the order messages list them.
    static var words: [String] { get }
    /// The kind's default settings for `word` (one of `words`).
    init?(word: String)
}

/// The part of a kind that reads the preset (internal, because the JSON cursor is): every registered kind
/// conforms to it.
protocol ReadableSourceKind: SourceKind {
    /// Reads and checks the settings at `cursor` (the track's member `key`); problems are `PresetError`s
    /// naming the JSON path. `reader` resolves paths and reads the shared shapes (fades, times).
    static func read(_ cursor: JSONCursor, reader: any SourceReader) throws -> Self
    /// The keys its settings object allows, in the order messages list them; nil when the settings are
    /// not an object (`file` takes a path).
    static var settingsKeys: [String]? { get }
    /// What the JSON schema (`docs/preset.schema.json`, `PresetSchema`) says of its settings: its `$defs` entry.
    static var schema: SchemaValue { get }
}

extension ReadableSourceKind {
    static var settingsKeys: [String]? { nil }
}

/// A kind's events for one track, and where the track's sound ends (before the render's end is applied).
/// A value: an array of events and an `Int64`; allocates only the array. `Sendable`, safe to share.
public struct SourcePlan: Sendable {
    public var events: [PlannedEvent]
    public var end: Int64
    /// Where the track speaks, in frames of the timeline: the bed ducks under it (`event.ducking`), and
    /// the track itself is not ducked.
    public var speech: [Range<Int64>] = []
    /// Gains for the other tracks that are not events (the bed): a breathing pacer that swells the bed.
    public var bedGains: [Envelope] = []
    /// What the timeline (`--timeline`) shows of it: a beat schedule, breathing phases, the words spoken.
    public var notes: [any TimelineNote] = []
    public init(events: [PlannedEvent], end: Int64) { self.events = events; self.end = end }
}

extension SourceKind {
    public static var isEndless: Bool { false }
    public static var canLoop: Bool { !isEndless }
    public static var needsSeparateChannels: Bool { false }
    public var soundingSeconds: Double? { nil }
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {}

    /// Whether `other` is the same kind with the same settings.
    func isEqual(to other: any SourceKind) -> Bool { (other as? Self) == self }
}

/// A track's source: one kind's settings (type-erased so `TrackSpec` can hold any kind).
/// A value holding one existential `SourceKind`; allocates only what the kind holds (and a box when
/// the kind is too large to store inline). `Sendable`, safe to share.
public struct SourceSpec: Sendable, Equatable {
    public let kind: any SourceKind
    public init(_ kind: some SourceKind) { self.kind = kind }

    /// The JSON key of its kind.
    public var key: String { type(of: kind).key }
    /// Whether its kind needs each output channel coded on its own (`SourceKind.needsSeparateChannels`).
    public var needsSeparateChannels: Bool { type(of: kind).needsSeparateChannels }

    public static func == (a: SourceSpec, b: SourceSpec) -> Bool { a.kind.isEqual(to: b.kind) }
}
