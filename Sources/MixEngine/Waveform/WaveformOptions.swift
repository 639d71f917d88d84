/// How many frames each column of a waveform covers.
public enum WaveformResolution: Sendable, Equatable {
    /// Frames per column, one zoom level each (audiowaveform's `--zoom`).
    case samplesPerPixel([Int])
    /// Columns per second, one zoom level each: samples per pixel = rate / pps (integer division, as
    /// audiowaveform does).
    case pixelsPerSecond([Int])
    /// The whole file in at most this many columns: samples per pixel = ceil(frames / width).
    case width(Int)
    /// 256 samples per pixel for data files (audiowaveform's default), 1200 columns for images,
    /// the terminal's width for the preview.
    case automatic
}

/// How a waveform image is drawn.
public struct WaveformImageStyle: Sendable, Equatable {
    public enum ColorMode: String, Sendable, CaseIterable {
        /// One colour for peaks, a lighter one for RMS.
        case solid
        /// Each column coloured by its band levels (see `WaveformColor.bands`).
        case bands
    }

    /// Image height in pixels (each channel gets an equal lane when channels are split).
    public var height: Int = 240
    public var colorMode: ColorMode = .solid
    /// Peaks colour (solid mode).
    public var color = WaveformColor(red: 0x2f, green: 0x6f, blue: 0xb5)
    /// RMS colour; by default the peaks colour mixed 40 % towards white.
    public var rmsColor: WaveformColor?
    /// Background; by default white, or near-black in bands mode (DJ software's look).
    public var background: WaveformColor?
    /// Vertical gain: a sample of value v is drawn at v * scale of the lane's half height (clipped).
    /// nil scales the file's peak to the full height.
    public var amplitudeScale: Double? = 1
    /// Draw a spectrogram instead of a waveform (PNG only).
    public var isSpectrogram = false

    public init() {}

    public var resolvedBackground: WaveformColor {
        background ?? (colorMode == .bands ? WaveformColor(red: 0x12, green: 0x12, blue: 0x16) : .white)
    }

    public var resolvedRMSColor: WaveformColor { rmsColor ?? color.mixed(with: .white, 0.4) }
}

/// Everything a user chooses about a waveform.
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

    /// Why these options cannot work whatever the file, naming the option; nil when they can.
    public var problem: String? {
        switch resolution {
        case .samplesPerPixel(let levels):
            if levels.isEmpty { return "--samples-per-pixel needs at least one value" }
            if let bad = levels.first(where: { $0 < 1 }) { return "--samples-per-pixel must be at least 1, not \(bad)" }
        case .pixelsPerSecond(let levels):
            if levels.isEmpty { return "--pixels-per-second needs at least one value" }
            if let bad = levels.first(where: { $0 < 1 }) { return "--pixels-per-second must be at least 1, not \(bad)" }
        case .width(let width):
            if width < 1 { return "--width must be at least 1, not \(width)" }
            if width > Self.maximumImageWidth { return "--width must be at most \(Self.maximumImageWidth), not \(width)" }
        case .automatic:
            break
        }
        if bits != 8 && bits != 16 { return "--bits must be 8 or 16, not \(bits)" }
        if style.height < 1 || style.height > Self.maximumImageHeight {
            return "--height must be between 1 and \(Self.maximumImageHeight), not \(style.height)"
        }
        if let scale = style.amplitudeScale, !(scale.isFinite && scale > 0) {
            return "--amplitude-scale must be a positive number or 'auto'"
        }
        return nil
    }
}
