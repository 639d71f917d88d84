import MixDSP

/// The first stage of a block: every track's events rendered from their sources, summed and shaped
/// by the track's gains and balance, and the tracks summed into the master bus (the master chain takes
/// it from there). It owns the per-track state that lives across blocks (which events are playing, their
/// sources) and every buffer it needs, all allocated in `init`.
final class TrackMixer {
    private let plan: RenderPlan
    private let material: PreparedMaterial
    private let context: RenderFormat
    private let channelCount: Int
    private let voiceBlock: AudioBlock
    /// Every track has its own block and gain buffer, so that the tracks can be summed into the bus
    /// together, in one pass (`Kernels.mix`), instead of one read-add-write of the bus per track.
    private let trackBlocks: [AudioBlock]
    private let trackGains: AudioBlock
    private let gainBuffers: AudioBlock
    private let busTerms: PendingBusMix
    /// Per track: the sources of the events that are playing, and the first event not yet over.
    private var sources: [[FrameSource?]]
    private var firstEvent: [Int]
    /// Per track and channel (`t * channelCount + c`): where this block's frames of the track lie when its one
    /// event plays them from memory at unity gain (`ContiguousFrames`), so they are summed from there without a
    /// copy; `viewed[t]` says whether they do, in this block.
    private let views: UnsafeMutablePointer<UnsafePointer<Float>?>
    private var viewed: [Bool]
    private let clock = ContinuousClock()

    /// `material` must hold what the plan's events need (`PreparedMaterial.prepare(for:)`).
    init(plan: RenderPlan, material: PreparedMaterial, blockFrames: Int) {
        self.plan = plan
        self.material = material
        context = plan.renderFormat
        channelCount = plan.channelCount
        voiceBlock = AudioBlock(channelCount: channelCount, capacity: blockFrames)
        trackBlocks = plan.tracks.map { _ in AudioBlock(channelCount: plan.channelCount, capacity: blockFrames) }
        trackGains = AudioBlock(channelCount: max(plan.tracks.count, 1), capacity: blockFrames)
        gainBuffers = AudioBlock(channelCount: 3, capacity: blockFrames)
        busTerms = PendingBusMix(channelCount: channelCount, trackCount: plan.tracks.count)
        sources = plan.tracks.map { Array(repeating: nil, count: $0.events.count) }
        firstEvent = Array(repeating: 0, count: plan.tracks.count)
        views = .allocate(capacity: max(1, plan.tracks.count * plan.channelCount))
        views.initialize(repeating: nil, count: max(1, plan.tracks.count * plan.channelCount))
        viewed = Array(repeating: false, count: plan.tracks.count)
    }

    deinit { views.deallocate() }

    private var scratch: UnsafeMutablePointer<Float> { gainBuffers.channel(1).baseAddress! }
    private var voiceGains: UnsafeMutablePointer<Float> { gainBuffers.channel(2).baseAddress! }

    /// Mixes frames `[position, position + count)` of every track into `bus` (cleared first). `cpu` is the calling
    /// thread's laps: the one this call ends (whatever the caller did since its last lap, then the mix) goes to the
    /// timings' sources and mix. A caller that ends a lap after its own stages reads the clock once per block for both.
    func mixTracks(into bus: AudioBlock, at position: Int64, count n: Int, cpu laps: inout ThreadCPULaps,
                   timings: inout RenderTimings) throws {
        bus.clear(count: n)
        let blockEnd = position + Int64(n)
        // Wall-clock time per stage (vDSO clock reads, cheap); the render thread's CPU time is read once per
        // block (a system call, which takes the scheduler's lock: read around every track, it cost a render to WAV
        // 5 %) and shared between the stages in proportion to their wall time.
        var sourceSeconds = 0.0, mixSeconds = 0.0
        for t in plan.tracks.indices {
            let track = plan.tracks[t]
            guard track.start < blockEnd && track.end > position else { continue }
            let lo = max(position, track.start), hi = min(blockEnd, track.end)

            let sourceStarted = clock.now
            try sumEvents(of: t, from: lo, to: hi, blockStart: position)
            let mixStarted = clock.now
            sourceSeconds += (mixStarted - sourceStarted).seconds
            addToBus(t, from: lo, to: hi, blockStart: position, bus: bus)
            mixSeconds += (clock.now - mixStarted).seconds
        }
        let flushStarted = clock.now
        busTerms.flush(into: bus)
        mixSeconds += (clock.now - flushStarted).seconds
        timings.sources += sourceSeconds
        timings.mix += mixSeconds
        let cpu = laps.lap()
        let share = sourceSeconds + mixSeconds > 0 ? sourceSeconds / (sourceSeconds + mixSeconds) : 0
        timings.sourcesCPU += cpu * share
        timings.mixCPU += cpu * (1 - share)
    }

    /// Sums track `t`'s events over `[lo, hi)` into its block, each shaped by its own gains.
    private func sumEvents(of t: Int, from lo: Int64, to hi: Int64, blockStart position: Int64) throws {
        let track = plan.tracks[t]
        let trackBlock = trackBlocks[t]
        while firstEvent[t] < track.events.count && track.events[firstEvent[t]].end <= lo {
            sources[t][firstEvent[t]] = nil                 // over: let its decoder go
            firstEvent[t] += 1
        }
        var v = firstEvent[t]
        if v < track.events.count, track.events[v].start <= lo, track.events[v].end >= hi,
           v + 1 == track.events.count || track.events[v + 1].start >= hi,
           track.events[v].gains.constant == 1 && track.events[v].gains.envelopes.isEmpty {
            // One event at unity gain over the whole span: the bus sums it from where its frames lie, or it
            // renders straight into the track block. (Adding it to zeros would give the same values, except
            // that -0 becomes +0, which the bus, cleared to +0, cannot tell apart.)
            if try view(t, v, from: lo, to: hi) { return }
            try render(t, v, into: trackBlock, offset: Int(lo - position), from: lo, to: hi)
            return
        }
        viewed[t] = false
        trackBlock.clear(offset: Int(lo - position), count: Int(hi - lo))
        while v < track.events.count && track.events[v].start < hi {
            let event = track.events[v]
            if event.end > lo {
                let vlo = max(lo, event.start), vhi = min(hi, event.end)
                let offset = Int(vlo - position), count = Int(vhi - vlo)
                try render(t, v, into: voiceBlock, offset: offset, from: vlo, to: vhi)
                let g = event.gains.render(into: voiceGains, scratch: scratch, count: count, at: vlo)
                for c in 0..<channelCount {
                    let src = voiceBlock.channel(c).baseAddress! + offset
                    let dst = trackBlock.channel(c).baseAddress! + offset
                    if let g { Kernels.addScaled(src, by: g, into: dst, count: count) }
                    else { Kernels.addProduct(src, gains: voiceGains, by: 1, into: dst, count: count) }
                }
            }
            v += 1
        }
    }

    /// Whether event `v` of track `t` plays `[lo, hi)` from memory in one run; if so, `views` holds where.
    private func view(_ t: Int, _ v: Int, from lo: Int64, to hi: Int64) throws -> Bool {
        viewed[t] = false
        let event = plan.tracks[t].events[v]
        guard let source = try source(t, v) as? ContiguousFrames, source.channelCount == channelCount else { return false }
        let at = lo - event.start + event.sourceOffset, count = Int(hi - lo)
        for c in 0..<channelCount {
            guard let frames = source.frames(channel: c, at: at, count: count) else { return false }
            views[t * channelCount + c] = frames
        }
        viewed[t] = true
        return true
    }

    /// Renders event `v` of track `t` over `[lo, hi)` into `block` at `offset`, opening its source
    /// when the event starts.
    private func render(_ t: Int, _ v: Int, into block: AudioBlock, offset: Int, from lo: Int64, to hi: Int64) throws {
        let event = plan.tracks[t].events[v]
        try source(t, v).render(into: block, offset: offset, count: Int(hi - lo), at: lo - event.start + event.sourceOffset)
    }

    /// Event `v`'s source, opened when the event starts.
    @discardableResult
    private func source(_ t: Int, _ v: Int) throws -> FrameSource {
        let event = plan.tracks[t].events[v]
        if sources[t][v] == nil {
            // Prepared material is shared (read-only); everything else is made for this event.
            let prepared = event.material.preparation.map { request -> FrameSource in
                guard let source = material.source(for: request.key) else { preconditionFailure("\(request.key) was not prepared") }
                return source
            }
            sources[t][v] = try event.material.makeSource(context, prepared: prepared)
        }
        return sources[t][v]!
    }

    /// Queues track `t` over `[lo, hi)`, with its gains and balance, as a term of the bus sum. Tracks
    /// over the same frames are summed together, in track order; a track over other frames first
    /// flushes those queued before it.
    private func addToBus(_ t: Int, from lo: Int64, to hi: Int64, blockStart position: Int64, bus: AudioBlock) {
        let track = plan.tracks[t]
        let offset = Int(lo - position), count = Int(hi - lo)
        let trackGain = trackGains.channel(t).baseAddress!
        let g = track.gains.render(into: trackGain, scratch: scratch, count: count, at: lo)
        if busTerms.offset != offset || busTerms.count != count { busTerms.flush(into: bus) }
        busTerms.offset = offset; busTerms.count = count
        for c in 0..<channelCount {
            // The same products as Kernels.addScaled / addProduct; a zero gain adds nothing, as there.
            let src = viewed[t] ? views[t * channelCount + c]! : UnsafePointer(trackBlocks[t].channel(c).baseAddress! + offset)
            if let g {
                let k = g * track.balance[c]
                if k != 0 { busTerms.append(MixTerm(source: src, gains: nil, scale: k), channel: c) }
            } else if track.balance[c] != 0 {
                busTerms.append(MixTerm(source: src, gains: trackGain, scale: track.balance[c]), channel: c)
            }
        }
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
