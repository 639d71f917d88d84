import MixDSP
import MixIO

/// The one service that measures renders for their loudness, which the job calls between planning and writing
/// (the planner never renders): the gain of each track that gives a `loudness` (`applyTrackLoudness`, from what the
/// planner recorded in `RenderPlan.trackLoudness`), the master gain that normalises the render
/// (`normalisation`, `Normalisation`'s measuring passes), and a written file's loudness once decoded
/// (`decodedLoudness`, for the finishing step that measures and corrects a lossy file, `EncodedFileCorrection`).
///
/// A value: the preset's path (what errors name); allocates nothing itself. Each call renders on the calling
/// thread (the normalisation's passes on every core); `Sendable`, safe to share.
public struct LoudnessMeasuring: Sendable {
    /// The preset's path, which errors name.
    public let presetFile: String

    public init(presetFile: String) { self.presetFile = presetFile }

    /// The longest stretch of a track, from its start, measured for its `loudness`.
    static let trackLoudnessWindowSeconds = 120

    /// Sets the gain of each track of `plan` that gives a `loudness` (`plan.trackLoudness`, which it then empties):
    /// the track is rendered alone (its own gains at unity, its events' crossfades kept) over its first two minutes,
    /// measured before the limiter (EBU R128, gated, so silence before and between its sounds does not count), and
    /// given the gain that puts it at its loudness: an absolute one in LUFS, or one relative to another named
    /// track's loudness in the mix (that track's measure plus its gain, itself set by its own `loudness` if it has
    /// one). Errors name the track's JSON path.
    /// With `cache` (a `PreparedMaterial`'s `measurements`), a track measured before, alone and over the same window
    /// of the same render, is not measured again (nor, with the cache's store, one another process measured).
    public func applyTrackLoudness(to plan: inout RenderPlan, cache: MeasurementCache? = nil) throws {
        let named = plan.trackLoudness
        plan.trackLoudness = []
        guard named.contains(where: { $0.spec.loudness != nil }) else { return }
        let total = plan.frameCount, rate = plan.sampleRate
        func error(_ path: String, _ message: String) -> EngineError {
            .preset(PresetError(file: presetFile, jsonPath: path, message: message))
        }
        var measured: [Int: Double] = [:]
        func measure(_ entry: TrackLoudnessRequest) throws -> Double {
            if let known = measured[entry.track] { return known }
            var solo = entry.solo
            solo.gains = GainStack()
            let alone = RenderPlan(sampleRate: rate, channelCount: plan.channelCount, frameCount: total,
                                   resampler: plan.resampler, tracks: [solo], master: GainStack(), limiter: LimiterSpec(),
                                   timeline: Timeline(sampleRate: rate, frameCount: total))
            let window = solo.start..<min(solo.end, total, solo.start + Int64(Self.trackLoudnessWindowSeconds * rate))
            let loudness = try Self.measured("track loudness before the limiter", of: alone, range: window, files: plan.sourceFiles,
                                             in: cache) {
                try Normalisation.measure(alone, at: .beforeLimiter, material: PreparedMaterial(), range: window).loudness
            }.value
            guard loudness.isFinite else {
                throw error("\(entry.jsonPath).loudness", "the track is silent where it is measured (its first \(Self.trackLoudnessWindowSeconds / 60) minutes), so its loudness cannot be set")
            }
            measured[entry.track] = loudness
            return loudness
        }
        var resolving = Set<Int>()
        var levels: [Int: Double] = [:]   // each track's loudness in the mix, once known
        func level(_ entry: TrackLoudnessRequest) throws -> Double {
            if let known = levels[entry.track] { return known }
            let own = try measure(entry)
            let gainDb: Double
            switch entry.spec.loudness {
            case nil:
                gainDb = entry.spec.gainDb
            case .absolute(let target)?:
                gainDb = target - own
            case .relative(let name, let offset)?:
                guard let other = named.first(where: { $0.spec.name == name && $0.track != entry.track }) else {
                    let names = named.compactMap(\.spec.name).filter { $0 != entry.spec.name }
                    throw error("\(entry.jsonPath).loudness.track", "no other track is named \(JSONValue.quote(name))"
                                + (names.isEmpty ? "" : "; the named tracks are " + names.map { "'\($0)'" }.joined(separator: ", ")))
                }
                guard resolving.insert(entry.track).inserted else {
                    throw error("\(entry.jsonPath).loudness.track", "the tracks' loudness refer to each other in a circle")
                }
                gainDb = try level(other) + offset - own
            }
            guard gainDb <= 24 else {
                throw error("\(entry.jsonPath).loudness", "the track measures \(String(format1: own)) LUFS; sitting there needs "
                            + "+\(String(format1: gainDb)) dB, more than the +24 dB a track's gain may have")
            }
            if entry.spec.loudness != nil { plan.tracks[entry.track].gains.constant = Float(gain(fromDecibels: gainDb)) }
            levels[entry.track] = own + gainDb
            return own + gainDb
        }
        for entry in named where entry.spec.loudness != nil { _ = try level(entry) }
    }

    /// The master gain that brings `plan` to `spec`'s loudness, found by measuring passes before anything is
    /// encoded (they share `material`; `Normalisation.find`). `failure` words a target that cannot be reached.
    /// Found before for the same render (in `material.measurements`, or in its store, the `--cache-dir` folder, where
    /// another process put it), it is not measured again: the outcome is the one found then, its `seconds` and
    /// `cpuSeconds` zero (no pass ran) and `reusedFrom` saying where it was found. One read from the folder is taken
    /// only if it is one this spec could have found (`NormalisationOutcome.refusal(for:)`).
    public func normalisation(of plan: RenderPlan, to spec: LoudnessSpec, material: PreparedMaterial, blockFrames: Int,
                              failure: (String) -> EngineError) throws -> NormalisationOutcome {
        let what = "normalisation to \(spec.targetLUFS) LUFS, true peak \(spec.truePeakDb) dB, at most +\(spec.maximumGainDb) dB"
        var (outcome, reusedFrom) = try Self.measured(what, of: plan, range: 0..<plan.frameCount, files: plan.sourceFiles,
                                                      in: material.measurements, check: { $0.refusal(for: spec) }) {
            try Normalisation.find(plan: plan, spec: spec, material: material, blockFrames: blockFrames, failure: failure)
        }
        if reusedFrom != nil { (outcome.seconds, outcome.cpuSeconds) = (0, 0) }
        outcome.reusedFrom = reusedFrom
        return outcome
    }

    /// `measure()`'s value, or the one `cache` kept for the same measurement (`what`) of the same render, and where
    /// that was found (nil: `measure` ran): it always runs without a cache, or when the plan has no measurement key.
    /// With the cache's store, the folder is looked in under the stored key (`storedKey`), and what is measured kept there.
    private static func measured<T: StoredMeasurement>(_ what: String, of plan: RenderPlan, range: Range<Int64>, files: [String: AudioFileInfo],
                                                       in cache: MeasurementCache?, check: (T) -> String? = { _ in nil },
                                                       _ measure: () throws -> T) rethrows -> (value: T, reusedFrom: MeasurementCache.Place?) {
        guard let cache, let key = measurementKey(what, of: plan, range: range, files: files) else { return (try measure(), nil) }
        return try cache.value(key, what: what, storedKey: { storedKey(what, of: plan, range: range, files: files, cache: cache) },
                               check: check, measure: measure)
    }

    /// The key a measurement is kept under in the cache folder: `measurementKey`'s, with each source file standing
    /// for itself by its content (SHA-256, hashed once per cache) rather than its place on disk, so that another
    /// machine sharing the folder, whose copy of the file has another inode, finds it. nil when a file cannot be read.
    static func storedKey(_ what: String, of plan: RenderPlan, range: Range<Int64>, files: [String: AudioFileInfo],
                          cache: MeasurementCache) -> String? {
        guard let digests = cache.digests(of: files),
              let text = try? CacheKey.audioText(plan: plan, range: range, digests: digests) else { return nil }
        return ContentHash.of("measurement " + what + "\n" + text)
    }

    /// What decides measuring `range` of `plan`: `what` is measured, and the render key's text of that range
    /// (`CacheKey.audioText`: equal texts, equal renders), each source file standing for itself by its origin
    /// (`MaterialKey.origin(of:)`: which file on disk and what its header says) rather than its content's hash,
    /// which would mean reading it; hashed. nil when the plan plays a file `files` has no facts of.
    static func measurementKey(_ what: String, of plan: RenderPlan, range: Range<Int64>, files: [String: AudioFileInfo]) -> String? {
        guard let text = try? CacheKey.audioText(plan: plan, range: range, digests: files.mapValues { MaterialKey.origin(of: $0) }) else {
            return nil
        }
        return ContentHash.of(what + "\n" + text)
    }

    /// The loudness, range and true peak of the file at `path`, decoded: what a player will play. Measured by the
    /// render's own meter (`LoudnessTap`), which passes the same EBU compliance cases as libebur128 and reads the
    /// true peak about twenty times faster: with libebur128's, a five-minute Ogg took 1.9 s more to finish.
    public func decodedLoudness(ofFile path: String) throws -> LoudnessMeasurement {
        let reader = try AudioFile.open(path: path, purpose: .wholeFile)
        let tap = LoudnessTap(channelCount: reader.channelCount, sampleRate: reader.sampleRate)
        let frames = 8192
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * reader.channelCount)
        defer { buffer.deallocate() }
        let block = AudioBlock(channelCount: reader.channelCount, capacity: frames)
        var position: Int64 = 0
        while true {
            let count = try reader.read(into: buffer, frames: frames)
            if count == 0 { break }
            Kernels.deinterleave(buffer, channelCount: reader.channelCount, count: count, into: block)
            try tap.receive(block, offset: 0, count: count, at: position)
            position += Int64(count)
        }
        try tap.finish()
        return tap.measurement
    }
}
