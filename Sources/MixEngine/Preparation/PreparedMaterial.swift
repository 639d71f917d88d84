import Dispatch
import Synchronization
import MixDSP

/// Decoded and resampled material (looped files, a looping playlist's items), made once and shared by
/// every render that is given this object: a measuring pass and the real render of one plan, or the
/// renders of a batch that use the same files. Keyed by `MaterialKey` (what the file is, the output
/// rate and channels, the resampler quality, and the loop seam), so two plans that need the same
/// audio share it and a plan that needs other audio gets its own.
///
/// The caller keeps it for as long as renders should share it; dropping it frees the audio (held as
/// planar `Float`, `channelCount x frames x 4` bytes per entry). `prepare` makes what is missing on every
/// core (longest first) and returns at once when everything is there. Thread-safe: `prepare` and `source`
/// may be called from several threads; entries are immutable once made, and the sources they hold only
/// read while rendering.
///
/// Layout: a dictionary from `MaterialKey` to the shared `FrameSource` (for the built-in kinds a
/// `LoopSource` or `MemorySource` holding the audio), guarded by a `Mutex`, and a second `Mutex` held
/// for the whole of a `prepare`: two `prepare` calls run one after the other, even for unrelated
/// material. `prepare` allocates the audio of what it makes; `source(for:)` allocates nothing.
public final class PreparedMaterial: @unchecked Sendable {
    private let entries = Mutex<[MaterialKey: FrameSource]>([:])
    /// Held for the whole of a `prepare`, so two renders asking at once do not both make the same entry.
    private let preparing = Mutex<Void>(())

    public init() {}

    /// What one `prepare` did.
    /// A value of two `Int`s and a `Double`; allocates nothing. `Sendable`, safe to share.
    public struct Report: Sendable {
        /// Entries made by this call, and entries it found already made.
        public var made: Int
        public var reused: Int
        /// Wall-clock seconds the call took.
        public var seconds: Double
    }

    /// Makes the material `plan` needs that is not here yet; a second call for the same plan (or any plan
    /// whose material is all here) makes nothing.
    @discardableResult
    public func prepare(for plan: RenderPlan) throws -> Report {
        try prepare(plan.materialRequests, context: plan.voiceContext)
    }

    /// Makes the material for `requests` that is not here yet, in parallel across the machine's cores.
    @discardableResult
    public func prepare(_ requests: [any MaterialRequest], context: VoiceContext) throws -> Report {
        let clock = ContinuousClock()
        let started = clock.now
        return try preparing.withLock { _ in
            let known = entries.withLock { Set($0.keys) }
            var missing: [any MaterialRequest] = []
            var seen = known
            for request in requests where seen.insert(request.key).inserted { missing.append(request) }
            let reused = requests.count - missing.count

            let results = UnsafeMutableBufferPointer<Result<FrameSource, Error>?>.allocate(capacity: missing.count)
            results.initialize(repeating: nil)
            // Deinitialise too: deallocating alone would keep every loaded source (all of its audio) alive.
            defer { _ = results.deinitialize(); results.deallocate() }
            // Longest first, so that the last job a core picks up is a short one.
            let costs = missing.map(\.estimatedCost)
            let order = missing.indices.sorted { costs[$0] > costs[$1] }
            DispatchQueue.concurrentPerform(iterations: missing.count) { k in
                let i = order[k]
                results[i] = Result { try missing[i].load(context) }
            }
            var made: [MaterialKey: FrameSource] = [:]
            for (i, request) in missing.enumerated() { made[request.key] = try results[i]!.get() }
            entries.withLock { $0.merge(made) { old, _ in old } }
            return Report(made: missing.count, reused: reused, seconds: (clock.now - started).seconds)
        }
    }

    /// The material made for `key`, or nil if it has not been prepared.
    public func source(for key: MaterialKey) -> FrameSource? {
        entries.withLock { $0[key] }
    }

    /// The keys of everything held.
    public var keys: [MaterialKey] { entries.withLock { Array($0.keys) } }

    /// Forgets everything (renders still running keep what they hold).
    public func removeAll() { entries.withLock { $0.removeAll() } }
}
