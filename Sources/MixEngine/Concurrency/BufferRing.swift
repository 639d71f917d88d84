import Foundation  // NSCondition

/// A fixed ring of preallocated `Float` buffers passed between exactly one producer thread and one
/// consumer thread: the producer fills a free buffer and publishes it with a count, the consumer takes
/// published buffers in order and releases them for reuse. Either side can close its end, with or
/// without a failure, and the other side learns of it.
///
/// **Memory layout.** One allocation of `slotCount * stride` floats, made in `init` and freed in
/// `deinit`. Slot `i` starts at float `i * stride`; `stride` is `capacity` rounded up to a whole 64-byte
/// cache line (16 floats), so the producer writing one slot and the consumer reading the next never
/// share a line. Besides the buffers there is one count per slot (an `Int` array, also made in `init`).
///
/// **Allocation.** Only `init` allocates. `reserve`, `publish`, `next`, `release` and the closes take a
/// lock and may wait on a condition; none allocates (an error is boxed only when one is thrown).
///
/// **Threads.** Producer: `reserve()`, `publish(count:)`, `closeWriting(failure:)`,
/// `waitUntilReadingClosed()`. Consumer: `next()`, `release()`, `closeReading(failure:)`,
/// `waitUntilWritingClosed()`. Each set is called from one thread at a time; the two sets may run on
/// two threads at once. All ring state is guarded by one `NSCondition`.
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
    private var counts: [Int]
    private let condition = NSCondition()
    // Guarded by `condition`. `published - released` buffers are waiting for (or held by) the consumer.
    private var published = 0
    private var released = 0
    private var isWritingClosed = false
    private var isReadingClosed = false
    private var writingFailure: Error?
    private var readingFailure: Error?
    /// Whether a side is waiting on the condition for buffers (the consumer) or free slots (the producer).
    private var consumerWaits = false
    private var producerWaits = false
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
        counts = [Int](repeating: 0, count: slotCount)
        wakeBatch = max(1, slotCount / 2)
    }

    deinit { storage.deallocate() }

    private func buffer(_ slot: Int) -> UnsafeMutablePointer<Float> { storage + slot * stride }

    // MARK: Producer

    /// The next free buffer (`capacity` floats), waiting while all are full. Throws the consumer's
    /// failure, or `Closed`, once the consumer has closed its end. Call `publish(count:)` after filling it.
    func reserve() throws -> UnsafeMutablePointer<Float> {
        condition.lock()
        defer { condition.unlock() }
        while published - released == slotCount && !isReadingClosed {
            producerWaits = true
            condition.wait()
        }
        producerWaits = false
        if isReadingClosed { throw readingFailure ?? Closed() }
        return buffer(published % slotCount)
    }

    /// Hands the buffer `reserve()` returned to the consumer, with `count` (the producer's unit: frames,
    /// say; the consumer gets it back from `next()`).
    func publish(count: Int) {
        condition.lock()
        counts[published % slotCount] = count
        published += 1
        if consumerWaits && published - released >= wakeBatch { condition.broadcast() }
        condition.unlock()
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
        condition.lock()
        defer { condition.unlock() }
        while published == released && !isWritingClosed {
            consumerWaits = true
            condition.wait()
        }
        consumerWaits = false
        if published > released {
            let slot = released % slotCount
            return (buffer(slot), counts[slot])
        }
        if let writingFailure { throw writingFailure }
        return nil
    }

    /// Gives the buffer `next()` returned back to the producer.
    func release() {
        condition.lock()
        precondition(released < published, "release() without a buffer from next()")
        released += 1
        if producerWaits && slotCount - (published - released) >= wakeBatch { condition.broadcast() }
        condition.unlock()
    }

    /// Stops taking buffers: the producer's `reserve()` throws `failure` (or `Closed`) from now on.
    /// Later calls do nothing.
    func closeReading(failure: Error? = nil) {
        condition.lock()
        if !isReadingClosed {
            isReadingClosed = true
            readingFailure = failure
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
