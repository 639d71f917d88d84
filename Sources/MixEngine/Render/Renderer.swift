import MixDSP
import MixIO

/// What a render did: its length, its levels, what the limiter did, and where the time went.
/// A value of numbers; allocates nothing. `Sendable`, safe to share.
public struct RenderSummary: Sendable {
    public var frameCount: Int64
    public var sampleRate: Int
    public var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }
    /// Highest sample of the mix before the limiter, in dBFS (may be above 0).
    public var mixPeakDb: Double
    /// Highest sample written, in dBFS.
    public var peakDb: Double
    /// RMS level of what was written, in dBFS.
    public var rmsDb: Double
    /// The most the limiter turned the mix down, in dB (0 if it never acted).
    public var maxGainReductionDb: Double
    /// How long the limiter was acting, in seconds.
    public var limitedSeconds: Double
    /// Samples the limiter's final safety clamp had to cut to the ceiling (0 unless a peak outran the
    /// look-ahead): clipping, counted and reported, never silent.
    public var clippedSamples: Int64
    /// EBU R128 loudness of what was written (integrated, range, true peak, ...), measured on the render
    /// thread as the blocks leave the limiter (a render to Ogg waits on its encoder, so this costs it no time).
    public var loudness: LoudnessMeasurement
    /// What preparing the material did: entries made for this render, and entries another render had made.
    public var materialMade: Int
    public var materialReused: Int
    public var timings: RenderTimings
}

/// Wall-clock seconds per stage. `prepare` is making the material the plan needs that the given
/// `PreparedMaterial` did not hold yet (only looking it up when another render had made it); `sources` is decoding and
/// resampling streams plus copying loops and generating noise inside the loop; `encode` (interleaving and
/// encoding) runs on its own thread, overlapping the rest. `write` is the render loop handing blocks to the
/// encoder thread: copying them into its ring, and waiting for a free buffer when the encoder is behind (most
/// of a render to Ogg Vorbis, whose encoder is slowest).
///
/// The `...CPU` fields are CPU seconds of the same stages (`CPUClock`): `prepareCPU` and `totalCPU` are the
/// whole process's (preparing runs on every core; the total includes the encoder thread), `sourcesCPU`,
/// `mixCPU` and `writeCPU` the render thread's, `encodeCPU` the encoder thread's. With mixing workers
/// (`Renderer.threads` above 1), `sources` and `mix` (and their CPU seconds) add up what every worker spent beside
/// the render thread's master chain, so together they may exceed `wall`.
/// A value of twelve `Double`s; allocates nothing. `Sendable`, safe to share.
public struct RenderTimings: Sendable {
    public var prepare: Double = 0
    public var sources: Double = 0
    public var mix: Double = 0
    public var encode: Double = 0
    public var write: Double = 0
    public var wall: Double = 0
    public var prepareCPU: Double = 0
    public var sourcesCPU: Double = 0
    public var mixCPU: Double = 0
    public var encodeCPU: Double = 0
    public var writeCPU: Double = 0
    public var totalCPU: Double = 0

    /// Adds `other`'s mixing (`sources`, `mix` and their CPU seconds): a mixing worker's, or all of them.
    mutating func addMixing(of other: RenderTimings) {
        sources += other.sources
        mix += other.mix
        sourcesCPU += other.sourcesCPU
        mixCPU += other.mixCPU
    }
}

/// The block render loop: for each block of frames, every event that sounds is rendered from its
/// source at its absolute position, shaped by its gains, summed into its track, the track shaped
/// and balanced into the master bus (`TrackMixer`), and the bus run through the master chain (gain and
/// fades, limiter, meters, taps, the output encoder: `MasterChain`).
///
/// Everything the loop needs is allocated before it starts; a block allocates nothing (a playlist
/// item opens its file when it starts, once per item). A `Renderer` is a value-like description (plan
/// and block size); each `render` call builds its own state, so one renderer may render several times.
///
/// `render` allocates that state before its loop: the bus, the track mixer's blocks, the limiter, the
/// master chain and the encoder's ring and thread. The object is read-only after `init` (though not
/// marked `Sendable`); a `render` runs its loop on the calling thread and encodes on a thread it starts (with
/// `threads` above 1 it also starts that many mixing workers, `ParallelMixer`, and stops them before it returns).
/// A shared `PreparedMaterial` is thread-safe; the encoder and taps are used by that render only.
public final class Renderer {
    public let plan: RenderPlan
    public let blockFrames: Int
    /// Threads that mix the bus (`--threads`): with more than one, `ParallelMixer`'s workers mix stints of the
    /// timeline ahead of the render thread, which runs the master chain; the output is the same bit for bit.
    public let threads: Int

    public init(plan: RenderPlan, blockFrames: Int = 4096, threads: Int = 1) {
        precondition(blockFrames > 0 && threads > 0)
        self.plan = plan
        self.blockFrames = blockFrames
        self.threads = threads
    }

    /// Frames of mix rendered before a partial render's first frame, so the limiter arrives there in
    /// the state a full render would have (its look-ahead plus ten release time constants; in true-peak
    /// mode also the frames the detector and the hold look at, twice `TruePeakDetector.supportRadius`).
    public var warmUpFrames: Int64 {
        let extra = plan.limiter.detection == .truePeak ? Int64(2 * TruePeakDetector.supportRadius) : 0
        return Int64((plan.limiter.lookaheadMs + 10 * plan.limiter.releaseMs) / 1000 * Double(plan.sampleRate)) + 1 + extra
    }

    /// Renders frames `range` of the plan (all of it by default) into `encoder`, which is finished
    /// at the end. Positions are the plan's: a partial render is the same slice of the full render
    /// (exactly, unless the limiter was acting within `warmUpFrames` before the range starts).
    ///
    /// - Parameters:
    ///   - material: decoded material shared with other renders; what the plan needs and it lacks is
    ///     made first. Without one, the render makes its own and drops it at the end.
    ///   - taps: listeners at points of the master chain (before the limiter, at the output, ...).
    ///   - progress: called after each block with the frames written so far.
    ///   - measuresOutput: whether the summary's `loudness` is measured (a measuring pass, which has its own
    ///     tap, leaves it out: it costs the 4x oversampled true peak).
    ///   - loop: renders the file of a loopable plan (`plan.loop`; the range is then `0..<loop.length`). The mix
    ///     after the end is rendered first and crossfaded into the start before the limiter (`LoopWrapStage`),
    ///     and the limiter is warmed up on the frames before the end, so that on repeat it is in the state it
    ///     would be in were the file followed by itself: the wrap-around is as seamless as any other frame.
    public func render(to encoder: AudioEncoder, range: Range<Int64>? = nil, material: PreparedMaterial? = nil,
                       taps: [RenderTap] = [], measuresOutput: Bool = true, loop: LoopOutput? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderSummary {
        try render(to: [encoder], range: range, material: material, taps: taps, measuresOutput: measuresOutput, loop: loop,
                   progress: progress)
    }

    /// Renders once into every one of `encoders` (several outputs of one render: an `.m4a`, an `.opus`, a `.flac`),
    /// each on a thread of its own reading the same ring, so the mix is made once and the encoders run side by
    /// side: the render takes as long as the slowest of them. The summary's `encode` is the slowest encoder's
    /// wall time and the sum of their CPU times. Otherwise as `render(to:)` with one encoder.
    public func render(to encoders: [AudioEncoder], range: Range<Int64>? = nil, material: PreparedMaterial? = nil,
                       taps: [RenderTap] = [], measuresOutput: Bool = true, loop: LoopOutput? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderSummary {
        precondition(!encoders.isEmpty, "a render writes one encoder or more")
        let range = range ?? loop.map { 0..<$0.length } ?? 0..<plan.frameCount
        if let loop {
            precondition(range == 0..<loop.length && loop.length + loop.crossfadeFrames <= plan.frameCount, "a loop renders its whole file")
        }
        precondition(range.lowerBound >= 0 && range.upperBound <= plan.frameCount, "the range must lie within the render")
        let clock = ContinuousClock()
        let started = clock.now
        let startedCPU = CPUClock.process
        var timings = RenderTimings()

        let material = material ?? PreparedMaterial()
        let preparation = try material.prepare(for: plan)
        timings.prepare = preparation.seconds
        timings.prepareCPU = CPUClock.process - startedCPU

        let channels = plan.channelCount
        let bus = AudioBlock(channelCount: channels, capacity: blockFrames)
        let limiter = Limiter(channelCount: channels, sampleRate: plan.sampleRate, ceilingDb: plan.limiter.ceilingDb,
                              lookaheadMs: plan.limiter.lookaheadMs, releaseMs: plan.limiter.releaseMs,
                              detection: plan.limiter.detection)
        let meter = LevelTap()
        let loudness = measuresOutput ? LoudnessTap(channelCount: channels, sampleRate: plan.sampleRate) : nil
        // The encoder is a sink like any other, interleaving on a thread of its own; the output's meter reads the same
        // copy of each block on another (one ring, which both read).
        var sinks: [(tap: MixTap, thread: String)] = encoders.indices.map { i in
            (EncoderSink(encoders[i], channelCount: channels, blockFrames: blockFrames), i == 0 ? "mixrender-encoder" : "mixrender-encoder \(i + 1)")
        }
        if let loudness { sinks.append((loudness, "mixrender-meter")) }
        let output = ThreadedTap(sinks, channelCount: channels, blockFrames: blockFrames)
        let gains = GainStage(plan.master, blockFrames: blockFrames)
        let limiterStage = LimiterStage(limiter)
        let wrap = try loop.map { LoopWrapStage($0, tail: try renderTail(of: $0, material: material, timings: &timings)) }
        let chain = MasterChain.standard(gains: gains, wrap: wrap, limiter: limiterStage,
                                         meter: meter, output: output,
                                         taps: taps,
                                         range: range)

        let end = range.upperBound + Int64(chain.latency)
        var position: Int64 = max(0, range.lowerBound - warmUpFrames)
        // A loop's limiter is warmed up on the frames before its end, which on repeat precede its start.
        var warmedUp: Int64 = 0
        if let loop, let wrap {
            var p = max(0, loop.length - warmUpFrames)
            warmedUp = loop.length - p
            let warmMixer = TrackMixer(plan: plan, material: material, blockFrames: blockFrames)
            var laps = ThreadCPULaps()
            while p < loop.length {
                let n = Int(min(Int64(blockFrames), loop.length - p))
                try warmMixer.mixTracks(into: bus, at: p, count: n, cpu: &laps, timings: &timings)
                for stage in [gains, wrap, limiterStage] as [MasterStage] { stage.process(bus, count: n, at: p) }
                p += Int64(n)
            }
        }
        // The summary speaks of the range only, not of the warm-up before it.
        limiter.statisticsWindow = (warmedUp + range.lowerBound - position)..<(warmedUp + range.upperBound - position)

        // One mixer on this thread, or workers mixing ahead of it (`threads`); from here on, stopped on every path.
        let span = position..<end
        let parallel = ParallelMixer.helps(threads: threads, span: span, sampleRate: plan.sampleRate)
            ? ParallelMixer(plan: plan, material: material, span: span, blockFrames: blockFrames, workers: threads) : nil
        let mixer = parallel == nil ? TrackMixer(plan: plan, material: material, blockFrames: blockFrames) : nil
        var reported: Int64 = 0
        // The render thread's CPU time in laps ending after the mix and after the chain: two reads of its clock (a
        // system call) per block.
        var laps = ThreadCPULaps()
        do {
            while position < end {
                // Run in a Swift task (the MixRender library), a render stops within a block of its task's cancelling.
                if Task.isCancelled { throw CancellationError() }
                let n = Int(min(Int64(blockFrames), end - position))
                if let mixer {
                    try mixer.mixTracks(into: bus, at: position, count: n, cpu: &laps, timings: &timings)
                } else {
                    try parallel!.mix(into: bus, at: position, count: n)
                    laps.skip()
                }
                let chainStarted = clock.now
                try chain.process(bus, count: n, at: position)
                timings.mix += (clock.now - chainStarted).seconds
                timings.mixCPU += laps.lap()
                position += Int64(n)
                // Frames the output has received so far (it lags the mix by the chain's latency).
                let written = min(position - Int64(chain.latency), range.upperBound) - range.lowerBound
                if written > reported { reported = written; progress?(written) }
            }
            parallel?.stop(timings: &timings)
            try chain.finish()
        } catch {
            parallel?.stop(timings: &timings)
            chain.abandon()
            throw error
        }
        timings.write = output.handOverSeconds
        timings.mix -= output.handOverSeconds
        timings.encode = encoders.indices.map { output.workSeconds(sink: $0) }.max()!
        timings.wall = (clock.now - started).seconds
        timings.writeCPU = output.handOverCPUSeconds
        timings.mixCPU -= output.handOverCPUSeconds
        timings.encodeCPU = encoders.indices.map { output.workCPUSeconds(sink: $0) }.reduce(0, +)
        timings.totalCPU = CPUClock.process - startedCPU

        return RenderSummary(
            frameCount: Int64(range.count), sampleRate: plan.sampleRate,
            mixPeakDb: decibels(fromGain: Double(limiter.inputPeak)),
            peakDb: decibels(fromGain: Double(meter.meter.peak)),
            rmsDb: decibels(fromGain: meter.meter.rms),
            maxGainReductionDb: limiter.maximumReductionDb,
            limitedSeconds: Double(limiter.limitedFrames) / Double(plan.sampleRate),
            clippedSamples: limiter.clampedSamples,
            loudness: loudness?.measurement ?? LoudnessMeasurement.unmeasured,
            materialMade: preparation.made, materialReused: preparation.reused,
            timings: timings)
    }

    /// The mix after a loop's end, `[length, length + crossfadeFrames)`, through the master gains: what
    /// `LoopWrapStage` crossfades into the start. Rendered by a mixer of its own before the render.
    private func renderTail(of loop: LoopOutput, material: PreparedMaterial, timings: inout RenderTimings) throws -> AudioBlock {
        let tail = AudioBlock(channelCount: plan.channelCount, capacity: Int(loop.crossfadeFrames))
        let bus = AudioBlock(channelCount: plan.channelCount, capacity: blockFrames)
        let mixer = TrackMixer(plan: plan, material: material, blockFrames: blockFrames)
        let gains = GainStage(plan.master, blockFrames: blockFrames)
        var p = loop.length
        var laps = ThreadCPULaps()
        while p < loop.length + loop.crossfadeFrames {
            let n = Int(min(Int64(blockFrames), loop.length + loop.crossfadeFrames - p))
            try mixer.mixTracks(into: bus, at: p, count: n, cpu: &laps, timings: &timings)
            gains.process(bus, count: n, at: p)
            for c in 0..<plan.channelCount {
                (tail.channel(c).baseAddress! + Int(p - loop.length)).update(from: bus.channel(c).baseAddress!, count: n)
            }
            p += Int64(n)
        }
        return tail
    }
}
