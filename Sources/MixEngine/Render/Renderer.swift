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
        let capacity = blockFrames
        let bus = AudioBlock(channelCount: channels, capacity: capacity)
        let voiceBlock = AudioBlock(channelCount: channels, capacity: capacity)
        let gainBuffers = AudioBlock(channelCount: 3, capacity: capacity)
        let gains = gainBuffers.channel(0).baseAddress!
        let scratch = gainBuffers.channel(1).baseAddress!
        let voiceGains = gainBuffers.channel(2).baseAddress!
        // Every track has its own block and gain buffer, so that tracks can be summed into the bus
        // together, in one pass (`Kernels.mix`), instead of one read-add-write of the bus per track.
        let trackBlocks = plan.tracks.map { _ in AudioBlock(channelCount: channels, capacity: capacity) }
        let trackGains = AudioBlock(channelCount: max(plan.tracks.count, 1), capacity: capacity)
        let busTerms = PendingBusMix(channelCount: channels, trackCount: plan.tracks.count)

        let limiter = Limiter(channelCount: channels, sampleRate: plan.sampleRate, ceilingDb: plan.limiter.ceilingDb,
                              lookaheadMs: plan.limiter.lookaheadMs, releaseMs: plan.limiter.releaseMs)
        let latency = Int64(limiter.latency)
        let writer = BlockWriter(encoder: encoder, channelCount: channels, blockFrames: capacity)

        // Per track: the sources of the voices that are playing, and the first voice not yet over.
        var sources: [[FrameSource?]] = plan.tracks.map { Array(repeating: nil, count: $0.voices.count) }
        var firstVoice = Array(repeating: 0, count: plan.tracks.count)

        var peak: Float = 0
        var sumOfSquares: Double = 0
        let end = range.upperBound + latency
        var position: Int64 = max(0, range.lowerBound - warmUpFrames)
        // The summary speaks of the range only, not of the warm-up before it.
        limiter.statisticsWindow = (range.lowerBound - position)..<(range.upperBound - position)

        do {
            while position < end {
                let n = Int(min(Int64(capacity), end - position))
                let blockEnd = position + Int64(n)
                bus.clear(count: n)

                for t in plan.tracks.indices {
                    let track = plan.tracks[t]
                    guard track.start < blockEnd && track.end > position else { continue }
                    let lo = max(position, track.start), hi = min(blockEnd, track.end)
                    let offset = Int(lo - position), count = Int(hi - lo)
                    let trackBlock = trackBlocks[t]

                    // Sum the voices of the track into trackBlock[offset ..< offset + count].
                    let sourceStarted = clock.now
                    while firstVoice[t] < track.voices.count && track.voices[firstVoice[t]].end <= lo {
                        sources[t][firstVoice[t]] = nil                 // over: let its decoder go
                        firstVoice[t] += 1
                    }
                    var v = firstVoice[t]
                    if v < track.voices.count, track.voices[v].start <= lo, track.voices[v].end >= hi,
                       v + 1 == track.voices.count || track.voices[v + 1].start >= hi,
                       track.voices[v].gains.constant == 1 && track.voices[v].gains.envelopes.isEmpty {
                        // One voice at unity gain over the whole span: it renders straight into the track
                        // block. (The general path below would add it to zeros: the same values, except
                        // that -0 becomes +0, which the bus, cleared to +0, cannot tell apart.)
                        let voice = track.voices[v]
                        if sources[t][v] == nil { sources[t][v] = try library.source(for: voice) }
                        try sources[t][v]!.render(into: trackBlock, offset: offset, count: count,
                                                  at: lo - voice.start + voice.sourceOffset)
                        v = track.voices.count
                    } else {
                        trackBlock.clear(offset: offset, count: count)
                    }
                    while v < track.voices.count && track.voices[v].start < hi {
                        let voice = track.voices[v]
                        if voice.end > lo {
                            let vlo = max(lo, voice.start), vhi = min(hi, voice.end)
                            let vOffset = Int(vlo - position), vCount = Int(vhi - vlo)
                            if sources[t][v] == nil { sources[t][v] = try library.source(for: voice) }
                            try sources[t][v]!.render(into: voiceBlock, offset: vOffset, count: vCount,
                                                      at: vlo - voice.start + voice.sourceOffset)
                            let g = voice.gains.render(into: voiceGains, scratch: scratch, count: vCount, at: vlo)
                            for c in 0..<channels {
                                let src = voiceBlock.channel(c).baseAddress! + vOffset
                                let dst = trackBlock.channel(c).baseAddress! + vOffset
                                if let g { Kernels.addScaled(src, by: g, into: dst, count: vCount) }
                                else { Kernels.addProduct(src, gains: voiceGains, by: 1, into: dst, count: vCount) }
                            }
                        }
                        v += 1
                    }
                    timings.sources += (clock.now - sourceStarted).seconds

                    // Track gains and balance: a term of the bus sum. Tracks over the same frames are summed
                    // together, in track order; a track over other frames first flushes those before it.
                    let mixStarted = clock.now
                    let trackGain = trackGains.channel(t).baseAddress!
                    let g = track.gains.render(into: trackGain, scratch: scratch, count: count, at: lo)
                    if busTerms.offset != offset || busTerms.count != count { busTerms.flush(into: bus) }
                    busTerms.offset = offset; busTerms.count = count
                    for c in 0..<channels {
                        // The same products as Kernels.addScaled / addProduct; a zero gain adds nothing, as there.
                        let src = trackBlock.channel(c).baseAddress! + offset
                        if let g {
                            let k = g * track.balance[c]
                            if k != 0 { busTerms.append(MixTerm(source: src, gains: nil, scale: k), channel: c) }
                        } else if track.balance[c] != 0 {
                            busTerms.append(MixTerm(source: src, gains: trackGain, scale: track.balance[c]), channel: c)
                        }
                    }
                    timings.mix += (clock.now - mixStarted).seconds
                }
                let flushStarted = clock.now
                busTerms.flush(into: bus)
                timings.mix += (clock.now - flushStarted).seconds

                // Master gain and fades, then the limiter.
                let mixStarted = clock.now
                if let g = plan.master.render(into: gains, scratch: scratch, count: n, at: position) {
                    for c in 0..<channels { Kernels.scale(bus.channel(c).baseAddress!, by: g, count: n) }
                } else {
                    for c in 0..<channels { Kernels.multiply(bus.channel(c).baseAddress!, by: gains, count: n) }
                }
                limiter.process(bus, count: n)

                // The limiter delays by `latency`: bus frame i is output frame position + i - latency.
                let first = max(position - latency, range.lowerBound), last = min(blockEnd - latency, range.upperBound)
                if last > first {
                    let offset = Int(first - (position - latency)), count = Int(last - first)
                    for c in 0..<channels {
                        peak = max(peak, Kernels.peak(bus.channel(c).baseAddress! + offset, count: count))
                    }
                    if channels == 2 {
                        // Both channels' sums at once, each the same chain of additions as below.
                        let (l, r) = Kernels.sumOfSquares(bus.channel(0).baseAddress! + offset, bus.channel(1).baseAddress! + offset,
                                                          count: count)
                        sumOfSquares += l
                        sumOfSquares += r
                    } else {
                        for c in 0..<channels { sumOfSquares += Kernels.sumOfSquares(bus.channel(c).baseAddress! + offset, count: count) }
                    }
                    let writeStarted = clock.now
                    timings.mix += (writeStarted - mixStarted).seconds
                    try writer.write(bus, offset: offset, count: count)
                    timings.write += (clock.now - writeStarted).seconds
                    progress?(last - range.lowerBound)
                } else {
                    timings.mix += (clock.now - mixStarted).seconds
                }
                position = blockEnd
            }
            try writer.finish()
        } catch {
            try? writer.close()
            throw error
        }
        timings.encode = writer.encodeSeconds
        timings.wall = (clock.now - started).seconds

        let samples = Double(range.count) * Double(channels)
        return RenderSummary(
            frameCount: Int64(range.count), sampleRate: plan.sampleRate,
            mixPeakDb: decibels(fromGain: Double(limiter.inputPeak)),
            peakDb: decibels(fromGain: Double(peak)),
            rmsDb: decibels(fromGain: (sumOfSquares / max(samples, 1)).squareRoot()),
            maxGainReductionDb: limiter.maximumReductionDb,
            limitedSeconds: Double(limiter.limitedFrames) / Double(plan.sampleRate),
            timings: timings)
    }
}

/// The terms of the bus sum waiting to be added: tracks over the same frames `[offset, offset + count)`
/// of the block, per output channel, in track order. All memory is allocated in `init`.
private final class PendingBusMix {
    let channelCount: Int
    let trackCount: Int
    private let terms: UnsafeMutablePointer<MixTerm>
    private let counts: UnsafeMutablePointer<Int>
    var offset = 0
    var count = 0

    init(channelCount: Int, trackCount: Int) {
        self.channelCount = channelCount
        self.trackCount = max(trackCount, 1)
        terms = .allocate(capacity: channelCount * self.trackCount)
        counts = .allocate(capacity: channelCount)
        counts.initialize(repeating: 0, count: channelCount)
    }

    deinit { terms.deallocate(); counts.deallocate() }

    func append(_ term: MixTerm, channel c: Int) {
        (terms + c * trackCount + counts[c]).initialize(to: term)
        counts[c] += 1
    }

    /// Adds the waiting terms into `bus` and forgets them.
    func flush(into bus: AudioBlock) {
        for c in 0..<channelCount where counts[c] > 0 {
            Kernels.mix(UnsafeBufferPointer(start: terms + c * trackCount, count: counts[c]),
                        into: bus.channel(c).baseAddress! + offset, count: count)
            counts[c] = 0
        }
    }
}
