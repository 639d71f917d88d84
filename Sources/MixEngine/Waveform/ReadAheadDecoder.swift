import Foundation  // Thread
import MixDSP

/// Decodes on a thread of its own, up to `slotCount` blocks ahead of the reader, so decoding and
/// analysis overlap on two cores and the analysis waits only for the decoder. The decoding thread is
/// the producer and the reader the consumer of a `BufferRing`.
///
/// **Memory layout.** A `BufferRing` of `slotCount` interleaved buffers of `blockFrames * channelCount`
/// floats each (frame-major, as the decoder writes them), in one allocation; each slot's count is its
/// number of frames. Memory is `slotCount` blocks whatever the file's length.
///
/// **Allocation.** `init` allocates the ring and starts the thread; `next`, `release` and `cancel`
/// allocate nothing (an error is boxed only when one is thrown).
///
/// **Threads.** `next()`, `release()` and `cancel()` are called from one thread, the reader's. The
/// decoder's `read` runs only on the decoding thread, which holds on to this object until it ends:
/// call `cancel()` when done (`deinit` calls it too, but cannot run while the thread holds the object).
/// `@unchecked Sendable`, and safe: its stored properties are constants, and the ring (`BufferRing`) orders every
/// buffer handed between the two threads.
/// A file's decoded blocks, in order, for one reader thread: `ReadAheadDecoder` (one decoding thread) or
/// `ParallelReadAhead` (several). `next()` gives the next block (nil at the end), `release()` frees it, `cancel()`
/// stops the decoding and waits for its threads.
protocol DecodedBlocks: AnyObject {
    func next() throws -> (samples: UnsafePointer<Float>, frames: Int)?
    func release()
    func cancel()
}

final class ReadAheadDecoder: DecodedBlocks, @unchecked Sendable {
    let channelCount: Int
    let blockFrames: Int
    private let ring: BufferRing

    /// Starts decoding `decoder` at once.
    init(_ decoder: AudioDecoder, blockFrames: Int, slotCount: Int = 4) {
        precondition(blockFrames > 0 && slotCount > 1)
        channelCount = decoder.channelCount
        self.blockFrames = blockFrames
        ring = BufferRing(slotCount: slotCount, capacity: blockFrames * decoder.channelCount)
        let handoff = HandedOff(decoder)   // the caller keeps no reference: it reads the ring
        let thread = Thread { [self] in decode(handoff.value) }
        thread.name = "mixrender waveform decoder"
        thread.stackSize = 8 << 20   // as the main thread's: decoders may keep large frames on the stack
        thread.start()
    }

    deinit { cancel() }

    /// The next decoded block, waiting for it if needed; nil at the end of the file. Rethrows the
    /// decoder's error (after the blocks decoded before it). Call `release()` when done with the block.
    func next() throws -> (samples: UnsafePointer<Float>, frames: Int)? {
        guard let block = try ring.next() else { return nil }
        return (UnsafePointer(block.buffer), block.count)
    }

    /// Frees the block `next()` returned.
    func release() {
        ring.release()
    }

    /// Stops the decoder and waits for its thread to end. Later calls return at once.
    func cancel() {
        ring.closeReading()
        _ = ring.waitUntilWritingClosed()
    }

    private func decode(_ decoder: AudioDecoder) {
        while true {
            let buffer: UnsafeMutablePointer<Float>
            do { buffer = try ring.reserve() } catch { break }   // cancelled
            var n = 0, failure: Error?
            do { n = try decoder.read(into: buffer, frames: blockFrames) } catch { failure = error }
            guard n > 0 else {
                ring.closeWriting(failure: failure)
                return
            }
            ring.publish(count: n)
        }
        ring.closeWriting()
    }
}
