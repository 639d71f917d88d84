/// One column of a waveform at one zoom level: `frameCount` frames reduced to a min/max/RMS per
/// output channel, band levels and, if asked for, a spectrogram column.
///
/// The buffers are only valid during the `WaveformColumnSink.append` call that receives the column.
///
/// A value of two `Int`s, a `BandLevels` and two buffer pointers into the analyser's memory; allocates
/// nothing. Not `Sendable` (it borrows the analyser's buffers): use it on the thread that receives it.
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
///
/// `append` is called on the thread running the analysis, one column at a time; a conforming type must
/// copy what it keeps (the column's buffers are reused), and must not allocate if the caller needs
/// `WaveformAnalyzer.process` to stay allocation-free.
public protocol WaveformColumnSink: AnyObject {
    func append(_ column: WaveformColumn) throws
}
