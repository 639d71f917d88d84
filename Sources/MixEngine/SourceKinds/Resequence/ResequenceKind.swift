import MixDSP
import MixIO

/// `"resequence": {"file": "rain.ogg", "segment": ["20s", "45s"], "region": ["0:05", "1:55"],
/// "crossfade": "3s", "seed": 7}`: a recording played not as a loop but as an endless stream of randomly
/// chosen segments of it, each crossfaded into the next, so hours of bed made from two minutes of sound
/// have no period to notice. A segment never starts within the shortest segment's length of where the one
/// before it started, so none repeats the one before it. See README.md beside this file.
///
/// The analysis decodes the file once (at most `maximumFileSeconds`: 10 minutes, 230 MB at 48 kHz stereo until
/// it is planned, then freed) to a mono downmix, and lays out the segments from the seed: each a length within
/// `segment`, a place in `region`, moved by at most
/// `searchSeconds` to where its opening best correlates with what the outgoing segment plays in the middle
/// of their crossfade (`JoinSearch`). Each segment is an event reading the file, decoded once before the
/// render and held in memory (`PreparedFile`), with the crossfade's gains, as a playlist's items.
///
/// A value: a path, ranges and a fade; allocates only the path. `Sendable`; `plan` runs on the planning thread.
public struct ResequenceKind: DeclaredSourceKind {
    public static let key = "resequence"
    public static let canLoop = false
    public static let defaultSegment = 20.0...45.0
    public static let defaultCrossfade = FadeSpec(seconds: 3, curve: .equalPower)
    public static let maximumFileSeconds = 600.0
    /// The shortest segment, and the most segments a track may play (each is an event).
    public static let minimumSegmentSeconds = 1.0
    public static let maximumSegments = 100_000
    /// How far a segment's start may move to join in phase, and the window compared.
    public static let searchSeconds = 0.005
    public static let windowSeconds = 0.010

    public var path: String
    public var segment: ClosedRange<Double>
    /// Seconds of the file to take segments from; nil: all of it.
    public var region: ClosedRange<Double>?
    public var crossfade: FadeSpec
    /// nil: a hash of the track's JSON path.
    public var seed: UInt64?

    public init(path: String, segment: ClosedRange<Double> = ResequenceKind.defaultSegment, region: ClosedRange<Double>? = nil,
                crossfade: FadeSpec = ResequenceKind.defaultCrossfade, seed: UInt64? = nil) {
        self.path = path; self.segment = segment; self.region = region; self.crossfade = crossfade; self.seed = seed
    }

    /// Its settings, declared once for the reader and the schema (defaults from `init`), with the layout's seed
    /// as every kind that plays at random takes it (`layoutSeed`).
    static var settings: DeclaredSettings<ResequenceKind> {
        let t = TimeParser.string(fromSeconds:)
        return DeclaredSettings(description: "A recording played as an endless stream of random segments of it, crossfaded at correlation-chosen points, laid out from a seed at planning.",
                     defaults: ResequenceKind(path: ""), settings: [
            .path("file", \.path, required: "the recording to take segments from", "The recording (at most \(t(maximumFileSeconds)); it is decoded into memory)."),
            .timeRange("segment", \.segment, in: minimumSegmentSeconds...3600, "Length of each segment: a time or [shortest, longest], each at least \(t(minimumSegmentSeconds))."),
            .timeRange("region", \.region, in: 0...maximumFileSeconds, "The part of the file to take segments from: [from, to]; default: all of it."),
            .crossfade("crossfade", \.crossfade, "The crossfade at each join; shorter than the shortest segment."),
            .layoutSeed(\.seed),
        ], finish: { object, kind in
            if let region = kind.region, region.upperBound <= region.lowerBound, let cursor = object["region"] {
                throw cursor.error("the region must end after it starts")
            }
            guard kind.crossfade.seconds < kind.segment.lowerBound else {
                throw (object["crossfade"] ?? object["segment"] ?? object.cursor).error("the crossfade (\(t(kind.crossfade.seconds))) must be shorter than the shortest segment (\(t(kind.segment.lowerBound)))")
            }
        })
    }

    enum Stream: UInt64 { case length = 1, place }

    /// The file probed, and decoded at the output rate when it is short enough to resequence.
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {
        requests.decoded(path, isCircular: false,
                         longestFrames: Int64((Self.maximumFileSeconds * Double(requests.format.sampleRate)).rounded(.down)))
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let fileKey = "\(Self.key).file"
        let length = try track.length(of: path, key: fileKey)
        let info = try track.file(path, key: fileKey)
        let t = TimeParser.string(fromSeconds:)
        guard Double(length) <= Self.maximumFileSeconds * Double(track.sampleRate) else {
            throw track.error(fileKey, "'\(RandomSettings.fileName(path))' is \(track.seconds(frames: length)) long; resequencing decodes the file into memory and takes files up to \(t(Self.maximumFileSeconds)): cut the part to use into a file of its own")
        }
        let r0 = track.frames(region?.lowerBound ?? 0), r1 = region.map { track.frames($0.upperBound) } ?? length
        guard r1 <= length else {
            throw track.error("\(Self.key).region", "ends at \(t(region!.upperBound)), after the end of the file (\(track.seconds(frames: length)))")
        }
        let x = track.frames(crossfade.seconds)
        let shortest = track.frames(segment.lowerBound), longest = track.frames(segment.upperBound)
        let radius = Int(track.frames(Self.searchSeconds))
        // Room for the longest segment and its search, and for starts a shortest segment either side of another's.
        let needed = longest + x + 2 * shortest + 2 * Int64(radius)
        guard r1 - r0 >= needed else {
            throw track.error(region == nil ? fileKey : "\(Self.key).region", "\(track.seconds(frames: r1 - r0)) to take segments from; segments up to \(t(segment.upperBound)) with a \(t(crossfade.seconds)) crossfade need at least \(track.seconds(frames: needed)) (the longest segment and its crossfade, plus twice the shortest, so that no segment repeats the one before it)")
        }
        let limit = min(track.explicitEnd ?? track.frameCount, track.frameCount)
        guard (limit - track.start) / shortest < Int64(Self.maximumSegments) else {
            throw track.error("\(Self.key).segment", "the track would play more than \(Self.maximumSegments) segments; give longer segments")
        }
        let mono = try downmix(track)
        let seed = self.seed ?? RandomSettings.defaultSeed(track.jsonPath)
        let window = max(Int(track.frames(Self.windowSeconds)), 1)
        let material = PreparedFile(file: info, context: track.context)

        var events: [PlannedEvent] = []
        var position = track.start
        var previous: (start: Int64, span: Int64)? = nil
        var k = 0
        while position < limit {
            let n = shortest + Int64((SeededRandom.unit(seed: seed, stream: Stream.length.rawValue, index: UInt64(k)) * Double(longest - shortest + 1)).rounded(.down))
            let span = n + x                                   // what the event reads: its segment and the crossfade after it
            let u = SeededRandom.unit(seed: seed, stream: Stream.place.rawValue, index: UInt64(k))
            let lo = r0 + Int64(radius), hi = r1 - span - Int64(radius)   // starts whose search stays in the region
            var start: Int64
            if let previous {
                // Uniform over the starts at least the shortest segment away from the previous one's.
                let fLo = max(lo, previous.start - shortest + 1), fHi = min(hi, previous.start + shortest - 1)
                let forbidden = max(0, fHi - fLo + 1)
                start = lo + Int64((u * Double(hi - lo + 1 - forbidden)).rounded(.down))
                if forbidden > 0 && start >= fLo { start += forbidden }
                let outgoing = Int(previous.start + previous.span - x)   // source frame the outgoing plays when this starts
                let candidates = Int(start) - radius...Int(start) + radius
                let ps = previous.start
                start = Int64(mono.withUnsafeBufferPointer {
                    JoinSearch.bestStart(material: $0, outgoing: outgoing, candidates: candidates, windowFrom: Int(x) / 2 - window / 2,
                                         window: window, isAllowed: { c in abs(Int64(c) - ps) >= shortest }, fallback: Int(start))
                })
            } else {
                start = lo + Int64((u * Double(hi - lo + 1)).rounded(.down))
            }
            var envelopes: [Envelope] = []
            if k > 0 && x > 0 { envelopes.append(.fadeIn(start: position, length: x, curve: crossfade.curve)) }
            if x > 0 { envelopes.append(.fadeOut(end: position + span, length: x, curve: crossfade.curve)) }
            events.append(PlannedEvent(start: position, end: position + span, sourceOffset: start, material: material,
                                       gains: GainStack(envelopes: envelopes)))
            previous = (start, span)
            position += n
            k += 1
        }
        return SourcePlan(events: events, end: limit)
    }

    /// The file at the output rate, averaged to one channel, for choosing the joins.
    private func downmix(_ track: TrackPlanning) throws -> [Float] {
        let decoded = try track.decoded(path, isCircular: false, key: "\(Self.key).file")
        let (audio, length) = (decoded.audio, decoded.length)
        var mono = [Float](repeating: 0, count: length)
        let k = 1 / Float(audio.channelCount)
        mono.withUnsafeMutableBufferPointer { m in
            for c in 0..<audio.channelCount { Kernels.addScaled(audio.channel(c).baseAddress!, by: k, into: m.baseAddress!, count: length) }
        }
        return mono
    }
}

extension SourceSpec {
    /// A recording played as a stream of random segments (`ResequenceKind`), with the kind's settings: `.resequence(ResequenceKind(...))`.
    public static func resequence(_ kind: ResequenceKind) -> SourceSpec { SourceSpec(kind) }
}
