/// How a waveform image is drawn.
/// A value: a height, a mode, colours, an optional scale and a flag; allocates nothing. `Sendable`,
/// safe to share.
public struct WaveformImageStyle: Sendable, Equatable {
    /// A plain enum value (`Sendable`); allocates nothing.
    public enum ColorMode: String, Sendable, CaseIterable {
        /// One colour for peaks, a lighter one for RMS.
        case solid
        /// Each column coloured by its band levels (see `WaveformColor.bands`), as DJ software colours music.
        case bands
        /// Each column coloured by its band levels relative to that band's level over the whole file, so that a
        /// mix whose balance hardly moves (rain, wind and surf at once) still shows what stands out where: an owl's
        /// call (mid), thunder (low), a gust's hiss (high). See `WaveformPixels.relativeBandColor`.
        case relative
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
    /// Draw levels in decibels instead of amplitude: the lane's edge is 0 dBFS (after `amplitudeScale`) and its
    /// centre line this many dB below, so a quiet or steady bed's changes show (a noise bed is a flat band in
    /// amplitude); nil draws amplitude.
    public var decibelRange: Double?
    /// The ranges `decibelRange` may take, in dB.
    public static let decibelRanges = 12.0...120.0
    /// Draw a spectrogram instead of a waveform (PNG only).
    public var isSpectrogram = false

    public init() {}

    public var resolvedBackground: WaveformColor {
        background ?? (colorMode != .solid ? WaveformColor(red: 0x12, green: 0x12, blue: 0x16) : .white)
    }

    public var resolvedRMSColor: WaveformColor { rmsColor ?? color.mixed(with: .white, 0.4) }
}
