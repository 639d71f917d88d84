/// The level of one output channel over one waveform column.
public struct ChannelLevels: Equatable, Sendable {
    /// Lowest and highest sample of the column (full scale is ±1).
    public var min: Float
    public var max: Float
    /// Root mean square of the column's samples: sqrt(Σ x² / n).
    public var rms: Float

    public init(min: Float, max: Float, rms: Float) {
        self.min = min
        self.max = max
        self.rms = rms
    }

    /// The larger of |min| and |max|.
    @inlinable public var peak: Float { Swift.max(-min, max) }
}

/// The spectral content of one column of the mono mix (see `SpectralFrameAnalyzer` for the formulas
/// and `SpectralColumnResolver` for how FFT frames become columns).
public struct BandLevels: Equatable, Sendable {
    /// RMS amplitude in each band: sqrt(P_band), where P_band is the band's part of the mean-square
    /// level, so low² + mid² + high² equals the mono mix's rms² (for a stationary signal) and the
    /// values share the scale of `ChannelLevels.rms`.
    public var low: Float
    public var mid: Float
    public var high: Float
    /// Spectral centroid in Hz, magnitude-weighted: Σ f_k |X_k| / Σ |X_k|; 0 for silence.
    public var centroidHz: Float

    public init(low: Float, mid: Float, high: Float, centroidHz: Float) {
        self.low = low
        self.mid = mid
        self.high = high
        self.centroidHz = centroidHz
    }

    public static let silent = BandLevels(low: 0, mid: 0, high: 0, centroidHz: 0)
}

/// One column of a waveform at one zoom level: `frameCount` frames reduced to a min/max/RMS per
/// output channel, band levels and, if asked for, a spectrogram column.
///
/// The buffers are only valid during the `WaveformColumnSink.append` call that receives the column.
public struct WaveformColumn {
    /// The column's number, from 0; it covers frames [index * samplesPerPixel, + frameCount).
    public var index: Int
    /// Frames in the column: samples per pixel, or fewer for the last column.
    public var frameCount: Int
    /// One entry per output channel (one for a mono mixdown).
    public var channels: UnsafeBufferPointer<ChannelLevels>
    public var bands: BandLevels
    /// Spectrogram rows, lowest frequency first: the power in each row, in the units of the band powers
    /// (a sine of amplitude A reads A²/2 in its row; see `SpectrumRowLayout`); empty unless `spectrumRows > 0`.
    public var spectrum: UnsafeBufferPointer<Float>

    public init(index: Int, frameCount: Int, channels: UnsafeBufferPointer<ChannelLevels>, bands: BandLevels,
                spectrum: UnsafeBufferPointer<Float>) {
        self.index = index
        self.frameCount = frameCount
        self.channels = channels
        self.bands = bands
        self.spectrum = spectrum
    }
}

/// Receives the columns of one zoom level, in order, as the analysis completes them.
public protocol WaveformColumnSink: AnyObject {
    func append(_ column: WaveformColumn) throws
}
