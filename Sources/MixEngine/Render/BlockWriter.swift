import Foundation
import MixDSP

/// Hands rendered blocks to an encoder running on its own thread, so that encoding (the slowest
/// stage of an Ogg render) overlaps mixing. A fixed ring of interleaved buffers goes back and forth
/// between the two threads: nothing is allocated per block, and memory is bounded by the ring.
final class BlockWriter {
    private let encoder: AudioEncoder
    private let channelCount: Int
    private let capacity: Int
    private let buffers: [UnsafeMutablePointer<Float>]
    private var frameCounts: [Int]
    private let condition = NSCondition()
    // Ring state, guarded by `condition`.
    private var filled = 0          // buffers waiting for the encoder
    private var head = 0            // next buffer the encoder takes
    private var tail = 0            // next buffer the renderer fills
    private var isClosed = false
    private var failure: Error?
    private var thread: Thread?
    private var isFinished = false
    /// Seconds the encoder thread spent inside `encoder.write`.
    private(set) var encodeSeconds: Double = 0

    init(encoder: AudioEncoder, channelCount: Int, blockFrames: Int, depth: Int = 8) {
        self.encoder = encoder
        self.channelCount = channelCount
        self.capacity = blockFrames
        self.buffers = (0..<depth).map { _ in .allocate(capacity: blockFrames * channelCount) }
        self.frameCounts = Array(repeating: 0, count: depth)
        let thread = Thread { [unowned self] in self.drain() }
        thread.name = "mixrender-encoder"
        thread.stackSize = 8 << 20
        self.thread = thread
        thread.start()
    }

    deinit { buffers.forEach { $0.deallocate() } }

    /// Interleaves `count` frames of `block` from `offset` into the next free buffer and queues it.
    func write(_ block: AudioBlock, offset: Int, count: Int) throws {
        precondition(count <= capacity)
        condition.lock()
        while filled == buffers.count && failure == nil { condition.wait() }
        if let failure { condition.unlock(); throw failure }
        let index = tail
        condition.unlock()

        Kernels.interleave(block, offset: offset, count: count, into: buffers[index])
        frameCounts[index] = count

        condition.lock()
        tail = (tail + 1) % buffers.count
        filled += 1
        condition.signal()
        condition.unlock()
    }

    /// Waits until every queued block is encoded, then finishes the encoder.
    func finish() throws {
        try close()
        try encoder.finish()
    }

    /// Stops the encoder thread after the queued blocks; rethrows its failure, if any.
    func close() throws {
        guard !isFinished else { return }
        isFinished = true
        condition.lock()
        isClosed = true
        condition.broadcast()
        while thread != nil { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    private func drain() {
        let clock = ContinuousClock()
        while true {
            condition.lock()
            while filled == 0 && !isClosed { condition.wait() }
            if filled == 0 || failure != nil {
                thread = nil
                condition.broadcast()
                condition.unlock()
                return
            }
            let index = head
            condition.unlock()

            let started = clock.now
            do {
                try encoder.write(interleaved: buffers[index], frames: frameCounts[index])
            } catch {
                condition.lock()
                failure = error
                condition.broadcast()
                condition.unlock()
            }
            encodeSeconds += (clock.now - started).seconds

            condition.lock()
            head = (head + 1) % buffers.count
            filled -= 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
