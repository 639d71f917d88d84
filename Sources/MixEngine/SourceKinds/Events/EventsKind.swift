import MixDSP
import MixIO

/// `"events": {"files": ["owl.wav", "frog.wav"], "interval": ["40s", "3m"], "gainDb": [-18, -8],
/// "pan": [-0.8, 0.8], "overlap": false, "seed": 3}`: one-shot files played at random times. Each event
/// picks one of the files, a gap after the previous event's start within `interval`, a gain within
/// `gainDb` and a pan within `pan`, all drawn from the seed at planning (`SeededRandom`: event n's draws
/// depend only on the seed and n), so the timeline lists every event and a partial render is the slice of
/// the full one. Without `overlap`, an event never starts before the previous one has ended. See
/// README.md beside this file.
///
/// A value: an array of paths and a few ranges; allocates only those. `Sendable`; `plan` runs on the
/// planning thread.
public struct EventsKind: DeclaredSourceKind {
    public static let key = "events"
    public static let canLoop = false
    /// At most this many files to pick from.
    public static let maximumFiles = 64
    /// The shortest gap `interval` may give, and the most events a track may hold.
    public static let minimumIntervalSeconds = 0.5
    public static let maximumEvents = 100_000
    /// Files held in memory (decoded once, shared by every event): each up to this many bytes at the
    /// output rate, all of a track's together up to `heldBudgetBytes`; longer ones stream per event.
    public static let heldFileLimitBytes = 32 << 20
    public static let heldBudgetBytes = 256 << 20

    public var paths: [String]
    /// Seconds from one event's start to the next's.
    public var interval: ClosedRange<Double>
    public var gainDb: ClosedRange<Double>
    public var pan: ClosedRange<Double>
    public var overlap: Bool
    /// nil: a hash of the track's JSON path.
    public var seed: UInt64?

    public init(paths: [String], interval: ClosedRange<Double>, gainDb: ClosedRange<Double> = 0...0,
                pan: ClosedRange<Double> = 0...0, overlap: Bool = false, seed: UInt64? = nil) {
        self.paths = paths; self.interval = interval; self.gainDb = gainDb; self.pan = pan
        self.overlap = overlap; self.seed = seed
    }

    /// Its settings, declared once for the reader and the schema (defaults from `init`), with the layout's seed
    /// as every kind that plays at random takes it (`layoutSeed`).
    static var settings: DeclaredSettings<EventsKind> {
        DeclaredSettings(description: "One-shot files played at random times, each with a random gain and pan, laid out from a seed at planning.",
                     defaults: EventsKind(paths: [], interval: minimumIntervalSeconds...minimumIntervalSeconds), settings: [
            .files("files", \.paths, atMost: maximumFiles, required: "a list of at least one audio file",
                   none: "an events track needs at least one file", most: "an events track picks among at most",
                   "The files each event picks one of."),
            .timeRange("interval", \.interval, in: minimumIntervalSeconds...(24 * 3600),
                       required: "the time from one event to the next, such as [\"40s\", \"3m\"]",
                       "Time from one event's start to the next: a time, or [shortest, longest] (each at least \(TimeParser.string(fromSeconds: minimumIntervalSeconds)))."),
            .numberRange("gainDb", \.gainDb, in: -96...24, "Each event's gain in dB: a value or [low, high]."),
            .numberRange("pan", \.pan, in: -1...1, "Each event's pan, -1 (left) to 1 (right): a value or [low, high]."),
            .flag("overlap", \.overlap, "Whether an event may start before the previous one has ended."),
            .layoutSeed(\.seed),
        ])
    }

    /// Streams of `SeededRandom`: one per thing drawn, so each event's draws depend only on its number.
    enum Stream: UInt64 { case gap = 1, file, gain, pan }

    /// Every file probed.
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {
        for path in paths { requests.file(path) }
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let lengths = try paths.enumerated().map { k, path in try track.length(of: path, key: "\(Self.key).files[\(k)]") }
        // Short files are decoded once and shared by all their events, shortest first within the budget.
        var materials: [any EventMaterial] = paths.map { StreamedFile(path: $0) }
        var budget = Self.heldBudgetBytes
        for k in paths.indices.sorted(by: { lengths[$0] < lengths[$1] }) {
            let bytes = Int(clamping: lengths[k]) &* track.channelCount &* MemoryLayout<Float>.size
            guard bytes <= Self.heldFileLimitBytes && bytes <= budget else { continue }
            materials[k] = PreparedFile(file: try track.file(paths[k], key: "\(Self.key).files[\(k)]"), context: track.context)
            budget -= bytes
        }
        let seed = self.seed ?? RandomSettings.defaultSeed(track.jsonPath)
        func draw(_ stream: Stream, _ n: Int) -> Double { SeededRandom.unit(seed: seed, stream: stream.rawValue, index: UInt64(n)) }
        let limit = min(track.explicitEnd ?? track.frameCount, track.frameCount)
        let shortest = track.frames(interval.lowerBound), longest = track.frames(interval.upperBound)

        var events: [PlannedEvent] = []
        var heard: [TimelineEvent] = []
        var position = track.start
        var previousEnd = Int64.min
        var n = 0
        while true {
            // gap = shortest + u (longest - shortest), in whole frames
            position += shortest + Int64((draw(.gap, n) * Double(longest - shortest + 1)).rounded(.down))
            if !overlap { position = max(position, previousEnd) }
            guard position < limit else { break }
            guard n < Self.maximumEvents else {
                throw track.error("\(Self.key).interval", "the track's events would number more than \(Self.maximumEvents); give a longer interval")
            }
            let file = SeededRandom.below(paths.count, seed: seed, stream: Stream.file.rawValue, index: UInt64(n))
            let gainDb = gainDb.lowerBound + (gainDb.upperBound - gainDb.lowerBound) * draw(.gain, n)
            let pan = pan.lowerBound + (pan.upperBound - pan.lowerBound) * draw(.pan, n)
            let end = position + lengths[file]
            let balance = balanceGains(pan: pan, channelCount: track.channelCount)
            let material: any EventMaterial = balance.allSatisfy({ $0 == 1 }) ? materials[file] : PannedEvent(inner: materials[file], gains: balance)
            events.append(PlannedEvent(start: position, end: end, material: material,
                                       gains: GainStack(constant: Float(MixDSP.gain(fromDecibels: gainDb)))))
            heard.append(TimelineEvent(file: RandomSettings.fileName(paths[file]), start: position, end: min(end, limit),
                                        gainDb: gainDb, pan: track.channelCount == 2 ? pan : 0))
            previousEnd = end
            n += 1
        }
        var plan = SourcePlan(events: events, end: limit)
        plan.notes = [EventsNote(events: heard)]
        return plan
    }
}

/// One event's sound placed in the stereo field: what it plays, with the balance law's gains for its pan
/// (`ChannelGainSource`). A value (`Sendable`); its source is made per event, the file it plays shared.
struct PannedEvent: EventMaterial {
    let inner: any EventMaterial
    let gains: [Float]
    var preparation: (any MaterialRequest)? { inner.preparation }

    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        ChannelGainSource(try inner.makeSource(context, prepared: prepared), gains: gains)
    }

    func describe(into key: inout CacheKeyWriter) {
        inner.describe(into: &key)
        for (c, g) in gains.enumerated() { key.field("eventGain\(c)", g) }
    }
}

extension SourceSpec {
    /// One-shot files at random times (`EventsKind`), with the kind's settings: `.events(EventsKind(...))`.
    public static func events(_ kind: EventsKind) -> SourceSpec { SourceSpec(kind) }
}
