import Foundation  // NSCondition
import Synchronization  // Atomic

/// A fixed ring of preallocated `Float` buffers passed from exactly one producer thread to one or more readers,
/// each on a thread of its own: the producer fills a free buffer and publishes it with a count, every reader takes
/// the published buffers in order, reads them (without changing them) and releases them; a buffer is free again once
/// every reader has released it. Either side can close its end, with or without a failure, and the other side
/// learns of it. (Several readers share one copy of each block: the output's encoder and its meter read the same
/// buffers.)
///
/// **Memory layout.** One allocation of `slotCount * stride` floats, made in `init` and freed in
/// `deinit`. Slot `i` starts at float `i * stride`; `stride` is `capacity` rounded up to a whole 64-byte
/// cache line (16 floats), so the producer writing one slot and the consumer reading the next never
/// share a line. Besides the buffers there is one count per slot (also made in `init`).
///
/// **Allocation.** Only `init` allocates. None of `reserve`, `publish`, `next`, `release` and the closes
/// allocates (an error is boxed only when one is thrown).
///
/// **Threads.** Producer: `reserve()`, `publish(count:)`, `closeWriting(failure:)`,
/// `waitUntilReadingClosed()`. Reader r (0 ..< `readerCount`): `next(reader: r)`, `release(reader: r)`,
/// `closeReading(reader: r, failure:)`, `waitUntilWritingClosed()`. Each set is called from one thread at a time;
/// the sets may run on their threads at once. The counts of buffers published and released (one per reader) are
/// atomics, each written by one thread: a side that need not wait takes no lock (`reserve` with a free slot, `next`
/// with a published buffer, and `publish` and `release` unless a side waits on them). Waiting, and the closes, go
/// through one `NSCondition`: a side about to wait says so (an atomic flag) and looks at the counts it waits on
/// again, and a side whose count changes, once it is stored, looks at the flag; all sequentially consistent, so at
/// least one sees the other, and a wake-up is never lost (the waker takes the lock, which the waiter holds until it
/// waits). A reader deciding whether to wake the producer reads every reader's count the same way, so the last of
/// them to release sees the others' releases. Before, every call took the lock: at hundreds of blocks a second
/// the threads met on it, and its futex calls cost a render to WAV about 3 % of its CPU time.
///
/// **Protocol.**
/// - The producer calls `reserve()` (waits while every slot is full), writes up to `capacity` floats
///   into the buffer it returns, then `publish(count:)`. When done it calls `closeWriting()`, or
///   `closeWriting(failure:)` if it failed.
/// - Each reader calls `next(reader:)` (waits while nothing new is published), reads the buffer, then
///   `release(reader:)`. `next` returns every published buffer, in order, before it returns nil (writing
///   closed) or throws the producer's failure. When a reader stops taking buffers it calls `closeReading()`, or
///   `closeReading(failure:)` if it failed: from then on `reserve()` throws the first failure a reader gave (or
///   `BufferRing.Closed` without one) instead of waiting for a slot that will never be freed.
final class BufferRing: @unchecked Sendable {
    /// Thrown by `reserve()` when a reader closed its end without a failure.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the consumer stopped taking buffers" }
    }

    /// One reader's count of buffers released (written by that reader only) and whether it waits (or is about to)
    /// for buffers.
    private final class Reader: Sendable {
        let released = Atomic<Int>(0)
        let waits = Atomic<Bool>(false)
    }

    /// Buffers in the ring.
    let slotCount: Int
    /// Floats each buffer holds.
    let capacity: Int
    /// Floats from the start of one buffer to the start of the next.
    let stride: Int
    private let storage: UnsafeMutablePointer<Float>
    /// The count `publish` gave each slot: written by the producer before it stores `published`, read by the
    /// readers after they load it.
    private let counts: UnsafeMutablePointer<Int>
    /// Buffers published so far (written by the producer); `published - readers[r].released` are waiting for, or
    /// held by, reader r, and the slot of the oldest buffer some reader still holds is the first one not free.
    private let published = Atomic<Int>(0)
    private let readers: [Reader]
    /// Whether the producer is waiting (or about to) for free slots.
    private let producerWaits = Atomic<Bool>(false)
    /// Whether some reader has closed its end (`readersClosed > 0`: the producer can no longer count on free slots),
    /// for `reserve` to see without the lock.
    private let readingClosed = Atomic<Bool>(false)
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var isWritingClosed = false
    private var writingFailure: Error?
    /// Which readers have closed their end, and how many.
    private var readerClosed: [Bool]
    private var readersClosed = 0
    /// The first failure a reader closed with.
    private var readingFailure: Error?
    /// A waiting side is woken once this many buffers are ready for it (or at a close), not at every one:
    /// at hundreds of blocks a second, waking the other thread for each cost a render to WAV a tenth of its time
    /// in futex calls and context switches.
    private let wakeBatch: Int

    /// Readers taking every buffer.
    var readerCount: Int { readers.count }

    init(slotCount: Int, capacity: Int, readers readerCount: Int = 1) {
        precondition(slotCount > 0 && capacity > 0 && readerCount > 0)
        readers = (0..<readerCount).map { _ in Reader() }
        readerClosed = Array(repeating: false, count: readerCount)
        self.slotCount = slotCount
        self.capacity = capacity
        stride = (capacity + 15) / 16 * 16
        storage = .allocate(capacity: slotCount * stride)
        storage.initialize(repeating: 0, count: slotCount * stride)
        counts = .allocate(capacity: slotCount)
        counts.initialize(repeating: 0, count: slotCount)
        wakeBatch = max(1, slotCount / 2)
    }

    deinit { storage.deallocate(); counts.deallocate() }

    /// Slot `slot`'s buffer (`capacity` floats): what `reserve` and `next` return for it, for a side that wants
    /// to prepare something per slot (a view of it).
    func buffer(_ slot: Int) -> UnsafeMutablePointer<Float> { storage + slot * stride }

    /// The fewest buffers any reader has released: the slots before it are free. Each count loaded acquiring, or
    /// sequentially consistent (the waits' handshake).
    private func leastReleased(sequentiallyConsistent: Bool) -> Int {
        var least = Int.max
        for r in readers {
            least = min(least, sequentiallyConsistent ? r.released.load(ordering: .sequentiallyConsistent)
                                                      : r.released.load(ordering: .acquiring))
        }
        return least
    }

    /// Wakes the side waiting on the condition (under its lock, so that a side between its last look and its
    /// wait is not missed).
    private func wake() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Producer

    /// The next free buffer (`capacity` floats), waiting while all are full. Throws the consumer's
    /// failure, or `Closed`, once the consumer has closed its end. Call `publish(count:)` after filling it.
    func reserve() throws -> UnsafeMutablePointer<Float> {
        let p = published.load(ordering: .relaxed)   // this side's own count
        if !readingClosed.load(ordering: .acquiring) && p - leastReleased(sequentiallyConsistent: false) < slotCount {
            return buffer(p % slotCount)
        }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if readersClosed > 0 { producerWaits.store(false, ordering: .relaxed); throw readingFailure ?? Closed() }
            producerWaits.store(true, ordering: .sequentiallyConsistent)
            if p - leastReleased(sequentiallyConsistent: true) < slotCount {
                producerWaits.store(false, ordering: .relaxed)
                return buffer(p % slotCount)
            }
            condition.wait()
        }
    }

    /// Hands the buffer `reserve()` returned to the readers, with `count` (the producer's unit: frames,
    /// say; the readers get it back from `next`).
    func publish(count: Int) {
        let p = published.load(ordering: .relaxed) + 1
        counts[(p - 1) % slotCount] = count
        published.store(p, ordering: .sequentiallyConsistent)
        for r in readers where r.waits.load(ordering: .sequentiallyConsistent) && p - r.released.load(ordering: .relaxed) >= wakeBatch {
            wake()
            return
        }
    }

    /// Ends the stream: the readers get what is published, then nil from `next`, or `failure`.
    /// Later calls do nothing.
    func closeWriting(failure: Error? = nil) {
        condition.lock()
        if !isWritingClosed {
            isWritingClosed = true
            writingFailure = failure
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Waits until every reader has closed its end; returns the first failure, if any.
    func waitUntilReadingClosed() -> Error? {
        condition.lock()
        defer { condition.unlock() }
        while readersClosed < readers.count { condition.wait() }
        return readingFailure
    }

    // MARK: Readers

    /// The oldest published buffer reader `reader` has not taken, and its count, waiting for one if needed. Nil
    /// once writing is closed and every published buffer has been taken; the producer's failure instead, if it gave
    /// one. Call `release(reader:)` when done with the buffer; do not change it (the other readers read it too).
    func next(reader: Int = 0) throws -> (buffer: UnsafeMutablePointer<Float>, count: Int)? {
        let me = readers[reader]
        let r = me.released.load(ordering: .relaxed)   // this reader's own count
        if published.load(ordering: .acquiring) > r { return (buffer(r % slotCount), counts[r % slotCount]) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            me.waits.store(true, ordering: .sequentiallyConsistent)
            if published.load(ordering: .sequentiallyConsistent) > r {
                me.waits.store(false, ordering: .relaxed)
                return (buffer(r % slotCount), counts[r % slotCount])
            }
            if isWritingClosed {
                me.waits.store(false, ordering: .relaxed)
                if let writingFailure { throw writingFailure }
                return nil
            }
            condition.wait()
        }
    }

    /// Gives the buffer `next(reader:)` returned back: free for the producer once every reader has released it.
    func release(reader: Int = 0) {
        let me = readers[reader]
        let r = me.released.load(ordering: .relaxed) + 1
        precondition(r <= published.load(ordering: .acquiring), "release() without a buffer from next()")
        me.released.store(r, ordering: .sequentiallyConsistent)
        if producerWaits.load(ordering: .sequentiallyConsistent)
            && slotCount - (published.load(ordering: .relaxed) - leastReleased(sequentiallyConsistent: true)) >= wakeBatch { wake() }
    }

    /// Reader `reader` stops taking buffers: the producer's `reserve()` throws the first failure a reader gave (or
    /// `Closed`) from now on. Later calls for the same reader do nothing.
    func closeReading(reader: Int = 0, failure: Error? = nil) {
        condition.lock()
        if !readerClosed[reader] {
            readerClosed[reader] = true
            readersClosed += 1
            if readingFailure == nil { readingFailure = failure }
            readingClosed.store(true, ordering: .releasing)
            condition.broadcast()
        }
        condition.unlock()
    }

    /// Waits until the producer has closed its end; returns its failure, if any.
    func waitUntilWritingClosed() -> Error? {
        condition.lock()
        defer { condition.unlock() }
        while !isWritingClosed { condition.wait() }
        return writingFailure
    }
}
