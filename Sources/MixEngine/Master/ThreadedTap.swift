import Foundation  // Thread
import MixDSP

/// Runs another tap on a thread of its own: the render thread copies each block into a ring and goes on, and
/// the tap's thread measures it. A render's output loudness meter (`LoudnessTap`: K-weighting, gating and the
/// 4x true-peak detector, about a fifth of a render to WAV) runs so, on the core the WAV writer leaves idle.
///
/// Layout: a `BufferRing` of `depth` planar buffers (`channelCount` runs of `blockFrames` floats each), the
/// positions of the blocks in it, and a block the tap's thread copies each buffer into. `init` allocates them
/// and starts the thread; `receive` allocates nothing. `receive`, `finish` and `abandon` are called from the
/// render thread; the inner tap's `receive` runs on the tap's thread, its `finish` and `abandon` on the render
/// thread after that thread has ended. Read the inner tap only after `finish`.
public final class ThreadedTap: MixTap {
    private let ring: BufferRing
    private let worker: Worker
    private let blockFrames: Int
    private let channelCount: Int
    private var isClosed = false
    /// Blocks handed over so far (the render thread's count; the worker keeps its own).
    private var published = 0

    public init(_ tap: MixTap, channelCount: Int, blockFrames: Int, depth: Int = 8) {
        self.blockFrames = blockFrames
        self.channelCount = channelCount
        ring = BufferRing(slotCount: depth, capacity: blockFrames * channelCount)
        worker = Worker(tap: tap, ring: ring, channelCount: channelCount, blockFrames: blockFrames, depth: depth)
        let worker = self.worker
        let thread = Thread { worker.run() }
        thread.name = "mixrender-tap"
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit { ring.closeWriting() }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        precondition(count <= blockFrames)
        let buffer = try ring.reserve()
        for c in 0..<channelCount {
            Kernels.copy(block.channel(c).baseAddress! + offset, to: buffer + c * blockFrames, count: count)
        }
        worker.positions[published % worker.depth] = position
        published += 1
        ring.publish(count: count)
    }

    public func finish() throws {
        try close()
        try worker.tap.finish()
    }

    public func abandon() {
        try? close()
        worker.tap.abandon()
    }

    private func close() throws {
        guard !isClosed else { return }
        isClosed = true
        ring.closeWriting()
        if let failure = ring.waitUntilReadingClosed() { throw failure }
    }

    /// The tap's thread: holds what it needs itself, so the thread never outlives what it uses.
    private final class Worker: @unchecked Sendable {
        let tap: MixTap
        let ring: BufferRing
        let block: AudioBlock
        let blockFrames: Int
        /// Each slot's timeline position: written by the render thread before `publish`, read here after `next`
        /// (the ring's lock orders the two).
        let positions: UnsafeMutablePointer<Int64>
        let depth: Int

        init(tap: MixTap, ring: BufferRing, channelCount: Int, blockFrames: Int, depth: Int) {
            self.tap = tap
            self.ring = ring
            self.blockFrames = blockFrames
            block = AudioBlock(channelCount: channelCount, capacity: blockFrames)
            self.depth = depth
            positions = .allocate(capacity: depth)
            positions.initialize(repeating: 0, count: depth)
        }

        deinit { positions.deallocate() }

        func run() {
            var taken = 0
            while let slot = try? ring.next() {
                for c in 0..<block.channelCount {
                    Kernels.copy(slot.buffer + c * blockFrames, to: block.channel(c).baseAddress!, count: slot.count)
                }
                do {
                    try tap.receive(block, offset: 0, count: slot.count, at: positions[taken % depth])
                } catch {
                    ring.closeReading(failure: error)
                    return
                }
                taken += 1
                ring.release()
            }
            ring.closeReading()
        }
    }
}
