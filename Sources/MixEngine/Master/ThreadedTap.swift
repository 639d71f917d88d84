import Foundation  // Thread
import MixDSP
import MixIO  // CPUClock

/// Runs sinks (`MixTap`s) on threads of their own, one each: the render thread copies each block into a ring once
/// and goes on, and each sink's thread hands it to its sink. The one threaded adapter of the output side: the
/// output file's encoder (`EncoderSink`, interleaving for it) and a render's output loudness meter (`LoudnessTap`:
/// K-weighting, gating and the 4x true-peak detector, about a third of a render to WAV's CPU time) share one, and
/// a waveform recorder runs in one of its own.
///
/// Layout: a `BufferRing` of `depth` planar buffers (`channelCount` runs of `blockFrames` floats, each run 16
/// floats after the last, as an `AudioBlock` staggers its channels) that every sink reads, the positions of the
/// blocks in it, a block viewing each buffer (the sinks read it where the render thread copied it), and timers.
/// `init` allocates them and starts the threads; `receive` allocates nothing. `receive`, `finish` and `abandon`
/// are called from the render thread; each inner sink's `receive` runs on its thread, its `finish` and `abandon`
/// on the render thread after every thread has ended. Read the inner sinks (and `workSeconds`) only after
/// `finish` or `abandon`. If a sink fails, its thread stops taking blocks and the next `receive` (or `finish`)
/// throws the sink's error.
public final class ThreadedTap: MixTap {
    private let ring: BufferRing
    private let workers: [Worker]
    private let slots: Slots
    private let blockFrames: Int
    private let channelCount: Int
    /// Floats from one channel's run of a buffer to the next: `blockFrames` and one cache line.
    private let channelStride: Int
    private var isClosed = false
    /// Blocks handed over so far (the render thread's count; each worker keeps its own).
    private var published = 0
    private let clock = ContinuousClock()
    /// Seconds the render thread spent handing blocks over (copying, and waiting for a free buffer when a
    /// sink is behind), and its CPU seconds doing so: the copying's wall time (a copy does not wait; the
    /// thread's CPU clock is a system call, which around every block cost more than the copy).
    public private(set) var handOverSeconds: Double = 0
    public private(set) var handOverCPUSeconds: Double = 0
    /// Seconds sink `i`'s thread spent inside the sink's `receive` (complete after `finish` or `abandon`), and
    /// that thread's CPU seconds (all of them: it only takes blocks, and waits for them at next to no cost).
    public func workSeconds(sink i: Int) -> Double { workers[i].workSeconds }
    public func workCPUSeconds(sink i: Int) -> Double { workers[i].workCPUSeconds }
    /// The sinks it runs, in the order given.
    public var sinks: [MixTap] { workers.map(\.tap) }

    /// `sinks` pairs each sink with the name of its thread (`mixrender-encoder`, `mixrender-meter`), as debuggers and
    /// `top -H` show them. `depth` is the buffers in flight: 8 by default (32,768 frames, 0.68 s at 48 kHz, 256 KiB in
    /// stereo), shared by the sinks. With 4 a waiting thread was woken every two blocks, and a render to WAV made twice
    /// the context switches and ran about 5 % slower; when the encoder and the meter had a ring of 4 each, 8 each
    /// raised the peak RSS 0.5 to 1 MiB (docs/performance.md, "Rendering to WAV, later that day").
    public init(_ sinks: [(tap: MixTap, thread: String)], channelCount: Int, blockFrames: Int, depth: Int = 8) {
        precondition(!sinks.isEmpty, "a threaded tap runs one sink or more")
        self.blockFrames = blockFrames
        self.channelCount = channelCount
        let channelStride = (blockFrames + 15) / 16 * 16 + 16
        self.channelStride = channelStride
        let ring = BufferRing(slotCount: depth, capacity: channelStride * channelCount, readers: sinks.count)
        self.ring = ring
        let slots = Slots(ring: ring, channelCount: channelCount, blockFrames: blockFrames, channelStride: channelStride)
        self.slots = slots
        workers = sinks.indices.map { Worker(tap: sinks[$0].tap, reader: $0, ring: ring, slots: slots) }
        for (worker, sink) in zip(workers, sinks) {
            let thread = Thread { worker.run() }
            thread.name = sink.thread
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// One sink on a thread named `name`.
    public convenience init(_ tap: MixTap, channelCount: Int, blockFrames: Int, depth: Int = 8, name: String = "mixrender-tap") {
        self.init([(tap, name)], channelCount: channelCount, blockFrames: blockFrames, depth: depth)
    }

    /// Lets the sinks' threads take what is queued and end, if `finish` or `abandon` was never called.
    deinit { ring.closeWriting() }

    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        precondition(count <= blockFrames)
        let started = clock.now
        let buffer: UnsafeMutablePointer<Float>
        do { buffer = try ring.reserve() } catch { handOverSeconds += (clock.now - started).seconds; throw error }
        let copying = clock.now
        for c in 0..<channelCount {
            Kernels.copy(block.channel(c).baseAddress! + offset, to: buffer + c * channelStride, count: count)
        }
        // The copy's wall time stands for its CPU time: a copy does not wait (the thread's CPU clock is a system call).
        let copied = clock.now
        handOverSeconds += (copied - started).seconds
        handOverCPUSeconds += (copied - copying).seconds
        slots.positions[published % slots.views.count] = position
        published += 1
        ring.publish(count: count)
    }

    /// Waits until every sink has taken every queued block, then finishes them in order; the first error is thrown
    /// after all were tried.
    public func finish() throws {
        try close()
        var failure: Error?
        for worker in workers {
            do { try worker.tap.finish() } catch { if failure == nil { failure = error } }
        }
        if let failure { throw failure }
    }

    public func abandon() {
        try? close()
        for worker in workers { worker.tap.abandon() }
    }

    /// Stops the sinks' threads after the queued blocks; rethrows the first failure, if any. Once only.
    private func close() throws {
        guard !isClosed else { return }
        isClosed = true
        ring.closeWriting()
        if let failure = ring.waitUntilReadingClosed() { throw failure }
    }

    /// What the render thread and the sinks' threads share besides the ring: a block viewing each slot's buffer, and
    /// the position of the block in each slot. Held by the tap and by every worker, so that it outlives the threads.
    /// `@unchecked Sendable`: `positions[i]` is written by the render thread before `publish` and read by the sinks'
    /// threads after `next` returns that slot (the ring's counts, stored and loaded atomically, order them); the
    /// views are read only (the sinks do not change a block).
    private final class Slots: @unchecked Sendable {
        let views: [AudioBlock]
        let positions: UnsafeMutablePointer<Int64>

        init(ring: BufferRing, channelCount: Int, blockFrames: Int, channelStride: Int) {
            views = (0..<ring.slotCount).map {
                AudioBlock(viewing: ring.buffer($0), channelCount: channelCount, capacity: blockFrames, stride: channelStride)
            }
            positions = .allocate(capacity: ring.slotCount)
            positions.initialize(repeating: 0, count: ring.slotCount)
        }

        deinit { positions.deallocate() }
    }

    /// A sink's thread: holds what it needs itself, so the thread never outlives what it uses.
    /// `@unchecked Sendable`: handed to the thread once; `tap` is used by that thread only until it closes its
    /// end of the ring, and by the render thread only after `waitUntilReadingClosed` (the ring orders the two);
    /// the timers are written here only and read after the thread has closed its end.
    private final class Worker: @unchecked Sendable {
        let tap: MixTap
        /// This sink's reader number in the ring.
        let reader: Int
        let ring: BufferRing
        let slots: Slots
        var workSeconds: Double = 0
        var workCPUSeconds: Double = 0

        init(tap: MixTap, reader: Int, ring: BufferRing, slots: Slots) {
            self.tap = tap
            self.reader = reader
            self.ring = ring
            self.slots = slots
        }

        /// The thread's CPU time is read once, at its end: it does nothing but take blocks and wait for them
        /// (a wait costs next to no CPU), and the clock is a system call (read around every block, on both
        /// taps' threads, it cost a render to WAV 5 % of its CPU time in the kernel).
        func run() {
            let clock = ContinuousClock()
            let startedCPU = CPUClock.thread
            let depth = slots.views.count
            var taken = 0
            // The render thread never closes its end with a failure, so `next` does not throw here.
            while let slot = try? ring.next(reader: reader) {
                let started = clock.now
                // Slots are taken in turn, as they were published.
                let block = slots.views[taken % depth]
                precondition(block.channel(0).baseAddress == slot.buffer, "the ring gave its slots out of turn")
                do {
                    try tap.receive(block, offset: 0, count: slot.count, at: slots.positions[taken % depth])
                } catch {
                    workSeconds += (clock.now - started).seconds
                    workCPUSeconds = CPUClock.thread - startedCPU   // before the close, after which the timers are read
                    ring.closeReading(reader: reader, failure: error)
                    return
                }
                workSeconds += (clock.now - started).seconds
                taken += 1
                ring.release(reader: reader)
            }
            workCPUSeconds = CPUClock.thread - startedCPU
            ring.closeReading(reader: reader)
        }
    }
}
