import ArgumentParser
import Foundation
import MixRender

struct WaveformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform",
        abstract: "Export or draw an audio file's waveform (.json, .dat, .png, .svg), or preview it in the terminal.",
        discussion: """
            mixrender waveform rain.ogg                    a preview and a summary
            mixrender waveform rain.ogg -o rain.json       peaks for web and app players
            mixrender waveform rain.ogg -o rain.dat --zoom 256,1024 --bits 8
            mixrender waveform rain.ogg -o rain.png --width 1800 --colors bands
            mixrender waveform rain.ogg -o rain.png --spectrogram
            See docs/waveform.md for the formats and formulas.
            """)

    @Argument(help: "The audio file: \(OutputFileFormat.extensionList(dotted: true)), or anything else FFmpeg reads.")
    var input: String

    @Option(name: .shortAndLong, help: "The output: .json, .dat, .png or .svg. Without it, a preview is printed.")
    var output: String?

    @Option(name: [.customLong("samples-per-pixel"), .customLong("zoom"), .customShort("z")],
            help: "Frames per column; several values (256,512,1024) write one file per level: rain.256.json, ... (default 256 for .json and .dat).")
    var samplesPerPixel: String?

    @Option(help: "Columns per second of audio; several values allowed, as for --zoom.")
    var pixelsPerSecond: String?

    @Option(parsing: .unconditional, help: "Fit the whole file into this many columns; the width of images (default 1200) and of the preview (default: the terminal's).")
    var width: Int?

    @Option(parsing: .unconditional, help: "Image height in pixels (each channel gets a lane with --split-channels).")
    var height = 240

    @Option(parsing: .unconditional, help: "Resolution of .json and .dat values: 8 or 16 bits.")
    var bits = 16

    @Flag(help: "One waveform per channel instead of one of the mono mix.")
    var splitChannels = false

    @Option(help: "Image colouring: solid; bands (each column coloured by its low/mid/high band levels: red, green, blue); or relative (each band against its own level over the file, so what stands out of a steady mix shows).")
    var colors = "solid"

    @Option(name: .customLong("db-range"), parsing: .unconditional,
            help: "Draw levels in decibels, the lane's edge 0 dBFS and its centre this many dB below (12 to 120, e.g. 48), so a quiet or steady bed's changes show; images and the preview (default: amplitude).")
    var decibelRange: Double?

    @Option(help: "Peak colour, #rrggbb or #rrggbbaa (default #2f6fb5).")
    var color: String?

    @Option(help: "RMS colour (default: the peak colour, lighter).")
    var rmsColor: String?

    @Option(help: "Background colour, or 'transparent' (default white; near-black with --colors bands).")
    var background: String?

    @Option(help: "Vertical gain of images and the preview, or 'auto' to fill the height with the file's peak (default 1 for images, auto for the preview).")
    var amplitudeScale: String?

    @Flag(help: "Draw a spectrogram (log frequency, 20 Hz to Nyquist) instead of a waveform; needs a .png output.")
    var spectrogram = false

    @Option(help: "Threads that decode the file (1 to \(RenderCommand.maximumThreads); default: one per core, at most 2). Only Ogg Vorbis of 17 s or more takes more than one; the waveform is the same bit for bit whatever the count.")
    var threads: Int?

    @OptionGroup var progress: ProgressOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func run() throws {
        try InterruptCleanup.install()   // Ctrl-C removes the temporary output files and exits 130
        let options = try waveformOptions()
        let previewWidth = width ?? Self.terminalWidth()
        if let threads, !(1...RenderCommand.maximumThreads).contains(threads) {
            throw CLIError("--threads must be between 1 and \(RenderCommand.maximumThreads), not \(threads)")
        }
        let job = try WaveformJob(inputPath: input, outputPath: output, options: options, previewWidth: previewWidth,
                                  decodingThreads: threads ?? WaveformJob.defaultDecodingThreads)
        if !quiet { Printout.warn(job.info.warnings.map { "\(input): \($0)" }) }
        let bar = ProgressBar(totalFrames: job.info.frameCount, sampleRate: job.info.sampleRate,
                              style: progress.style(quiet: quiet))
        let recorder = try job.run { bar.update($0) }
        bar.finish()
        if quiet { return }
        var lines: [String] = []
        if output == nil {
            let pixels = try recorder.pixels(width: previewWidth)
            let isColored = Terminal.isTerminal(Terminal.standardOutput) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            let rows = pixels.laneCount > 1 ? 3 : 4
            // A terminal gets band colours (relative ones when asked for); a pipe or NO_COLOR none.
            let style = recorder.plan.options.style
            let colors: WaveformImageStyle.ColorMode = isColored ? (style.colorMode == .relative ? .relative : .bands) : .solid
            lines += WaveformTerminalPreview.lines(pixels, rows: rows, scale: recorder.amplitudeScale,
                                                   decibelRange: style.decibelRange.map(Float.init), colors: colors)
            lines.append(Self.timeAxis(seconds: recorder.totals.durationSeconds, width: previewWidth))
        } else {
            for (store, path) in zip(recorder.stores, recorder.plan.destinations) {
                lines.append("wrote     \(path) (\(Self.describe(store, plan: recorder.plan)))")
            }
        }
        lines += Self.summary(job: job, totals: recorder.totals)
        print(lines.joined(separator: "\n"))
    }

    /// The options as the engine takes them; errors are one line naming the option.
    func waveformOptions() throws -> WaveformOptions {
        var o = WaveformOptions()
        let given = [samplesPerPixel != nil, pixelsPerSecond != nil, width != nil].filter { $0 }.count
        if given > 1 {
            throw CLIError("use only one of --samples-per-pixel (--zoom), --pixels-per-second and --width")
        }
        if let samplesPerPixel { o.resolution = .samplesPerPixel(try Self.list(samplesPerPixel, option: "--samples-per-pixel")) }
        if let pixelsPerSecond { o.resolution = .pixelsPerSecond(try Self.list(pixelsPerSecond, option: "--pixels-per-second")) }
        if let width { o.resolution = .width(width) }
        o.bits = bits
        o.isSplittingChannels = splitChannels
        o.style.height = height
        guard let mode = WaveformImageStyle.ColorMode(rawValue: colors) else {
            throw CLIError("--colors: unknown colouring '\(colors)'; expected solid, bands or relative")
        }
        o.style.colorMode = mode
        func parse(_ text: String?, _ option: String) throws -> WaveformColor? {
            guard let text else { return nil }
            guard let c = WaveformColor(parsing: text) else {
                throw CLIError("\(option): '\(text)' is not a colour; use #rrggbb, #rrggbbaa or transparent")
            }
            return c
        }
        if let c = try parse(color, "--color") { o.style.color = c }
        o.style.rmsColor = try parse(rmsColor, "--rms-color")
        o.style.background = try parse(background, "--background")
        switch amplitudeScale {
        case nil: o.style.amplitudeScale = output == nil ? nil : 1
        case "auto"?: o.style.amplitudeScale = nil
        case let text?:
            guard let scale = Double(text), scale.isFinite, scale > 0 else {
                throw CLIError("--amplitude-scale: '\(text)' is not a positive number or 'auto'")
            }
            o.style.amplitudeScale = scale
        }
        o.style.decibelRange = decibelRange
        o.style.isSpectrogram = spectrogram
        if spectrogram && output == nil { throw CLIError("--spectrogram needs -o with a .png file") }
        return o
    }

    /// "256,512,1024" -> [256, 512, 1024].
    static func list(_ text: String, option: String) throws -> [Int] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, values.count == parts.count else {
            throw CLIError("\(option): '\(text)' is not a number or a comma-separated list of numbers")
        }
        return values
    }

    /// The widest preview drawn, whatever COLUMNS says (no terminal is this wide).
    static let maximumPreviewWidth = 1000

    /// The COLUMNS variable, else the width of the terminal on stdout (`Terminal.width`), else 80; at most
    /// `maximumPreviewWidth`.
    static func terminalWidth() -> Int {
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 { return min(n, maximumPreviewWidth) }
        return min(Terminal.width(of: Terminal.standardOutput) ?? 80, maximumPreviewWidth)
    }

    /// "0:00" at the left, the duration at the right.
    static func timeAxis(seconds: Double, width: Int) -> String {
        let left = "0:00", right = Printout.clock(seconds)
        let gap = width - left.count - right.count
        return gap > 0 ? left + String(repeating: " ", count: gap) + right : right
    }

    static func describe(_ store: WaveformColumnStore, plan: WaveformPlan) -> String {
        let channels = store.channelCount == 1 ? "1 channel" : "\(store.channelCount) channels"
        var parts = ["\(store.samplesPerPixel) samples per pixel", "\(store.count) columns", channels]
        switch plan.format {
        case .json?, .dat?: parts.append("\(plan.options.bits)-bit")
        case .png?, .svg?:
            let width = min(plan.width ?? store.count, WaveformOptions.maximumImageWidth)
            parts.append("\(width) x \(plan.options.style.height) px")
        case nil: break
        }
        return parts.joined(separator: ", ")
    }

    static func summary(job: WaveformJob, totals: WaveformTotals) -> [String] {
        let info = job.info
        let channels = info.channelCount == 1 ? "mono" : info.channelCount == 2 ? "stereo" : "\(info.channelCount) channels"
        var lines = [
            "file      \(info.path): \(info.formatName), \(info.sampleRate) Hz, \(channels)",
            "duration  \(Printout.clock(totals.durationSeconds)) (\(totals.frameCount) frames)",
            "peak      \(Printout.db(Printout.decibels(fromGain: Double(totals.peak)))) dBFS, RMS \(Printout.db(Printout.decibels(fromGain: totals.rms))) dBFS",
        ]
        let analysis = job.plan.analysis
        if let dominant = totals.dominantBand {
            func percent(_ band: WaveformTotals.Band) -> String { String(format: "%.0f %%", 100 * totals.share(of: band)) }
            let low = hz(analysis.lowMidEdgeHz), high = hz(analysis.midHighEdgeHz)
            let range = dominant == .low ? "below \(low)" : dominant == .mid ? "\(low) to \(high)" : "above \(high)"
            lines.append("bands     low \(percent(.low)), mid \(percent(.mid)), high \(percent(.high)): "
                         + "\(dominant.rawValue) dominates (\(range)); centroid \(hz(totals.centroidHz))")
        } else {
            lines.append("bands     silent")
        }
        return lines
    }

    /// 250 -> "250 Hz", 4000 -> "4 kHz", 1834.2 -> "1.83 kHz".
    static func hz(_ f: Double) -> String {
        if f < 1000 { return String(format: "%.0f Hz", f) }
        let k = f / 1000
        return k == k.rounded() ? String(format: "%.0f kHz", k) : String(format: "%.2f kHz", k)
    }
}
