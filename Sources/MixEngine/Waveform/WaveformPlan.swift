import MixDSP
import MixIO

/// A waveform request resolved against the audio it describes: the zoom levels, the files to write,
/// the width of images, and the analysis settings. Everything wrong with the request is found here,
/// before any audio is decoded.
///
/// A value: the format, options, numbers, the zoom levels and destination paths (arrays) and the
/// analysis settings; `init` allocates those (and checks each output's folder with
/// `AtomicOutputFile.check`, which creates nothing). `Sendable`, safe to share.
public struct WaveformPlan: Sendable {
    /// What is written; nil for a terminal preview.
    public let format: WaveformFormat?
    public let options: WaveformOptions
    public let sampleRate: Int
    public let channelCount: Int
    /// Frames the source says it holds (the analysis counts what really comes).
    public let expectedFrameCount: Int64
    /// Frames per column, one entry per zoom level.
    public let samplesPerPixel: [Int]
    /// One file per zoom level: the output path itself for one level, `name.<spp>.ext` for several.
    public let destinations: [String]
    /// The width of images and of the preview; nil when an image is as wide as its column count.
    public let width: Int?
    public let analysis: WaveformAnalysisSettings

    /// Checks what can be checked before the input is opened: the options, the extension, and that the
    /// output's folder exists. Returns the format.
    @discardableResult
    public static func checkOutput(_ path: String, options: WaveformOptions) throws -> WaveformFormat {
        if let problem = options.problem { throw problem }
        guard let format = WaveformFormat.from(path: path) else {
            let ext = WaveformFormat.extensionOf(path)
            let what = ext.isEmpty ? "no extension" : "unknown extension '.\(ext)'"
            throw EngineError.output(path: path, reason: "\(what); use .json, .dat, .png or .svg")
        }
        if options.style.isSpectrogram && format != .png {
            throw EngineError.output(path: path, reason: "\(setting: .spectrogram) draws a PNG image; use a .png file")
        }
        try AtomicOutputFile.check(destination: path)
        return format
    }

    /// Resolves `options` for audio of `sampleRate`, `channelCount` and `frameCount` frames, to be
    /// written to `output` (nil: a terminal preview `previewWidth` characters wide).
    public init(output: String?, options: WaveformOptions, sampleRate: Int, channelCount: Int,
                frameCount: Int64, previewWidth: Int = 80) throws {
        let format = try output.map { try Self.checkOutput($0, options: options) }
        if let problem = options.problem { throw problem }
        guard sampleRate > 0, channelCount > 0 else {
            throw EngineError.input(path: "", reason: "the audio reports \(channelCount) channels at \(sampleRate) Hz")
        }
        self.format = format
        self.options = options
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        expectedFrameCount = frameCount

        func fit(_ width: Int) throws -> [Int] {
            guard frameCount > 0 else { throw EngineError.input(path: "", reason: "the audio holds no frames to fit in a width") }
            return [Int(max(1, (frameCount + Int64(width) - 1) / Int64(width)))]
        }
        var resolution = options.resolution
        if format == nil {
            switch resolution {
            case .samplesPerPixel, .pixelsPerSecond:
                let given: EngineSetting = { if case .samplesPerPixel = resolution { return .samplesPerPixel }; return .pixelsPerSecond }()
                throw EngineError.setting(given, reason: "needs \(setting: .output); the preview fits the terminal (or \(setting: .width))")
            case .automatic:
                resolution = .width(max(previewWidth, 1))
            case .width:
                break
            }
        }
        var levels: [Int]
        var width: Int?
        switch resolution {
        case .samplesPerPixel(let spp):
            levels = spp
        case .pixelsPerSecond(let pps):
            if let tooMany = pps.first(where: { $0 > sampleRate }) {
                throw EngineError.setting(.pixelsPerSecond, reason: "\(tooMany) is more than the sample rate (\(sampleRate) Hz)")
            }
            levels = pps.map { sampleRate / $0 }
        case .width(let w):
            levels = try fit(w)
            width = w
        case .automatic:
            if format?.isImage == true {
                levels = try fit(WaveformOptions.defaultImageWidth)
                width = WaveformOptions.defaultImageWidth
            } else {
                levels = [WaveformOptions.defaultSamplesPerPixel]
            }
        }
        // The same level twice would be the same file twice.
        var seen = Set<Int>()
        levels = levels.filter { seen.insert($0).inserted }
        samplesPerPixel = levels
        self.width = width

        if let format, format.isImage, width == nil {
            for spp in levels {
                let columns = (frameCount + Int64(spp) - 1) / Int64(spp)
                if columns > Int64(WaveformOptions.maximumImageWidth) {
                    let unit = spp == 1 ? "sample" : "samples"
                    let limit = WaveformOptions.maximumImageWidth
                    throw EngineError.output(path: output!, reason: "\(columns) columns at \(spp) \(unit) per pixel make an image wider than \(limit) pixels; use \(setting: .width)")
                }
            }
        }
        if let output {
            destinations = levels.count == 1 ? [output] : levels.map { WaveformFormat.path(output, level: $0) }
            for path in destinations where path != output { try AtomicOutputFile.check(destination: path) }
        } else {
            destinations = []
        }
        let isSpectrogram = options.style.isSpectrogram
        analysis = WaveformAnalysisSettings(
            sampleRate: sampleRate, channelCount: channelCount,
            isSplittingChannels: options.isSplittingChannels && !isSpectrogram,
            samplesPerPixel: levels, spectrumRows: isSpectrogram ? options.style.height : 0)
        if let problem = analysis.problem { throw EngineError.input(path: "", reason: "\(problem)") }
    }
}
