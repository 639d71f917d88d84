import Foundation
@testable import MixEngine
import Testing

/// `ChunkScheduler`: a reader that finishes a chunk as soon as it has every frame reported (as `ParallelMixer`'s
/// render thread does) while its worker has not yet returned, gets every chunk after it whole.
@Suite struct ChunkSchedulerTests {
    /// A worker that writes its chunk's frames (the chunk's number, `frames` times) and reports them all. On an even
    /// chunk it then lingers before it returns: the reader finishes the chunk meanwhile, and the other worker takes
    /// its slot for chunk k + 3, on which it is slow to report (chunks 3, 6, 9). The lingering worker's completion of
    /// chunk k must not mark chunk k + 3 complete with nothing done.
    private final class LingeringWorker: ChunkWorker {
        let slots: [UnsafeMutableBufferPointer<Int>]
        init(slots: [UnsafeMutableBufferPointer<Int>]) { self.slots = slots }

        func work(chunk: Int, slot: Int, progress: (Int) -> Bool) throws -> Bool {
            if chunk % 3 == 0 && chunk > 0 { usleep(100_000) }
            for i in slots[slot].indices { slots[slot][i] = chunk }
            guard progress(slots[slot].count) else { return true }
            usleep(chunk % 2 == 0 ? 20_000 : 0)
            return true
        }
    }

    @Test func aChunkFinishedBeforeItsWorkerReturnedLeavesTheNextOnesWhole() throws {
        let frames = 100, chunkCount = 12
        let slots = (0..<3).map { _ in UnsafeMutableBufferPointer<Int>.allocate(capacity: frames) }
        defer { for slot in slots { slot.deallocate() } }
        let scheduler = ChunkScheduler(chunkCount: chunkCount, slotCount: slots.count)
        scheduler.start((0..<2).map { _ in LingeringWorker(slots: slots) }, threadName: "chunk test")
        defer { scheduler.stop() }
        var seen: [Int] = []
        for k in 0..<chunkCount {
            var read = 0
            while read < frames {
                let (slot, done) = try scheduler.frames(ofChunk: k, after: read, wanting: frames - read)
                #expect(done > read, "chunk \(k): \(done) frames done after \(read) read")
                guard done > read else { return }
                seen += slots[slot][read..<done]
                read = done
            }
            scheduler.finished(chunk: k)   // every frame read: finished before its worker returns
        }
        #expect(seen == (0..<chunkCount).flatMap { Array(repeating: $0, count: frames) })
    }
}
