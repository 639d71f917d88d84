import Dispatch
import Foundation
import MixDSP
import MixIO

/// Decoded and resampled material (looped files, a looping playlist's items), made once and shared by
/// every render that is given this object: a measuring pass and the real render of one plan, or the
/// renders of a batch that use the same files. Keyed by `MaterialKey` (what the file is, the output
/// rate and channels, the resampler quality, and the loop seam), so two plans that need the same
/// audio share it and a plan that needs other audio gets its own.
///
/// **Keeping and releasing.** A render that holds a `Lease` (from `lease(for:)`) keeps what its plan uses;
/// what no lease holds is kept while everything held fits in `budgetBytes`, and released least recently used
/// first beyond it. What leases hold is never released, so the budget also bounds what running renders hold:
/// `lease(for:)` first counts what holding the plan's material adds (what is missing, by
/// `MaterialRequest.expectedFrames`, and what is here that no lease holds) and **waits** while that and what
/// other leases hold (or are making) would pass the budget, holding nothing while it waits; a plan that adds
/// nothing (no material, or only what other leases hold) never waits. A lease whose material alone passes the budget is given
/// when no other lease holds anything, so it runs alone rather than never. This cannot deadlock: a waiting call
/// holds nothing, and every lease it waits for is held by a render that needs nothing more and will release it.
/// `prepare(for:)` makes material without a lease and never waits (a single render, or a render that already
/// holds its lease). Dropping the object frees everything (renders still running keep what they play).
///
/// **A store.** With a `MaterialStore` (a folder shared between processes), material is read from it when
/// there, and what is made is written to it, so a later process skips decoding and resampling. An entry that
/// fails the store's checks is removed, made again from its source, and named in one line in `damagedEntries`.
/// Loudness measurements are kept in the same store (`measurements`, `MeasurementCache`).
///
/// Making is on every core (longest first); a call whose material is all here returns at once. Thread-safe:
/// `prepare`, `lease` and `source` may be called from several threads; entries are immutable once made, and
/// the sources they hold only read while rendering.
///
/// Layout: a dictionary from `MaterialKey` to an entry (the shared `FrameSource`, its bytes, how many leases
/// hold it, when it was last used), guarded by a `Locked`, and a second `Locked` held while material is made:
/// two calls that both need to make something run one after the other; a condition (`NSCondition`) that leases
/// waiting for the budget sleep on, signalled whenever material is released. Allocates the audio of what it makes.
/// `@unchecked Sendable`, and safe: its mutable state is all inside `state` (a `Locked`), the condition is a lock
/// of its own, and the sources it hands out only read (`SharedSource`).
public final class PreparedMaterial: @unchecked Sendable {
    /// How many bytes of material may be held, by leases and between renders; `Int.max` bounds nothing.
    public let budgetBytes: Int
    public let store: MaterialStore?
    /// What analyses measured (utterances), kept for every render given this object (`Analyzer(material:)`).
    public let analyses = AnalysisCache()
    /// What measuring renders found (tracks' loudness, normalisations), kept by measurement key (and in `store`).
    public let measurements: MeasurementCache

    private struct Entry {
        var source: SharedSource
        var bytes: Int
        var leases: Int
        var lastUse: UInt64
    }
    private struct State {
        var entries: [MaterialKey: Entry] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        var released = 0
        /// Bytes that admitted leases are making now (by their requests' expected sizes).
        var reserved = 0
        /// Leases waiting for the budget now.
        var waiting = 0
        var storeProblems: [String] = []
        var damagedEntries: [String] = []
    }
    private let state = Locked(State())
    /// Held while material is made, so two renders asking at once do not both make the same entry.
    private let making = Locked<Void>(())
    /// What leases waiting for the budget sleep on; broadcast when material is released or made.
    private let admission = NSCondition()

    public init(budgetBytes: Int = .max, store: MaterialStore? = nil) {
        self.budgetBytes = max(0, budgetBytes)
        self.store = store
        measurements = MeasurementCache(store: store)
    }

    /// What one `prepare` or `lease` did.
    /// A value of `Int`s and a `Double`; allocates nothing. `Sendable`, safe to share.
    public struct Outcome: Sendable {
        /// Entries made by this call (decoded, or read from the store), and entries it found already made.
        public var made: Int
        public var reused: Int
        /// Of those made, how many were read from the store rather than decoded.
        public var fromStore: Int = 0
        /// Wall-clock seconds the call took.
        public var seconds: Double
    }

    /// Material held for one render: released by `release()` or when dropped.
    /// A class holding the keys; thread-safe (releasing twice is releasing once). `Sendable`: its keys and owner are
    /// constant, and whether it was released is a `Locked`.
    public final class Lease: Sendable {
        private let owner: PreparedMaterial
        private let keys: [MaterialKey]
        private let released = Locked(false)
        public let report: Outcome

        fileprivate init(owner: PreparedMaterial, keys: [MaterialKey], report: Outcome) {
            self.owner = owner; self.keys = keys; self.report = report
        }

        /// Lets go of the material; what no other lease holds may be released past the budget.
        public func release() {
            guard released.withLock({ done in defer { done = true }; return !done }) else { return }
            owner.unpin(keys)
        }

        deinit { release() }
    }

    /// Makes the material `plan` needs that is not here yet; a second call for the same plan (or any plan
    /// whose material is all here) makes nothing. Holds nothing: see `lease(for:)`.
    @discardableResult
    public func prepare(for plan: RenderPlan) throws -> Outcome {
        try prepare(plan.materialRequests, context: plan.renderFormat)
    }

    /// Makes the material for `requests` that is not here yet, in parallel across the machine's cores.
    @discardableResult
    public func prepare(_ requests: [any MaterialRequest], context: RenderFormat) throws -> Outcome {
        let (report, keys) = try acquire(requests, context: context, waitsForBudget: false)
        unpin(keys)
        return report
    }

    /// Makes what `plan` needs and holds it until the lease is released; first waits while what it needs and
    /// what other leases hold would pass the budget (see the type's documentation).
    public func lease(for plan: RenderPlan) throws -> Lease {
        let (report, keys) = try acquire(plan.materialRequests, context: plan.renderFormat, waitsForBudget: true)
        return Lease(owner: self, keys: keys, report: report)
    }

    /// The material made for `key`, or nil if it has not been prepared (or was released).
    public func source(for key: MaterialKey) -> FrameSource? {
        state.withLock { s in
            guard s.entries[key] != nil else { return nil }
            s.tick += 1
            s.entries[key]!.lastUse = s.tick
            return s.entries[key]!.source.source
        }
    }

    /// The keys of everything held.
    public var keys: [MaterialKey] { state.withLock { Array($0.entries.keys) } }

    /// The bytes of audio held now, and how many entries were released under the budget so far.
    public var heldBytes: Int { state.withLock { $0.bytes } }
    public var releasedCount: Int { state.withLock { $0.released } }

    /// Why the store could not be written, one line each (the render goes on without it); its measurements' too.
    public var storeProblems: [String] { state.withLock { $0.storeProblems } + measurements.storeProblems }

    /// The store's entries that failed their checks, one line each (naming the file, what was wrong, and the
    /// source the material was made again from, or the measurement made again); its measurements' too.
    public var damagedEntries: [String] { state.withLock { $0.damagedEntries } + measurements.damagedEntries }

    /// How many `lease` calls are waiting for the budget now.
    public var waitingCount: Int { state.withLock { $0.waiting } }

    /// Forgets everything (renders still running keep what they hold).
    public func removeAll() {
        state.withLock { $0 = State() }
        wakeWaiting()
    }

    /// Releases every entry no lease holds now (what renders still running hold stays with them), keeping the
    /// problems and damaged entries found so far: a single render's material, once its file is written and will not
    /// be written again.
    public func releaseUnheld() {
        state.withLock { s in
            for (key, entry) in s.entries where entry.leases <= 0 { Self.release(key, in: &s) }
        }
        wakeWaiting()
    }

    // MARK: - Making and holding

    /// Makes what is missing and pins every requested key once (the caller unpins them). With `waitsForBudget`,
    /// first waits until the budget admits it, then pins what is here and reserves the expected bytes of what is
    /// missing in one step (so no release takes what it found, and no other lease counts on the same room).
    private func acquire(_ requests: [any MaterialRequest], context: RenderFormat,
                         waitsForBudget: Bool) throws -> (Outcome, [MaterialKey]) {
        let clock = ContinuousClock()
        let started = clock.now
        var unique: [any MaterialRequest] = []
        var seen = Set<MaterialKey>()
        for request in requests where seen.insert(request.key).inserted { unique.append(request) }
        let keys = unique.map(\.key)
        // At most a pebibyte each (a header claiming more cannot overflow the sums; it waits, or runs alone).
        let expectedBytes = unique.map { request -> Int in
            let (bytes, overflow) = max(0, request.expectedFrames(context)).multipliedReportingOverflow(by: context.channelCount * 4)
            return overflow ? 1 << 50 : min(bytes, 1 << 50)
        }
        var pinned = Set<MaterialKey>()
        var reservation = 0

        // Admission: pin what is here and reserve room for the rest, when the budget allows (or nothing else is held).
        let mustWait = waitsForBudget && budgetBytes < .max
        admission.lock()
        var isCounted = false
        while true {
            let admitted = state.withLock { s -> Bool in
                // What holding this plan adds to what leases hold: what is missing, and what is here but idle
                // (pinning it keeps it from release). What other leases already hold costs nothing more.
                var missingBytes = 0, extra = 0
                for (i, request) in unique.enumerated() {
                    if let entry = s.entries[request.key] {
                        if entry.leases <= 0 { extra += entry.bytes }
                    } else {
                        missingBytes += expectedBytes[i]
                    }
                }
                extra += missingBytes
                if mustWait && extra > 0 {
                    // Held by other leases (this call holds nothing yet), and being made for them.
                    var held = s.reserved
                    for entry in s.entries.values where entry.leases > 0 { held += entry.bytes }
                    if held > 0 && held + extra > budgetBytes { return false }
                }
                for request in unique where s.entries[request.key] != nil { pin(request.key, in: &s); pinned.insert(request.key) }
                reservation = missingBytes
                s.reserved += missingBytes
                if isCounted { s.waiting -= 1 }
                return true
            }
            if admitted { break }
            if !isCounted { state.withLock { $0.waiting += 1 }; isCounted = true }
            admission.wait()
        }
        admission.unlock()
        defer {
            state.withLock { $0.reserved -= reservation }
            wakeWaiting()
        }
        if pinned.count == keys.count {
            return (Outcome(made: 0, reused: keys.count, seconds: (clock.now - started).seconds), keys)
        }
        return try making.withLock { _ in
            // Pin what another call made meanwhile, and make the rest.
            let missing: [any MaterialRequest] = state.withLock { s in
                var missing: [any MaterialRequest] = []
                for request in unique where !pinned.contains(request.key) {
                    if s.entries[request.key] != nil { pin(request.key, in: &s); pinned.insert(request.key) } else { missing.append(request) }
                }
                return missing
            }
            let made: [(MaterialKey, SharedSource, Int, Bool)]
            do {
                made = try make(missing, context: context)
            } catch {
                unpin(Array(pinned))
                throw error
            }
            state.withLock { s in
                for (key, source, bytes, _) in made {
                    s.tick += 1
                    s.entries[key] = Entry(source: source, bytes: bytes, leases: 1, lastUse: s.tick)
                    s.bytes += bytes
                }
                s.reserved -= reservation
                reservation = 0
                releaseOverBudget(in: &s)
            }
            let report = Outcome(made: missing.count, reused: keys.count - missing.count, fromStore: made.filter(\.3).count,
                                seconds: (clock.now - started).seconds)
            return (report, keys)
        }
    }

    /// Decodes (or reads from the store) every request on all cores, longest first, then returns the freed heap.
    private func make(_ missing: [any MaterialRequest], context: RenderFormat) throws -> [(MaterialKey, SharedSource, Int, Bool)] {
        guard !missing.isEmpty else { return [] }
        let costs = missing.map(\.estimatedCost)
        let order = missing.indices.sorted { costs[$0] > costs[$1] }
        let store = self.store
        // Longest first; each result then put back at its request's index.
        let made = Parallel.map(missing.count) { k in
            let i = order[k]
            return Result { () throws -> (SharedSource, Int, Bool) in
                let request = missing[i]
                var fromStore = false
                var audio: PreparedAudio?
                var description: String?
                let frames = MaterialStore.frameBounds(expected: request.expectedFrames(context), sampleRate: context.sampleRate)
                if let store {
                    description = try request.storeDescription(context)
                    if let description {
                        do {
                            audio = try store.audio(for: description, channelCount: context.channelCount, frames: frames)
                        } catch {
                            // Never trusted, never blamed on the source: made again from it, in one line.
                            let line = "\(error), prepared again from '\(request.key.label)'"
                            state.withLock { $0.damagedEntries.append(line) }
                        }
                        fromStore = audio != nil
                    }
                }
                let decoded = try audio ?? request.decode(context)
                // What the store would refuse when read (a container's count far off) is not written.
                if let store, let description, !fromStore, frames.contains(decoded.length) {
                    do { try store.store(decoded, for: description) } catch {
                        let line = "\(request.key.label): not kept in the cache folder: \(error)"
                        state.withLock { if !$0.storeProblems.contains(line) { $0.storeProblems.append(line) } }
                    }
                }
                let bytes = decoded.bytes
                return (SharedSource(source: try request.makeShared(decoded)), bytes, fromStore)
            }
        }
        // The decoders and resamplers are freed, but their pages stay resident in the preparing threads'
        // heaps: give them back before a render's own buffers come on top.
        CurrentProcess.returnFreedMemory()
        var results = [Result<(SharedSource, Int, Bool), Error>?](repeating: nil, count: missing.count)
        for (k, result) in made.enumerated() { results[order[k]] = result }
        return try missing.indices.map { i in
            let (source, bytes, fromStore) = try results[i]!.get()
            return (missing[i].key, source, bytes, fromStore)
        }
    }

    private func pin(_ key: MaterialKey, in s: inout State) {
        s.tick += 1
        s.entries[key]!.leases += 1
        s.entries[key]!.lastUse = s.tick
    }

    fileprivate func unpin(_ keys: [MaterialKey]) {
        state.withLock { s in
            for key in keys where s.entries[key] != nil { s.entries[key]!.leases -= 1 }
            releaseOverBudget(in: &s)
        }
        wakeWaiting()
    }

    /// Wakes every lease waiting for the budget, to count again.
    private func wakeWaiting() {
        admission.lock()
        admission.broadcast()
        admission.unlock()
    }

    /// Releases entries no lease holds, least recently used first, until what is held (and what admitted
    /// leases are making) fits the budget.
    private func releaseOverBudget(in s: inout State) {
        while s.bytes + s.reserved > budgetBytes {
            guard let victim = s.entries.filter({ $0.value.leases <= 0 }).min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
            Self.release(victim.key, in: &s)
        }
    }

    /// Drops the entry for `key` (which no lease holds) and counts it released.
    private static func release(_ key: MaterialKey, in s: inout State) {
        guard let entry = s.entries.removeValue(forKey: key) else { return }
        s.bytes -= entry.bytes
        s.released += 1
    }
}

/// A prepared material's source, shared by every render that plays it. `@unchecked Sendable`, and safe:
/// `MaterialRequest.makeShared` promises a source whose `render` only reads (its audio is not changed once made),
/// so any number of threads may render from it at once.
struct SharedSource: @unchecked Sendable {
    let source: FrameSource
}
