/// Everything a user chooses about a waveform.
/// A value: a resolution, two settings and a style; allocates only the resolution's array when made.
/// `Sendable`, safe to share.
public struct WaveformOptions: Sendable, Equatable {
    public var resolution: WaveformResolution = .automatic
    /// 8 or 16: the resolution of the values in .json and .dat files.
    public var bits = 16
    /// One waveform per channel instead of one of the mono mix.
    public var isSplittingChannels = false
    public var style = WaveformImageStyle()

    public init() {}

    /// Columns for images when nothing else is asked for.
    public static let defaultImageWidth = 1200
    /// Samples per pixel for data files when nothing else is asked for (audiowaveform's default).
    public static let defaultSamplesPerPixel = 256
    /// The widest image written (images at a zoom level are as wide as their column count).
    public static let maximumImageWidth = 32768
    public static let maximumImageHeight = 4096

    /// Why these options cannot work whatever the file, naming the setting; nil when they can.
    public var problem: EngineError? {
        switch resolution {
        case .samplesPerPixel(let levels):
            if levels.isEmpty { return .setting(.samplesPerPixel, reason: "needs at least one value") }
            if let bad = levels.first(where: { $0 < 1 }) { return .setting(.samplesPerPixel, reason: "must be at least 1, not \(bad)") }
        case .pixelsPerSecond(let levels):
            if levels.isEmpty { return .setting(.pixelsPerSecond, reason: "needs at least one value") }
            if let bad = levels.first(where: { $0 < 1 }) { return .setting(.pixelsPerSecond, reason: "must be at least 1, not \(bad)") }
        case .width(let width):
            if width < 1 { return .setting(.width, reason: "must be at least 1, not \(width)") }
            if width > Self.maximumImageWidth { return .setting(.width, reason: "must be at most \(Self.maximumImageWidth), not \(width)") }
        case .automatic:
            break
        }
        if bits != 8 && bits != 16 { return .setting(.bits, reason: "must be 8 or 16, not \(bits)") }
        if style.height < 1 || style.height > Self.maximumImageHeight {
            return .setting(.height, reason: "must be between 1 and \(Self.maximumImageHeight), not \(style.height)")
        }
        if let scale = style.amplitudeScale, !(scale.isFinite && scale > 0) {
            return .setting(.amplitudeScale, reason: "must be a positive number or 'auto'")
        }
        if let range = style.decibelRange, !WaveformImageStyle.decibelRanges.contains(range) {
            return .setting(.decibelRange, reason: "must be between \(Int(WaveformImageStyle.decibelRanges.lowerBound)) and \(Int(WaveformImageStyle.decibelRanges.upperBound)) dB, not \(JSONValue.format(range))")
        }
        return nil
    }
}
