import Foundation  // Thread, NSCondition

/// One worker of a `ChunkScheduler`: does a chunk of the work into a slot, on a thread of its own.
protocol ChunkWorker: AnyObject {
    /// Does chunk `chunk` into slot `slot` (a buffer of the caller's that holds one chunk), calling `progress(n)`
    /// once the chunk's first `n` frames are in the slot, as often as it likes (the reader may take them at once).
    /// When `progress` returns false the work is stopping: return at once. Returns whether the chunk was done
    /// whole; false (a file that ends before the length it said) ends this worker's work, and the reader finds the
    /// chunk complete with the frames reported.
    func work(chunk: Int, slot: Int, progress: (Int) -> Bool) throws -> Bool
}

/// Work cut into chunks, done ahead by worker threads and taken in order by one reader thread: the one scheduler
/// behind `ParallelMixer` (stints of the mix) and `ParallelReadAhead` (chunks of a decoded file).
///
/// **The deal.** Worker `w` of `N` does chunks `w, w + N, w + 2N, ...`, each into slot `k % slotCount` of the
/// caller's buffers, once the reader has finished chunk `k - slotCount` (whose slot it takes). The reader asks for
/// the chunk it is on and gets the frames done so far, while the worker still writes the rest; it says when it has
/// finished a chunk. With `slotCount` above `N`, a worker whose chunk waits to be read can start its next.
///
/// **Failures.** A worker's error is kept with its chunk and stops that worker; the reader gets it when it reaches
/// that chunk, after the frames done before it, so the reader sees what a one-thread run would have: every frame
/// before the failure, then the failure. (Workers after it wait for slots the reader never frees, until `stop`.)
///
/// **Threads.** `start` starts one thread per worker; `frames(ofChunk:after:)`, `finished(chunk:)` and `stop()` are
/// the reader's, called from one thread. Which chunk each slot holds, the frames done in it, whether it is complete
/// and its failure, the reader's chunk, the stop and the count of running workers are guarded by one `NSCondition`
/// (whose pthread mutex the Thread Sanitizer sees); a slot's samples are written by its worker outside the lock and
/// read by the reader only after the worker reported them under it, which orders the two. `@unchecked Sendable` for
/// that reason: every stored variable is read and written under `condition`. Call `stop()` before the slots' memory
/// goes: it stops the workers and returns once every thread has ended.
final class ChunkScheduler: @unchecked Sendable {
    /// Chunks in the work.
    let chunkCount: Int
    /// Slots the chunks take in turn (chunk `k` takes slot `k % slotCount`).
    let slotCount: Int

    private let condition = NSCondition()
    private var slots: [SlotState]
    /// The chunk the reader is on: every chunk before it is read, and its slot free.
    private var readerChunk = 0
    private var isStopping = false
    private var runningWorkers = 0
    /// While the reader waits: the chunk it waits on and the frames of it it waits for. A worker's report wakes it
    /// only once they are done (waking it at every block cost a threaded render twice the system time).
    private var readerWaits: (chunk: Int, frames: Int)?

    /// What one slot holds: its chunk (-1: none yet), the frames of it done, whether its worker is done with it,
    /// and the error that stopped that worker in it.
    private struct SlotState {
        var chunk = -1
        var done = 0
        var isComplete = false
        var failure: Error?
    }

    init(chunkCount: Int, slotCount: Int) {
        precondition(chunkCount >= 0 && slotCount > 0)
        self.chunkCount = chunkCount
        self.slotCount = slotCount
        slots = Array(repeating: SlotState(), count: slotCount)
    }

    /// Starts one thread per worker (named `threadName` and its number). Call once. Each worker is handed to its
    /// thread and used by it alone from then on; the caller may read what a worker kept (its timings) once `stop()`
    /// has returned.
    func start<Worker: ChunkWorker>(_ workers: [Worker], threadName: String) {
        precondition(!workers.isEmpty && workers.count <= slotCount)
        condition.lock()
        runningWorkers += workers.count   // counted before the threads start, so `stop` cannot miss one
        condition.unlock()
        for (w, worker) in workers.enumerated() {
            let handoff = HandedOff(worker as any ChunkWorker)
            let step = workers.count
            let thread = Thread { [self] in run(handoff.value, first: w, step: step) }
            thread.name = "\(threadName) \(w + 1)"
            thread.stackSize = 8 << 20   // as the main thread's: decoders may keep large frames on the stack
            thread.start()
        }
    }

    // MARK: Workers

    private func run(_ worker: any ChunkWorker, first: Int, step: Int) {
        defer {
            condition.lock()
            runningWorkers -= 1
            condition.broadcast()
            condition.unlock()
        }
        for k in stride(from: first, to: chunkCount, by: step) {
            let slot = k % slotCount
            condition.lock()
            while !isStopping && readerChunk <= k - slotCount { condition.wait() }
            if isStopping { condition.unlock(); return }
            slots[slot] = SlotState(chunk: k)
            condition.unlock()

            var isWhole = false, failure: Error?
            do {
                isWhole = try worker.work(chunk: k, slot: slot) { self.report(done: $0, ofChunk: k, inSlot: slot) }
            } catch {
                failure = error
            }
            condition.lock()
            // The reader may have taken every frame reported and finished the chunk already, and another worker taken
            // its slot for a chunk of its own: the completion is this chunk's only.
            if slots[slot].chunk == k {
                slots[slot].isComplete = true
                slots[slot].failure = failure
            }
            condition.broadcast()
            let stops = isStopping
            condition.unlock()
            if failure != nil || !isWhole || stops { return }
        }
    }

    /// A worker's progress: `done` frames of chunk `k`, in `slot`, are written. False once the work is stopping.
    private func report(done: Int, ofChunk k: Int, inSlot slot: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard slots[slot].chunk == k else { return !isStopping }
        slots[slot].done = done
        if let readerWaits, readerWaits.chunk == k, done >= readerWaits.frames { condition.broadcast() }
        return !isStopping
    }

    // MARK: The reader

    /// Chunk `k`'s frames done beyond the first `read` (which the reader has): its slot and the frames done. Returns
    /// at once when some are done; else waits until `wanted` more are (or the chunk is complete) and returns them,
    /// more than `read` unless the chunk is complete with no more (its worker found the end early). Throws the error
    /// its worker failed with once the frames done before it are read. `k` is the reader's chunk: every chunk before
    /// it `finished`.
    func frames(ofChunk k: Int, after read: Int, wanting wanted: Int) throws -> (slot: Int, done: Int) {
        let slot = k % slotCount
        condition.lock()
        defer { readerWaits = nil; condition.unlock() }
        precondition(k == readerChunk && k < chunkCount && wanted > 0, "the reader takes the chunks in order")
        while true {
            let state = slots[slot]
            if state.chunk == k {
                if state.done > read && (readerWaits == nil || state.done >= read + wanted) { return (slot, state.done) }
                if state.isComplete {
                    if state.done > read { return (slot, state.done) }
                    if let failure = state.failure { throw failure }
                    return (slot, state.done)
                }
            }
            readerWaits = (k, read + wanted)
            condition.wait()
        }
    }

    /// The reader is done with chunk `k` (its slot is free for chunk `k + slotCount`) and moves to the next.
    func finished(chunk k: Int) {
        condition.lock()
        precondition(k == readerChunk, "the reader takes the chunks in order")
        readerChunk = k + 1
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the workers (each at its next report, or before its next chunk) and waits until every thread has
    /// ended. Later calls return at once.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        isStopping = true
        condition.broadcast()
        while runningWorkers > 0 { condition.wait() }
    }
}

/// A value on its way to a thread that is starting, which alone uses it from then on. `@unchecked Sendable`, and
/// safe for that use only: the thread that made it keeps the value only to read it after the other thread has
/// ended (which a lock or a join orders), so no two threads use it at once.
struct HandedOff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
