import Foundation  // Thread
import MixDSP
import MixIO

/// Hands rendered blocks to an encoder running on its own thread, so that encoding (the slowest
/// stage of an Ogg render) overlaps mixing. The renderer is the producer and the encoder thread the
/// consumer of a `BufferRing`.
///
/// **Memory layout.** A `BufferRing` of `depth` interleaved buffers of `blockFrames * channelCount`
/// floats each (frame-major: frame 0's channels, then frame 1's, ...), in one allocation; each slot's
/// count is its number of frames. Memory is bounded by the ring whatever the length of the render.
///
/// **Allocation.** `init` allocates the ring and starts the thread; `write`, `finish` and `close`
/// allocate nothing (an error is boxed only when one is thrown).
///
/// **Threads.** `write`, `finish`, `close` and `encodeSeconds` are called from one thread, the
/// renderer's. `encoder.write` runs only on the encoder thread; `encoder.finish` on the renderer's
/// thread, in `finish()`, after the encoder thread has ended. If the encoder fails, its thread stops
/// taking blocks and the next `write` (or `close`) throws the encoder's error.
final class BlockWriter {
    private let encoder: AudioEncoder
    private let channelCount: Int
    private let capacity: Int
    private let ring: BufferRing
    private let drain: Drain
    private var isFinished = false

    /// Seconds the encoder thread spent inside `encoder.write` (complete after `close()` or `finish()`).
    var encodeSeconds: Double { drain.encodeSeconds }
    /// CPU seconds the encoder thread spent there.
    var encodeCPUSeconds: Double { drain.encodeCPUSeconds }

    init(encoder: AudioEncoder, channelCount: Int, blockFrames: Int, depth: Int = 8) {
        self.encoder = encoder
        self.channelCount = channelCount
        self.capacity = blockFrames
        ring = BufferRing(slotCount: depth, capacity: blockFrames * channelCount)
        drain = Drain(encoder: encoder, ring: ring)
        let drain = self.drain
        let thread = Thread { drain.run() }
        thread.name = "mixrender-encoder"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Lets the encoder thread write what is queued and end, if `close()` was never called.
    deinit { ring.closeWriting() }

    /// Interleaves `count` frames of `block` from `offset` into the next free buffer and queues it.
    func write(_ block: AudioBlock, offset: Int, count: Int) throws {
        precondition(count <= capacity)
        let buffer = try ring.reserve()
        Kernels.interleave(block, offset: offset, count: count, into: buffer)
        ring.publish(count: count)
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
        ring.closeWriting()
        if let failure = ring.waitUntilReadingClosed() { throw failure }
    }

    /// The encoder thread's side: holds what it needs itself, so the thread never outlives what it uses.
    private final class Drain: @unchecked Sendable {
        let encoder: AudioEncoder
        let ring: BufferRing
        // Written by the encoder thread only; read by the renderer after `waitUntilReadingClosed()`,
        // whose lock orders the two.
        var encodeSeconds: Double = 0
        var encodeCPUSeconds: Double = 0

        init(encoder: AudioEncoder, ring: BufferRing) {
            self.encoder = encoder
            self.ring = ring
        }

        func run() {
            let clock = ContinuousClock()
            // The renderer never closes its end with a failure, so `next()` does not throw here.
            while let block = try? ring.next() {
                let started = clock.now, startedCPU = CPUClock.thread
                do {
                    try encoder.write(interleaved: block.buffer, frames: block.count)
                } catch {
                    encodeSeconds += (clock.now - started).seconds
                    encodeCPUSeconds += CPUClock.thread - startedCPU
                    ring.closeReading(failure: error)
                    return
                }
                encodeSeconds += (clock.now - started).seconds
                encodeCPUSeconds += CPUClock.thread - startedCPU
                ring.release()
            }
            ring.closeReading()
        }
    }
}
