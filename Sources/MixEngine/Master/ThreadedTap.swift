import Foundation  // Thread
import MixDSP
import MixIO  // CPUClock

/// Runs any sink (`MixTap`) on a thread of its own: the render thread copies each block into a ring and goes
/// on, and the sink's thread hands it to the sink. The one threaded adapter of the output side: the output
/// file's encoder (`EncoderSink`, interleaving for it), a render's output loudness meter (`LoudnessTap`:
/// K-weighting, gating and the 4x true-peak detector, about a sixth of a render to WAV's CPU time, on the core the
/// WAV writer leaves idle) and a waveform recorder each run so.
///
/// Layout: a `BufferRing` of `depth` planar buffers (`channelCount` runs of `blockFrames` floats, each run 16
/// floats after the last, as an `AudioBlock` staggers its channels), the positions of the blocks in it, a block
/// viewing each buffer (the sink reads it where the render thread copied it), and four timers.
/// `init` allocates them and starts the thread; `receive` allocates nothing. `receive`, `finish` and `abandon`
/// are called from the render thread; the inner sink's `receive` runs on the sink's thread, its `finish` and
/// `abandon` on the render thread after that thread has ended. Read the inner sink (and `workSeconds`) only
/// after `finish` or `abandon`. If the sink fails, its thread stops taking blocks and the next `receive` (or
/// `finish`) throws the sink's error.
public final class ThreadedTap: MixTap {
    private let ring: BufferRing
    private let worker: Worker
    private let blockFrames: Int
    private let channelCount: Int
    /// Floats from one channel's run of a buffer to the next: `blockFrames` and one cache line.
    private let channelStride: Int
    private var isClosed = false
    /// Blocks handed over so far (the render thread's count; the worker keeps its own).
    private var published = 0
    private let clock = ContinuousClock()
    /// Seconds the render thread spent handing blocks over (copying, and waiting for a free buffer when the
    /// sink is behind), and its CPU seconds doing so: the copying's wall time (a copy does not wait; the
    /// thread's CPU clock is a system call, which around every block cost more than the copy).
    public private(set) var handOverSeconds: Double = 0
    public private(set) var handOverCPUSeconds: Double = 0
    /// Seconds the sink's thread spent inside the sink's `receive` (complete after `finish` or `abandon`), and
    /// that thread's CPU seconds (all of them: it only takes blocks, and waits for them at next to no cost).
    public var workSeconds: Double { worker.workSeconds }
    public var workCPUSeconds: Double { worker.workCPUSeconds }
    /// The sink it runs.
    public var sink: MixTap { worker.tap }

    /// `name` names the thread (`mixrender-encoder`, `mixrender-tap`), as debuggers and `top -H` show it.
    /// `depth` is the buffers in flight: 4 by default (16,384 frames, 0.34 s at 48 kHz, 128 KiB in stereo);
    /// 8 rendered no faster to Ogg (the sink behind), and a WAV about 5 % faster (half the wake-ups), but raised
    /// the peak RSS 0.5 to 1 MiB, which a render's memory ceiling (its loops + 32 MiB) cannot spare
    /// (docs/performance.md, "Rendering to WAV, later that day").
    public init(_ tap: MixTap, channelCount: Int, blockFrames: Int, depth: Int = 4, name: String = "mixrender-tap") {
        self.blockFrames = blockFrames
        self.channelCount = channelCount
        channelStride = (blockFrames + 15) / 16 * 16 + 16
        ring = BufferRing(slotCount: depth, capacity: channelStride * channelCount)
        worker = Worker(tap: tap, ring: ring, channelCount: channelCount, blockFrames: blockFrames, channelStride: channelStride,
                        depth: depth)
        let worker = self.worker
        let thread = Thread { worker.run() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Lets the sink's thread take what is queued and end, if `finish` or `abandon` was never called.
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
        worker.positions[published % worker.depth] = position
        published += 1
        ring.publish(count: count)
    }

    /// Waits until the sink has taken every queued block, then finishes it.
    public func finish() throws {
        try close()
        try worker.tap.finish()
    }

    public func abandon() {
        try? close()
        worker.tap.abandon()
    }

    /// Stops the sink's thread after the queued blocks; rethrows its failure, if any. Once only.
    private func close() throws {
        guard !isClosed else { return }
        isClosed = true
        ring.closeWriting()
        if let failure = ring.waitUntilReadingClosed() { throw failure }
    }

    /// The sink's thread: holds what it needs itself, so the thread never outlives what it uses.
    /// `@unchecked Sendable`: handed to the thread once; `tap` is used by that thread only until it closes its
    /// end of the ring, and by the render thread only after `waitUntilReadingClosed` (the ring orders the two);
    /// `views[i]` is read here between `next` returning slot i and `release`; `positions[i]` is written by the
    /// render thread before `publish` and read here after `next` returns that slot (the ring's counts, stored
    /// and loaded atomically, order them); the timers are written here only and read after the thread has
    /// closed its end.
    private final class Worker: @unchecked Sendable {
        let tap: MixTap
        let ring: BufferRing
        /// A block viewing each slot's buffer.
        let views: [AudioBlock]
        let positions: UnsafeMutablePointer<Int64>
        let depth: Int
        var workSeconds: Double = 0
        var workCPUSeconds: Double = 0

        init(tap: MixTap, ring: BufferRing, channelCount: Int, blockFrames: Int, channelStride: Int, depth: Int) {
            self.tap = tap
            self.ring = ring
            views = (0..<depth).map {
                AudioBlock(viewing: ring.buffer($0), channelCount: channelCount, capacity: blockFrames, stride: channelStride)
            }
            self.depth = depth
            positions = .allocate(capacity: depth)
            positions.initialize(repeating: 0, count: depth)
        }

        deinit { positions.deallocate() }

        /// The thread's CPU time is read once, at its end: it does nothing but take blocks and wait for them
        /// (a wait costs next to no CPU), and the clock is a system call (read around every block, on both
        /// taps' threads, it cost a render to WAV 5 % of its CPU time in the kernel).
        func run() {
            let clock = ContinuousClock()
            let startedCPU = CPUClock.thread
            var taken = 0
            // The render thread never closes its end with a failure, so `next()` does not throw here.
            while let slot = try? ring.next() {
                let started = clock.now
                // Slots are taken in turn, as they were published.
                let block = views[taken % depth]
                precondition(block.channel(0).baseAddress == slot.buffer, "the ring gave its slots out of turn")
                do {
                    try tap.receive(block, offset: 0, count: slot.count, at: positions[taken % depth])
                } catch {
                    workSeconds += (clock.now - started).seconds
                    workCPUSeconds = CPUClock.thread - startedCPU   // before the close, after which the timers are read
                    ring.closeReading(failure: error)
                    return
                }
                workSeconds += (clock.now - started).seconds
                taken += 1
                ring.release()
            }
            workCPUSeconds = CPUClock.thread - startedCPU
            ring.closeReading()
        }
    }
}
