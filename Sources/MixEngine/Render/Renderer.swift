import MixDSP

/// What a render did: its length, its levels, what the limiter did, and where the time went.
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
    public var timings: RenderTimings
}

/// Wall-clock seconds per stage. `sources` is decoding and resampling streams plus copying loops
/// and generating noise inside the loop; `encode` runs on its own thread, overlapping the rest.
/// `write` is the render loop handing blocks to the encoder thread: interleaving, and waiting for a
/// free buffer when the encoder is behind (most of a render to Ogg Vorbis, whose encoder is slowest).
public struct RenderTimings: Sendable {
    public var prepare: Double = 0
    public var sources: Double = 0
    public var mix: Double = 0
    public var encode: Double = 0
    public var write: Double = 0
    public var wall: Double = 0
}

/// The block render loop: for each block of frames, every voice that sounds is rendered from its
/// source at its absolute position, shaped by its gains, summed into its track, the track shaped
/// and balanced into the master bus, the bus faded and limited, and the block written.
///
/// Everything the loop needs is allocated before it starts; a block allocates nothing (a playlist
/// item opens its file when it starts, once per item).
public final class Renderer {
    public let plan: RenderPlan
    public let blockFrames: Int

    public init(plan: RenderPlan, blockFrames: Int = 4096) {
        precondition(blockFrames > 0)
        self.plan = plan
        self.blockFrames = blockFrames
    }

    /// Frames of mix rendered before a partial render's first frame, so the limiter arrives there in
    /// the state a full render would have (its look-ahead plus ten release time constants).
    public var warmUpFrames: Int64 {
        Int64((plan.limiter.lookaheadMs + 10 * plan.limiter.releaseMs) / 1000 * Double(plan.sampleRate)) + 1
    }

    /// Renders frames `range` of the plan (all of it by default) into `encoder`, which is finished
    /// at the end. Positions are the plan's: a partial render is the same slice of the full render
    /// (exactly, unless the limiter was acting within `warmUpFrames` before the range starts).
    /// `progress` is called after each block with the frames written so far.
    public func render(to encoder: AudioEncoder, range: Range<Int64>? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderSummary {
        let range = range ?? 0..<plan.frameCount
        precondition(range.lowerBound >= 0 && range.upperBound <= plan.frameCount, "the range must lie within the render")
        let clock = ContinuousClock()
        let started = clock.now
        var timings = RenderTimings()

        let library = SourceLibrary(plan: plan)
        try library.prepare()
        timings.prepare = library.prepareSeconds

        let channels = plan.channelCount
        let bus = AudioBlock(channelCount: channels, capacity: blockFrames)
        let mixer = TrackMixer(plan: plan, library: library, blockFrames: blockFrames)
        let limiter = Limiter(channelCount: channels, sampleRate: plan.sampleRate, ceilingDb: plan.limiter.ceilingDb,
                              lookaheadMs: plan.limiter.lookaheadMs, releaseMs: plan.limiter.releaseMs)
        let latency = Int64(limiter.latency)
        let writer = BlockWriter(encoder: encoder, channelCount: channels, blockFrames: blockFrames)
        var meter = LevelMeter()

        let end = range.upperBound + latency
        var position: Int64 = max(0, range.lowerBound - warmUpFrames)
        // The summary speaks of the range only, not of the warm-up before it.
        limiter.statisticsWindow = (range.lowerBound - position)..<(range.upperBound - position)

        do {
            while position < end {
                let n = Int(min(Int64(blockFrames), end - position))
                try mixer.mixTracks(into: bus, at: position, count: n, timings: &timings)

                let mixStarted = clock.now
                mixer.applyMaster(to: bus, at: position, count: n)
                limiter.process(bus, count: n)

                // The limiter delays by `latency`: bus frame i is output frame position + i - latency.
                let first = max(position - latency, range.lowerBound)
                let last = min(position + Int64(n) - latency, range.upperBound)
                if last > first {
                    let offset = Int(first - (position - latency)), count = Int(last - first)
                    meter.measure(bus, offset: offset, count: count)
                    let writeStarted = clock.now
                    timings.mix += (writeStarted - mixStarted).seconds
                    try writer.write(bus, offset: offset, count: count)
                    timings.write += (clock.now - writeStarted).seconds
                    progress?(last - range.lowerBound)
                } else {
                    timings.mix += (clock.now - mixStarted).seconds
                }
                position += Int64(n)
            }
            try writer.finish()
        } catch {
            try? writer.close()
            throw error
        }
        timings.encode = writer.encodeSeconds
        timings.wall = (clock.now - started).seconds

        return RenderSummary(
            frameCount: Int64(range.count), sampleRate: plan.sampleRate,
            mixPeakDb: decibels(fromGain: Double(limiter.inputPeak)),
            peakDb: decibels(fromGain: Double(meter.peak)),
            rmsDb: decibels(fromGain: meter.rms),
            maxGainReductionDb: limiter.maximumReductionDb,
            limitedSeconds: Double(limiter.limitedFrames) / Double(plan.sampleRate),
            timings: timings)
    }
}
