import Foundation  // Thread, NSCondition
import MixDSP

/// The bus mixed ahead of the master chain by several threads (`--threads N`): the timeline is cut into stints of
/// `stintSeconds` (from frame 0, so a stint starts on an epoch of every generator that has them), and `workers`
/// threads, each with a `TrackMixer` of its own, mix every `N`th stint of the span the render loop walks into a ring
/// of stint buffers. The render thread takes its blocks back in order and runs them through the one master chain
/// (limiter, meters, the one encoder) as a one-thread render does.
///
/// **Why this is exact.** A `TrackMixer` mixes a frame from its absolute position alone, whatever the blocks around
/// it: every source is addressed by position (a generator reaches any frame through its epochs, a file's stream
/// seeks), and every gain is computed from the position (`WindowAnywhereTests` renders windows anywhere, in other
/// blocks, to the same samples). So each frame is the same whichever mixer made it, and everything with state across
/// blocks (the limiter, the encoder, the meters) still runs once, in order, on the render thread: the output equals
/// the one-thread render bit for bit, for every format, the lossy ones included (one encoder stream, no seams).
///
/// **What it costs.** A worker jumps `N - 1` stints after each of its own, and every source it plays seeks there: a
/// generator runs its epoch's warm-up (rain 0.1 s, wind 0.5 s) and its DC blocker's (0.75 s) before the stint's
/// first frame. Stints start on whole multiples of `stintSeconds`, which every generator's epoch divides (rain 2 s,
/// wind 4 s, the DC blocker 1 s), so a seek costs the warm-ups alone, not a part epoch too.
///
/// **Memory.** `workers + 1` stint buffers (`channelCount` × `stintSeconds` × rate floats each: 5.9 MiB for stereo
/// at 48 kHz; one for the render thread to read while each worker fills one) and the workers' mixers, all allocated
/// in `init`; `mix` allocates nothing.
///
/// **Threads.** A `ChunkScheduler` deals the stints to the workers and hands them to the render thread in order:
/// `init` starts the workers; `mix` and `stop` are called from the render thread. `stop` must be called (the render
/// does, on every path) before the mixer is dropped: it tells the workers to stop and waits for them; `deinit`
/// checks it.
final class ParallelMixer {
    /// Seconds of timeline in a stint: a whole number of every generator's epochs, long enough that a worker's
    /// seeks at its start cost little of it, short enough that the buffers stay a few MiB.
    static let stintSeconds = 16

    /// Where the stints lie.
    let stints: Stints
    /// The stint buffers the workers mix into, in the scheduler's turn.
    private let slots: [AudioBlock]
    private let scheduler: ChunkScheduler
    private let workers: [StintMixer]
    private var isStopped = false

    deinit { precondition(isStopped, "a ParallelMixer is stopped before it is dropped") }

    /// Whether mixing `span` on `threads` threads can help: at least two workers and three stints.
    static func helps(threads: Int, span: Range<Int64>, sampleRate: Int) -> Bool {
        threads > 1 && span.count >= 3 * Int64(stintSeconds * sampleRate)
    }

    /// Starts `workers` threads mixing `span` of `plan` (the frames the render loop will ask for, in order), each
    /// in blocks of `blockFrames`.
    init(plan: RenderPlan, material: PreparedMaterial, span: Range<Int64>, blockFrames: Int, workers: Int) {
        precondition(workers > 1 && !span.isEmpty && span.lowerBound >= 0)
        let stints = Stints(span: span, stintFrames: Int64(Self.stintSeconds * plan.sampleRate))
        self.stints = stints
        // No more workers than stints: one with none to mix would only hold a buffer.
        let workers = min(workers, stints.count)
        let slots = (0...workers).map { _ in AudioBlock(channelCount: plan.channelCount, capacity: Int(stints.stintFrames)) }
        self.slots = slots
        scheduler = ChunkScheduler(chunkCount: stints.count, slotCount: slots.count)
        self.workers = (0..<workers).map { _ in
            StintMixer(mixer: TrackMixer(plan: plan, material: material, blockFrames: blockFrames),
                       bus: AudioBlock(channelCount: plan.channelCount, capacity: blockFrames), slots: slots, stints: stints,
                       reportFrames: plan.sampleRate)
        }
        scheduler.start(self.workers, threadName: "mixrender-mix")
    }

    /// The span cut into stints: stint `j` is the part of the span in frames `[k, k + 1) * stintFrames` of the
    /// timeline, `k = firstStint + j`. A value of three numbers.
    struct Stints: Sendable {
        let span: Range<Int64>
        let stintFrames: Int64
        var firstStint: Int64 { span.lowerBound / stintFrames }
        var count: Int { Int((span.upperBound - 1) / stintFrames - firstStint + 1) }
        /// The stint holding `frame`.
        func stint(holding frame: Int64) -> Int { Int(frame / stintFrames - firstStint) }
        /// The frames of the span stint `j` holds.
        func frames(ofStint j: Int) -> Range<Int64> {
            let start = (firstStint + Int64(j)) * stintFrames
            return max(start, span.lowerBound)..<min(start + stintFrames, span.upperBound)
        }
        /// Where `frame` lies in its stint's buffer, which holds the whole stint from its start on the timeline.
        func offset(of frame: Int64) -> Int { Int(frame % stintFrames) }
    }

    /// Frames `[position, position + count)` of the mix into `bus`: the render loop's next block (blocks come in
    /// order, each starting where the last ended). Takes what the workers have mixed of them, waiting for the rest;
    /// throws the failure of a worker that failed at or before them.
    func mix(into bus: AudioBlock, at position: Int64, count n: Int) throws {
        precondition(position >= stints.span.lowerBound && position + Int64(n) <= stints.span.upperBound, "the render loop asks for the span's frames")
        var done = 0
        while done < n {
            let frame = position + Int64(done)
            let j = stints.stint(holding: frame)
            let stint = stints.frames(ofStint: j)
            let read = Int(frame - stint.lowerBound)
            let (slot, mixed) = try scheduler.frames(ofChunk: j, after: read, wanting: min(n - done, Int(stint.count) - read))
            precondition(mixed > read, "a worker mixes its stint whole")
            let count = min(n - done, mixed - read)
            let within = stints.offset(of: frame)
            for c in 0..<bus.channelCount {
                Kernels.copy(slots[slot].channel(c).baseAddress! + within, to: bus.channel(c).baseAddress! + done, count: count)
            }
            done += count
            if frame + Int64(count) == stint.upperBound { scheduler.finished(chunk: j) }
        }
    }

    /// Stops the workers (after the last stint, or on a failure) and waits until every one has ended; adds what
    /// their mixers timed (`sources`, `mix` and their CPU seconds, summed over the workers) to `timings`.
    /// Later calls do nothing.
    func stop(timings: inout RenderTimings) {
        guard !isStopped else { return }
        isStopped = true
        scheduler.stop()
        for worker in workers { timings.addMixing(of: worker.timings) }   // their threads have ended
    }

    /// One worker: its own mixer and bus, mixing a stint block by block into the slot the scheduler gives it, and
    /// reporting each block as it is copied there (the render thread may take it at once).
    private final class StintMixer: ChunkWorker {
        let mixer: TrackMixer
        let bus: AudioBlock
        let slots: [AudioBlock]
        let stints: Stints
        /// Frames mixed between two reports to the render thread: a second's.
        let reportFrames: Int
        /// What the mixer timed, read by the render thread once this worker's thread has ended.
        private(set) var timings = RenderTimings()
        /// The worker thread's CPU clock, started on that thread at its first stint.
        private var laps: ThreadCPULaps?

        init(mixer: TrackMixer, bus: AudioBlock, slots: [AudioBlock], stints: Stints, reportFrames: Int) {
            self.mixer = mixer
            self.reportFrames = reportFrames
            self.bus = bus
            self.slots = slots
            self.stints = stints
        }

        func work(chunk j: Int, slot: Int, progress: (Int) -> Bool) throws -> Bool {
            var laps = self.laps ?? ThreadCPULaps()
            defer { self.laps = laps }
            let frames = stints.frames(ofStint: j)
            let target = slots[slot]
            var position = frames.lowerBound
            var offset = stints.offset(of: position)
            var reported = 0
            while position < frames.upperBound {
                let n = Int(min(Int64(bus.capacity), frames.upperBound - position))
                try mixer.mixTracks(into: bus, at: position, count: n, cpu: &laps, timings: &timings)
                for c in 0..<bus.channelCount {
                    Kernels.copy(bus.channel(c).baseAddress!, to: target.channel(c).baseAddress! + offset, count: n)
                }
                offset += n
                position += Int64(n)
                // Reported a second at a time (and at the stint's end): at every block, the workers and the render
                // thread met on the scheduler's lock often enough to cost 40 % more futex calls.
                let mixed = Int(position - frames.lowerBound)
                if mixed - reported >= reportFrames || position == frames.upperBound {
                    guard progress(mixed) else { return true }
                    reported = mixed
                }
            }
            return true
        }
    }
}
