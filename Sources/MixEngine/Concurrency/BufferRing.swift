import Foundation  // NSCondition
import Synchronization  // Atomic

/// A fixed ring of preallocated `Float` buffers passed between exactly one producer thread and one
/// consumer thread: the producer fills a free buffer and publishes it with a count, the consumer takes
/// published buffers in order and releases them for reuse. Either side can close its end, with or
/// without a failure, and the other side learns of it.
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
/// `waitUntilReadingClosed()`. Consumer: `next()`, `release()`, `closeReading(failure:)`,
/// `waitUntilWritingClosed()`. Each set is called from one thread at a time; the two sets may run on
/// two threads at once. The counts of buffers published and released are atomics, each written by one side:
/// a side that need not wait takes no lock (`reserve` with a free slot, `next` with a published buffer, and
/// `publish` and `release` unless the other side waits). Waiting, and the closes, go through one
/// `NSCondition`: a side about to wait says so (an atomic flag) and looks at the other side's count again,
/// and the other side, once its count is stored, looks at the flag; both sequentially consistent, so at
/// least one sees the other, and a wake-up is never lost (the waker takes the lock, which the waiter holds
/// until it waits). Before, every call took the lock: at hundreds of blocks a second the two threads met on
/// it, and its futex calls cost a render to WAV about 3 % of its CPU time.
///
/// **Protocol.**
/// - The producer calls `reserve()` (waits while every slot is full), writes up to `capacity` floats
///   into the buffer it returns, then `publish(count:)`. When done it calls `closeWriting()`, or
///   `closeWriting(failure:)` if it failed.
/// - The consumer calls `next()` (waits while nothing is published), uses the buffer, then `release()`.
///   `next()` returns every published buffer, in order, before it returns nil (writing closed) or
///   throws the producer's failure. When it stops taking buffers it calls `closeReading()`, or
///   `closeReading(failure:)` if it failed: from then on `reserve()` throws that failure (or
///   `BufferRing.Closed` without one) instead of waiting for a slot that will never be freed.
final class BufferRing: @unchecked Sendable {
    /// Thrown by `reserve()` when the consumer closed its end without a failure.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the consumer stopped taking buffers" }
    }

    /// Buffers in the ring.
    let slotCount: Int
    /// Floats each buffer holds.
    let capacity: Int
    /// Floats from the start of one buffer to the start of the next.
    let stride: Int
    private let storage: UnsafeMutablePointer<Float>
    /// The count `publish` gave each slot: written by the producer before it stores `published`, read by the
    /// consumer after it loads it.
    private let counts: UnsafeMutablePointer<Int>
    /// Buffers published (written by the producer) and released (by the consumer) so far;
    /// `published - released` are waiting for, or held by, the consumer.
    private let published = Atomic<Int>(0)
    private let released = Atomic<Int>(0)
    /// Whether a side is waiting (or about to) for buffers (the consumer) or free slots (the producer).
    private let consumerWaits = Atomic<Bool>(false)
    private let producerWaits = Atomic<Bool>(false)
    /// `isReadingClosed`, for `reserve` to see without the lock.
    private let readingClosed = Atomic<Bool>(false)
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var isWritingClosed = false
    private var isReadingClosed = false
    private var writingFailure: Error?
    private var readingFailure: Error?
    /// A waiting side is woken once this many buffers are ready for it (or at a close), not at every one:
    /// at hundreds of blocks a second, waking the other thread for each cost a render to WAV a tenth of its time
    /// in futex calls and context switches.
    private let wakeBatch: Int

    init(slotCount: Int, capacity: Int) {
        precondition(slotCount > 0 && capacity > 0)
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
        if !readingClosed.load(ordering: .acquiring) && p - released.load(ordering: .acquiring) < slotCount {
            return buffer(p % slotCount)
        }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isReadingClosed { producerWaits.store(false, ordering: .relaxed); throw readingFailure ?? Closed() }
            producerWaits.store(true, ordering: .sequentiallyConsistent)
            if p - released.load(ordering: .sequentiallyConsistent) < slotCount {
                producerWaits.store(false, ordering: .relaxed)
                return buffer(p % slotCount)
            }
            condition.wait()
        }
    }

    /// Hands the buffer `reserve()` returned to the consumer, with `count` (the producer's unit: frames,
    /// say; the consumer gets it back from `next()`).
    func publish(count: Int) {
        let p = published.load(ordering: .relaxed) + 1
        counts[(p - 1) % slotCount] = count
        published.store(p, ordering: .sequentiallyConsistent)
        if consumerWaits.load(ordering: .sequentiallyConsistent) && p - released.load(ordering: .relaxed) >= wakeBatch { wake() }
    }

    /// Ends the stream: the consumer gets what is published, then nil from `next()`, or `failure`.
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

    /// Waits until the consumer has closed its end; returns its failure, if any.
    func waitUntilReadingClosed() -> Error? {
        condition.lock()
        defer { condition.unlock() }
        while !isReadingClosed { condition.wait() }
        return readingFailure
    }

    // MARK: Consumer

    /// The oldest published buffer and its count, waiting for one if needed. Nil once writing is closed
    /// and every published buffer has been taken; the producer's failure instead, if it gave one.
    /// Call `release()` when done with the buffer.
    func next() throws -> (buffer: UnsafeMutablePointer<Float>, count: Int)? {
        let r = released.load(ordering: .relaxed)   // this side's own count
        if published.load(ordering: .acquiring) > r { return (buffer(r % slotCount), counts[r % slotCount]) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            consumerWaits.store(true, ordering: .sequentiallyConsistent)
            if published.load(ordering: .sequentiallyConsistent) > r {
                consumerWaits.store(false, ordering: .relaxed)
                return (buffer(r % slotCount), counts[r % slotCount])
            }
            if isWritingClosed {
                consumerWaits.store(false, ordering: .relaxed)
                if let writingFailure { throw writingFailure }
                return nil
            }
            condition.wait()
        }
    }

    /// Gives the buffer `next()` returned back to the producer.
    func release() {
        let r = released.load(ordering: .relaxed) + 1
        precondition(r <= published.load(ordering: .acquiring), "release() without a buffer from next()")
        released.store(r, ordering: .sequentiallyConsistent)
        if producerWaits.load(ordering: .sequentiallyConsistent) && slotCount - (published.load(ordering: .relaxed) - r) >= wakeBatch { wake() }
    }

    /// Stops taking buffers: the producer's `reserve()` throws `failure` (or `Closed`) from now on.
    /// Later calls do nothing.
    func closeReading(failure: Error? = nil) {
        condition.lock()
        if !isReadingClosed {
            isReadingClosed = true
            readingFailure = failure
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
