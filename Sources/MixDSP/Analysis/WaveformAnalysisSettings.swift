/// What `WaveformAnalyzer` computes: the zoom levels, the channel layout, the FFT and the bands.
/// A value of numbers, a flag and the `samplesPerPixel` array; allocates only that array when made.
/// `Sendable`, safe to share.
public struct WaveformAnalysisSettings: Sendable, Equatable {
    public var sampleRate: Int
    /// Channels of the input frames.
    public var channelCount: Int
    /// One waveform per input channel; otherwise one waveform of the mono mix (the mean of the channels,
    /// as audiowaveform does).
    public var isSplittingChannels: Bool
    /// Samples (frames) per column, one entry per zoom level, each at least 1.
    public var samplesPerPixel: [Int]
    /// FFT frame length N (a power of two): see `defaultFFTSize(sampleRate:)`.
    public var fftSize: Int
    /// Upper edge of the low band and of the mid band, in Hz: low is [0, lowMidEdgeHz),
    /// mid [lowMidEdgeHz, midHighEdgeHz), high [midHighEdgeHz, Nyquist].
    public var lowMidEdgeHz: Double
    public var midHighEdgeHz: Double
    /// Rows of a spectrogram per column (log-spaced from `spectrumLowestHz` to Nyquist); 0 for none.
    public var spectrumRows: Int
    public var spectrumLowestHz: Double

    public init(sampleRate: Int, channelCount: Int, isSplittingChannels: Bool = false,
                samplesPerPixel: [Int], fftSize: Int? = nil,
                lowMidEdgeHz: Double = 250, midHighEdgeHz: Double = 4000,
                spectrumRows: Int = 0, spectrumLowestHz: Double = 20) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.isSplittingChannels = isSplittingChannels
        self.samplesPerPixel = samplesPerPixel
        self.fftSize = fftSize ?? Self.defaultFFTSize(sampleRate: sampleRate)
        self.lowMidEdgeHz = lowMidEdgeHz
        self.midHighEdgeHz = midHighEdgeHz
        self.spectrumRows = spectrumRows
        self.spectrumLowestHz = spectrumLowestHz
    }

    /// Waveforms written: `channelCount` when splitting channels, else 1.
    public var outputChannelCount: Int { isSplittingChannels ? channelCount : 1 }

    /// Distance between FFT frame centres: H = N / 2 (50 % overlap; periodic Hann frames at this hop
    /// weight every sample equally, as at 75 %, with half the FFTs: the FFT was a quarter of a waveform's CPU).
    public var hopSize: Int { fftSize / 2 }

    /// The FFT size used unless one is given: the power of two nearest (in octaves) to
    /// 2048 * rate / 48000, so every rate gets a window of about 43 ms (2048 at 44.1 and 48 kHz,
    /// 4096 at 96 kHz, 512 at 11.025 kHz) and bins about 23 Hz wide; between 256 and 16384.
    public static func defaultFFTSize(sampleRate: Int) -> Int {
        let target = 2048.0 * Double(sampleRate) / 48000
        var size = 256
        // Move up while the next power of two is nearer in octaves: target / size > sqrt(2).
        while size < 16384 && target * target > 2 * Double(size) * Double(size) { size *= 2 }
        return size
    }

    /// Why these settings cannot be analysed, or nil.
    public var problem: String? {
        if sampleRate < 1 { return "the sample rate must be positive" }
        if channelCount < 1 { return "there must be at least one channel" }
        if samplesPerPixel.isEmpty { return "at least one zoom level is needed" }
        if let bad = samplesPerPixel.first(where: { $0 < 1 }) { return "samples per pixel must be at least 1, not \(bad)" }
        if fftSize < 16 || fftSize & (fftSize - 1) != 0 { return "the FFT size must be a power of two of at least 16" }
        if !(lowMidEdgeHz > 0 && midHighEdgeHz > lowMidEdgeHz) { return "band edges must be positive and increasing" }
        if spectrumRows < 0 || spectrumRows > 1 << 16 { return "spectrum rows must be between 0 and 65536" }
        if spectrumRows > 0 && !(spectrumLowestHz > 0 && spectrumLowestHz < Double(sampleRate) / 2) {
            return "the spectrogram's lowest frequency must be between 0 and Nyquist"
        }
        return nil
    }
}
