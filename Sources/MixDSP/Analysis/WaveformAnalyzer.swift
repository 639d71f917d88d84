/// Streams audio into waveform columns at one or more zoom levels in a single pass: per column and
/// output channel the min, max and RMS (`PeakReducer`), and per column the band levels and spectral
/// centroid of the mono mix from Hann-windowed FFT frames (`SpectralFrameAnalyzer`,
/// `SpectralColumnResolver`), plus whole-stream totals.
///
/// Frames of the mono mix m[n] = (1/C) Σ_c x_c[n] are N = `fftSize` samples long and centred on
/// n = m H, H = N/2 (the first frame is centred on frame 0; samples outside the stream are 0).
/// Columns reach their sink in order, at most N/2 + H + 4096 frames after they end, and all of them by
/// `finish()`. Memory is fixed at `init`: nothing grows with the stream's length, and `process`
/// allocates nothing.
///
/// Layout: a planar `AudioBlock` of `blockCapacity` frames (more than one channel only), a mono buffer,
/// a `SampleHistory` of at least N + `blockCapacity` samples, one `SpectralFrameAnalyzer`, and per zoom
/// level a `PeakReducer`, a `SpectralColumnResolver` and its sink; per-channel totals. The sinks may
/// allocate in `append` (a column store spilling to disk), and `totals` makes two arrays. Not
/// thread-safe: use from one thread at a time; its `RealFFT` and sinks are called on that thread, and
/// the `RealFFT` must not be in use elsewhere meanwhile.
public final class WaveformAnalyzer {
    public let settings: WaveformAnalysisSettings
    /// Frames handled per inner step; `process` takes any count.
    public static let blockCapacity = 4096

    private let sinks: [WaveformColumnSink]
    private let planar: AudioBlock?
    private let mono: UnsafeMutablePointer<Float>
    private let sources: UnsafeMutablePointer<UnsafePointer<Float>>
    private let history: SampleHistory
    private let spectral: SpectralFrameAnalyzer
    private let reducers: [PeakReducer]
    private let resolvers: [SpectralColumnResolver]
    private let hop: Int64
    private let halfFrame: Int64
    private var nextFrame: Int64 = 0
    public private(set) var isFinished = false

    private let channelPeak: UnsafeMutablePointer<Float>
    private let channelSum: UnsafeMutablePointer<Double>
    private var framesMeasured = 0
    private var lowSum = 0.0, midSum = 0.0, highSum = 0.0, magnitudeSum = 0.0, weightedSum = 0.0

    /// `fft` must have `settings.fftSize` points; `sinks` holds one sink per zoom level.
    public init(settings: WaveformAnalysisSettings, fft: RealFFT, sinks: [WaveformColumnSink]) {
        precondition(settings.problem == nil, settings.problem ?? "")
        precondition(fft.size == settings.fftSize, "the FFT has \(fft.size) points, the settings ask for \(settings.fftSize)")
        precondition(sinks.count == settings.samplesPerPixel.count, "one sink per zoom level")
        self.settings = settings
        self.sinks = sinks
        let channels = settings.channelCount
        let capacity = Self.blockCapacity
        planar = channels > 1 ? AudioBlock(channelCount: channels, capacity: capacity) : nil
        mono = .allocate(capacity: capacity)
        mono.initialize(repeating: 0, count: capacity)
        sources = .allocate(capacity: settings.outputChannelCount)
        let n = settings.fftSize
        history = SampleHistory(minimumCapacity: n + capacity)
        spectral = SpectralFrameAnalyzer(fft: fft, sampleRate: settings.sampleRate,
                                         lowMidEdgeHz: settings.lowMidEdgeHz, midHighEdgeHz: settings.midHighEdgeHz,
                                         spectrumRows: settings.spectrumRows, spectrumLowestHz: settings.spectrumLowestHz)
        hop = Int64(settings.hopSize)
        halfFrame = Int64(n / 2)
        // A column waits for the first frame centred at or after its end: N/2 + H frames, plus one block.
        reducers = settings.samplesPerPixel.map { spp in
            PeakReducer(samplesPerPixel: spp, channelCount: settings.outputChannelCount,
                        maximumHeld: (n / 2 + settings.hopSize + capacity) / spp + 3)
        }
        resolvers = settings.samplesPerPixel.map {
            SpectralColumnResolver(samplesPerPixel: $0, rowCount: settings.spectrumRows)
        }
        channelPeak = .allocate(capacity: channels)
        channelPeak.initialize(repeating: 0, count: channels)
        channelSum = .allocate(capacity: channels)
        channelSum.initialize(repeating: 0, count: channels)
    }

    deinit {
        mono.deallocate(); sources.deallocate(); channelPeak.deallocate(); channelSum.deallocate()
    }

    /// Frames analysed so far.
    public var frameCount: Int64 { history.written }

    /// Analyses `frames` interleaved frames of `settings.channelCount` channels.
    public func process(interleaved: UnsafePointer<Float>, frames: Int) throws {
        precondition(!isFinished, "the analysis is finished")
        precondition(frames >= 0)
        let channels = settings.channelCount
        var done = 0
        while done < frames {
            let n = min(Self.blockCapacity, frames - done)
            let src = interleaved + done * channels
            let mix: UnsafePointer<Float>
            if let planar {
                Kernels.deinterleave(src, channelCount: channels, count: n, into: planar)
                for c in 0..<channels { addToTotals(channel: c, UnsafePointer(planar.channel(c).baseAddress!), count: n) }
                let first = planar.channel(0).baseAddress!
                if channels == 2 {
                    AnalysisKernels.average(first, planar.channel(1).baseAddress!, into: mono, count: n)
                } else {
                    Kernels.copy(first, to: mono, count: n)
                    for c in 1..<channels { Kernels.add(planar.channel(c).baseAddress!, into: mono, count: n) }
                    Kernels.scale(mono, by: 1 / Float(channels), count: n)
                }
                mix = UnsafePointer(mono)
                if settings.isSplittingChannels {
                    for c in 0..<channels { sources[c] = UnsafePointer(planar.channel(c).baseAddress!) }
                } else {
                    sources[0] = mix
                }
            } else {
                addToTotals(channel: 0, src, count: n)
                mix = src
                sources[0] = src
            }
            for reducer in reducers { reducer.reduce(sources, count: n) }
            history.append(mix, count: n)
            while nextFrame * hop + halfFrame <= history.written {
                try measureFrame(streamEnd: history.written)
            }
            done += n
        }
    }

    /// Closes the last, partial column and measures the frames the last columns still need
    /// (the stream continues as silence); every column has then reached its sink.
    public func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        let end = history.written
        for reducer in reducers { reducer.finish() }
        for resolver in resolvers { resolver.streamEnd = end }
        while zip(resolvers, reducers).contains(where: { $0.column < $1.closedCount }) {
            try measureFrame(streamEnd: end)
        }
    }

    /// Columns each zoom level has produced so far.
    public func columnCount(level: Int) -> Int { resolvers[level].column }

    /// What the stream measured so far (all of it after `finish()`).
    public var totals: WaveformTotals {
        let channels = settings.channelCount
        let frames = Double(max(history.written, 1))
        let measured = Double(max(framesMeasured, 1))
        return WaveformTotals(
            sampleRate: settings.sampleRate, frameCount: history.written,
            channelPeaks: (0..<channels).map { channelPeak[$0] },
            channelMeanSquares: (0..<channels).map { channelSum[$0] / frames },
            lowPower: lowSum / measured, midPower: midSum / measured, highPower: highSum / measured,
            centroidHz: magnitudeSum > 0 ? weightedSum / magnitudeSum : 0)
    }

    private func addToTotals(channel c: Int, _ samples: UnsafePointer<Float>, count: Int) {
        let r = AnalysisKernels.minMaxSumOfSquares(samples, count: count)
        channelPeak[c] = max(channelPeak[c], max(-r.min, r.max))
        channelSum[c] += Double(r.sumOfSquares)
    }

    /// Measures the next FFT frame and hands it to every zoom level, which emits what it completes.
    private func measureFrame(streamEnd: Int64) throws {
        let centre = nextFrame * hop
        history.copy(from: centre - halfFrame, count: settings.fftSize, into: spectral.input)
        spectral.analyze()
        if centre < streamEnd {
            framesMeasured += 1
            lowSum += Double(spectral.lowPower); midSum += Double(spectral.midPower)
            highSum += Double(spectral.highPower)
            magnitudeSum += Double(spectral.magnitudeSum); weightedSum += Double(spectral.weightedFrequencySum)
        }
        let outputChannels = settings.outputChannelCount, rows = settings.spectrumRows
        for level in 0..<reducers.count {
            let reducer = reducers[level], resolver = resolvers[level], sink = sinks[level]
            try resolver.add(spectral, centre: centre, closedColumns: reducer.closedCount) { index in
                let held = reducer.column(index)
                try sink.append(WaveformColumn(
                    index: index, frameCount: held.frameCount,
                    channels: UnsafeBufferPointer(start: held.levels, count: outputChannels),
                    bands: resolver.bands,
                    spectrum: UnsafeBufferPointer(start: resolver.rows, count: rows)))
                reducer.release()
            }
        }
        nextFrame += 1
    }
}
