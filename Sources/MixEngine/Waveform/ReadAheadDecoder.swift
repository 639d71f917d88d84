import Foundation
import MixDSP

/// Decodes on a thread of its own, up to `slotCount` blocks ahead of the reader, so decoding and
/// analysis overlap on two cores and the analysis waits only for the decoder. Buffers are allocated
/// once; memory is `slotCount` blocks whatever the file's length.
final class ReadAheadDecoder: @unchecked Sendable {
    let channelCount: Int
    let blockFrames: Int
    private let slotCount: Int
    private let buffers: [UnsafeMutablePointer<Float>]
    private var counts: [Int]
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var produced = 0, consumed = 0
    private var isEnded = false, isCancelled = false
    private var failure: Error?
    private let exited = DispatchSemaphore(value: 0)

    /// Starts decoding `decoder` at once. Call `next()` / `release()` from one thread only, and `cancel()`
    /// when done (the decoding thread holds on to this object until it ends).
    init(_ decoder: AudioDecoder, blockFrames: Int, slotCount: Int = 4) {
        precondition(blockFrames > 0 && slotCount > 1)
        channelCount = decoder.channelCount
        self.blockFrames = blockFrames
        self.slotCount = slotCount
        buffers = (0..<slotCount).map { _ in .allocate(capacity: blockFrames * decoder.channelCount) }
        counts = [Int](repeating: 0, count: slotCount)
        let thread = Thread { [self] in decode(decoder) }
        thread.name = "mixrender waveform decoder"
        thread.stackSize = 8 << 20   // as the main thread's: decoders may keep large frames on the stack
        thread.start()
    }

    deinit {
        cancel()
        for b in buffers { b.deallocate() }
    }

    /// The next decoded block, waiting for it if needed; nil at the end of the file. Rethrows the
    /// decoder's error. Call `release()` when done with the block.
    func next() throws -> (samples: UnsafePointer<Float>, frames: Int)? {
        condition.lock()
        defer { condition.unlock() }
        while consumed == produced && !isEnded { condition.wait() }
        if consumed < produced {
            let slot = consumed % slotCount
            return (UnsafePointer(buffers[slot]), counts[slot])
        }
        if let failure { throw failure }
        return nil
    }

    /// Frees the block `next()` returned.
    func release() {
        condition.lock()
        consumed += 1
        condition.signal()
        condition.unlock()
    }

    /// Stops the decoder and waits for its thread to end (once).
    func cancel() {
        condition.lock()
        let wasRunning = !isCancelled
        isCancelled = true
        condition.signal()
        condition.unlock()
        if wasRunning { exited.wait() }
    }

    private func decode(_ decoder: AudioDecoder) {
        defer { exited.signal() }
        while true {
            condition.lock()
            while produced - consumed == slotCount && !isCancelled { condition.wait() }
            let stop = isCancelled
            let slot = produced % slotCount
            condition.unlock()
            if stop { return }
            var n = 0, error: Error?
            do { n = try decoder.read(into: buffers[slot], frames: blockFrames) } catch let e { error = e }
            condition.lock()
            if n > 0 {
                counts[slot] = n
                produced += 1
            } else {
                failure = error
                isEnded = true
            }
            condition.signal()
            condition.unlock()
            if n == 0 { return }
        }
    }
}
