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
/// **Threads.** `init` starts the workers; `mix` and `stop` are called from the render thread. All shared state
/// (which stint each buffer holds, how far the render thread has read, a failure) is guarded by one
/// `NSCondition`; a buffer's samples are written by one worker while it holds the buffer, and read by the render
/// thread only after the worker has published it under the lock. `stop` must be called (the render does, on
/// every path) before the mixer is dropped: it tells the workers to stop and waits for them; `deinit` checks it.
final class ParallelMixer {
    /// Seconds of timeline in a stint: a whole number of every generator's epochs, long enough that a worker's
    /// seeks at its start cost little of it, short enough that the buffers stay a few MiB.
    static let stintSeconds = 16

    /// Where the stints lie.
    let stints: Stints
    private let shared: Shared
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
        shared = Shared(channelCount: plan.channelCount, stintFrames: Int(stints.stintFrames), slotCount: workers + 1, stintCount: stints.count)
        for w in 0..<workers {
            let job = WorkerJob(shared: shared, mixer: TrackMixer(plan: plan, material: material, blockFrames: blockFrames),
                                bus: AudioBlock(channelCount: plan.channelCount, capacity: blockFrames),
                                first: w, step: workers, stints: stints)
            let thread = Thread { job.run() }
            thread.name = "mixrender-mix-\(w + 1)"
            thread.stackSize = 8 << 20
            thread.start()
        }
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
    /// order, each starting where the last ended). Waits for the workers mixing them; throws the failure of a worker
    /// that failed at or before their stints.
    func mix(into bus: AudioBlock, at position: Int64, count n: Int) throws {
        precondition(position >= stints.span.lowerBound && position + Int64(n) <= stints.span.upperBound, "the render loop asks for the span's frames")
        var done = 0
        while done < n {
            let frame = position + Int64(done)
            let j = stints.stint(holding: frame)
            let stint = stints.frames(ofStint: j)
            let slot = try shared.waitForStint(j)
            let count = Int(min(Int64(n - done), stint.upperBound - frame))
            let within = stints.offset(of: frame)
            for c in 0..<bus.channelCount {
                Kernels.copy(slot.channel(c).baseAddress! + within, to: bus.channel(c).baseAddress! + done, count: count)
            }
            done += count
            if frame + Int64(count) == stint.upperBound { shared.release(j) }
        }
    }

    /// Stops the workers (after the last stint, or on a failure) and waits until every one has ended; adds what
    /// their mixers timed (`sources`, `mix` and their CPU seconds, summed over the workers) to `timings`.
    /// Later calls do nothing.
    func stop(timings: inout RenderTimings) {
        guard !isStopped else { return }
        isStopped = true
        timings.addMixing(of: shared.stopAndWait())
    }

    /// What the workers and the render thread share. `@unchecked Sendable`: every stored property but the slots'
    /// samples is read and written under `condition`; a slot's samples are written only by the worker that
    /// claimed it (between `claim` and `publish`) and read only by the render thread after `waitForStint`
    /// returned it and before `release` (the lock orders the two).
    final class Shared: @unchecked Sendable {
        let slots: [AudioBlock]
        let stintCount: Int
        private let condition = NSCondition()
        /// Which stint each slot holds once published (-1: none).
        private var ready: [Int]
        /// Stints the render thread has finished with: stint `i` may be mixed into slot `i % slots.count` once
        /// `i < released + slots.count`.
        private var released = 0
        private var stopping = false
        private var running = 0
        /// The first failing stint and its error.
        private var failure: (stint: Int, error: Error)?
        private var timings = RenderTimings()

        init(channelCount: Int, stintFrames: Int, slotCount: Int, stintCount: Int) {
            slots = (0..<slotCount).map { _ in AudioBlock(channelCount: channelCount, capacity: stintFrames) }
            ready = Array(repeating: -1, count: slotCount)
            self.stintCount = stintCount
        }

        // MARK: Workers

        func started() { condition.lock(); running += 1; condition.unlock() }

        /// The slot for `stint`, once the render thread has freed it; nil when the render is stopping.
        func claim(_ stint: Int) -> AudioBlock? {
            condition.lock()
            defer { condition.unlock() }
            while stint >= released + slots.count && !stopping { condition.wait() }
            return stopping ? nil : slots[stint % slots.count]
        }

        /// Whether the worker should give up its stint (the render is stopping).
        var isStopping: Bool { condition.lock(); defer { condition.unlock() }; return stopping }

        func publish(_ stint: Int) {
            condition.lock()
            ready[stint % slots.count] = stint
            condition.broadcast()
            condition.unlock()
        }

        func fail(_ stint: Int, _ error: Error) {
            condition.lock()
            if failure == nil || stint < failure!.stint { failure = (stint, error) }
            condition.broadcast()
            condition.unlock()
        }

        func ended(adding measured: RenderTimings) {
            condition.lock()
            timings.addMixing(of: measured)
            running -= 1
            condition.broadcast()
            condition.unlock()
        }

        // MARK: Render thread

        func waitForStint(_ stint: Int) throws -> AudioBlock {
            condition.lock()
            defer { condition.unlock() }
            while ready[stint % slots.count] != stint {
                if let failure, failure.stint <= stint { throw failure.error }
                condition.wait()
            }
            return slots[stint % slots.count]
        }

        func release(_ stint: Int) {
            condition.lock()
            released = stint + 1
            condition.broadcast()
            condition.unlock()
        }

        func stopAndWait() -> RenderTimings {
            condition.lock()
            defer { condition.unlock() }
            stopping = true
            condition.broadcast()
            while running > 0 { condition.wait() }
            return timings
        }
    }

    /// One worker's part: its mixer and bus, and the stints it mixes (`first`, `first + step`, ...).
    /// `@unchecked Sendable`: handed to its thread once and used by that thread alone (`stints` is read only).
    private final class WorkerJob: @unchecked Sendable {
        let shared: Shared
        let mixer: TrackMixer
        let bus: AudioBlock
        let first: Int, step: Int
        let stints: Stints

        init(shared: Shared, mixer: TrackMixer, bus: AudioBlock, first: Int, step: Int, stints: Stints) {
            self.shared = shared
            self.mixer = mixer
            self.bus = bus
            self.first = first
            self.step = step
            self.stints = stints
            shared.started()   // counted before the thread starts, so `stopAndWait` cannot miss it
        }

        func run() {
            var timings = RenderTimings()
            defer { shared.ended(adding: timings) }
            let blockFrames = bus.capacity
            var laps = ThreadCPULaps()
            var j = first
            while j < shared.stintCount {
                guard let slot = shared.claim(j) else { return }
                let frames = stints.frames(ofStint: j)
                var position = frames.lowerBound
                var offset = stints.offset(of: frames.lowerBound)
                do {
                    while position < frames.upperBound {
                        if shared.isStopping { return }
                        let n = Int(min(Int64(blockFrames), frames.upperBound - position))
                        try mixer.mixTracks(into: bus, at: position, count: n, cpu: &laps, timings: &timings)
                        for c in 0..<bus.channelCount {
                            Kernels.copy(bus.channel(c).baseAddress!, to: slot.channel(c).baseAddress! + offset, count: n)
                        }
                        offset += n
                        position += Int64(n)
                    }
                } catch {
                    shared.fail(j, error)
                    return
                }
                shared.publish(j)
                j += step
            }
        }
    }
}
