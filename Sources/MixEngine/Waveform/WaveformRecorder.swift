import MixDSP
import MixIO

/// Records waveforms for several `WaveformPlan`s from one stream of audio: interleaved frames, as an `AudioEncoder` (a
/// file's blocks as decoded, `WaveformJob`), or a render's output as a sink (`renderTap(channelCount:blockFrames:)`),
/// where it sees exactly the frames written to the output file. Plans whose analysis differs only in zoom levels (a
/// JSON, a PNG, an SVG and a `.dat` of one render) are analysed in one pass (one FFT a frame, one column store a
/// distinct level) and write their files from the same columns, so four files cost about what one does; each plan's
/// files are the ones it would write alone. `recorders` holds each plan's results, in order; `writeOutputs()` writes
/// every plan's files after `finish()`.
///
/// Layout: one `WaveformAnalyzer` (with an `FFTWRealFFT` of its own) and its column stores per group of plans, and a
/// `WaveformRecorder` per plan over its group's stores. `init` allocates them (planning each FFT under FFTW's lock);
/// `write` allocates nothing until a store first spills to disk. Not thread-safe: one thread at a time (as a render's
/// sink, `write` runs on the sink's thread and `finish` then on the render thread); read the results after `finish()`.
public final class WaveformRecording: AudioEncoder {
    /// Each plan's results, in the order of the plans.
    public let recorders: [WaveformRecorder]
    /// One analysis per group of plans that differ only in zoom levels.
    private let analyzers: [WaveformAnalyzer]

    /// How many analyses run: one per group of plans that differ only in zoom levels.
    public var analysisCount: Int { analyzers.count }

    /// A recording of one plan.
    public convenience init(plan: WaveformPlan) { self.init(plans: [plan]) }

    public init(plans: [WaveformPlan]) {
        var groups: [(settings: WaveformAnalysisSettings, members: [Int])] = []
        for (index, plan) in plans.enumerated() {
            var key = plan.analysis
            key.samplesPerPixel = []
            if let group = groups.firstIndex(where: { $0.settings == key }) { groups[group].members.append(index) }
            else { groups.append((key, [index])) }
        }
        var recorders = [WaveformRecorder?](repeating: nil, count: plans.count)
        var analyzers: [WaveformAnalyzer] = []
        for group in groups {
            var levels: [Int] = []
            for index in group.members {
                for level in plans[index].analysis.samplesPerPixel where !levels.contains(level) { levels.append(level) }
            }
            var settings = group.settings
            settings.samplesPerPixel = levels
            let stores = levels.map {
                WaveformColumnStore(samplesPerPixel: $0, channelCount: settings.outputChannelCount, rowCount: settings.spectrumRows)
            }
            let analyzer = WaveformAnalyzer(settings: settings, fft: FFTWRealFFT(size: settings.fftSize), sinks: stores)
            analyzers.append(analyzer)
            for index in group.members {
                let own = plans[index].analysis.samplesPerPixel.map { level in stores[levels.firstIndex(of: level)!] }
                recorders[index] = WaveformRecorder(plan: plans[index], stores: own, analyzer: analyzer)
            }
        }
        self.recorders = recorders.map { $0! }
        self.analyzers = analyzers
    }

    public func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        for analyzer in analyzers { try analyzer.process(interleaved: interleaved, frames: frames) }
    }

    public func finish() throws {
        for analyzer in analyzers { try analyzer.finish() }
    }

    /// This recording as a sink of a render's output (`RenderJob.render(taps:)`): on a thread of its own
    /// (`ThreadedTap`), interleaving each block for it (`EncoderSink`), so it costs the render thread a copy.
    public func renderTap(channelCount: Int, blockFrames: Int) -> RenderTap {
        RenderTap(.output, ThreadedTap(EncoderSink(self, channelCount: channelCount, blockFrames: blockFrames),
                                       channelCount: channelCount, blockFrames: blockFrames, name: "mixrender-waveform"))
    }

    /// Every file the plans name, each plan's in turn (`WaveformRecorder.writeOutputs`). Returns the paths written.
    @discardableResult
    public func writeOutputs() throws -> [String] {
        try recorders.flatMap { try $0.writeOutputs() }
    }
}

/// One plan's waveform, as a `WaveformRecording` analysed it: its column stores (one per zoom level, perhaps shared
/// with other plans of the recording), its totals, and its files, written by `writeOutputs()` once the recording has
/// finished. Layout: the plan and references to the stores and the analysis; allocates nothing itself until its files
/// are written. Read it after the recording's `finish()`.
public final class WaveformRecorder {
    public let plan: WaveformPlan
    public let stores: [WaveformColumnStore]
    private let analyzer: WaveformAnalyzer

    init(plan: WaveformPlan, stores: [WaveformColumnStore], analyzer: WaveformAnalyzer) {
        self.plan = plan
        self.stores = stores
        self.analyzer = analyzer
    }

    /// Whole-stream measurements (complete after `finish()`).
    public var totals: WaveformTotals { analyzer.totals }

    /// The vertical scale images and the preview use: the style's, or for `auto` 1 / the peak of what
    /// is drawn (the mono mix, or the loudest channel when channels are split).
    public var amplitudeScale: Float {
        if let scale = plan.options.style.amplitudeScale { return Float(scale) }
        let peak = stores[0].peak
        return peak > 0 ? 1 / peak : 1
    }

    /// The first zoom level fitted to the plan's width (or to its column count), for a preview.
    public func pixels(width: Int? = nil) throws -> WaveformPixels {
        let store = stores[0]
        return try WaveformPixels.fit(store, width: width ?? plan.width ?? max(store.count, 1))
    }

    /// Writes every file of the plan (one per zoom level), each through a temporary file beside it
    /// renamed into place when complete. If one fails, the files this call already wrote are removed
    /// too, so a failure leaves no output. Returns the paths written.
    @discardableResult
    public func writeOutputs() throws -> [String] {
        precondition(analyzer.isFinished, "finish() the analysis first")
        guard let format = plan.format else { return [] }
        if stores[0].count == 0 {
            throw EngineError.output(path: plan.destinations[0], reason: "the audio holds no frames")
        }
        var written: [String] = []
        do {
            for (store, destination) in zip(stores, plan.destinations) {
                let output = try AtomicOutputFile(destination: destination)
                do {
                    try write(store, format: format, to: output.temporaryPath, displayPath: destination)
                    try output.commit()
                } catch {
                    output.discard()
                    throw error
                }
                written.append(destination)
            }
        } catch {
            for path in written { try? FileSystem.removeFile(path) }
            throw error
        }
        return written
    }

    private func write(_ store: WaveformColumnStore, format: WaveformFormat, to path: String, displayPath: String) throws {
        let options = plan.options, rate = plan.sampleRate
        switch format {
        case .json:
            try WaveformJSONWriter.write(store, sampleRate: rate, bits: options.bits, analysis: plan.analysis,
                                         to: path, displayPath: displayPath)
        case .dat:
            try WaveformDatWriter.write(store, sampleRate: rate, bits: options.bits, to: path, displayPath: displayPath)
        case .png, .svg:
            let width = min(plan.width ?? max(store.count, 1), WaveformOptions.maximumImageWidth)
            let height = options.style.height
            if options.style.isSpectrogram {
                let rgba = try SpectrogramRasterizer.draw(store, width: width)
                try writePNG(rgba, width: width, height: height, to: path, displayPath: displayPath)
                return
            }
            let pixels = try WaveformPixels.fit(store, width: width)
            if format == .svg {
                try WaveformSVGWriter.write(pixels, style: options.style, height: height, scale: amplitudeScale,
                                            to: path, displayPath: displayPath)
            } else {
                let rgba = WaveformRasterizer.draw(pixels, style: options.style, height: height, scale: amplitudeScale)
                try writePNG(rgba, width: width, height: height, to: path, displayPath: displayPath)
            }
        }
    }

    private func writePNG(_ rgba: [UInt8], width: Int, height: Int, to path: String, displayPath: String) throws {
        do {
            try rgba.withUnsafeBufferPointer { try PNGWriter.write(rgba: $0.baseAddress!, width: width, height: height, to: path) }
        } catch let error as AudioIOError {
            throw AudioIOError(path: displayPath, function: error.function, reason: error.reason, operation: "write", code: error.code)
        }
    }
}
