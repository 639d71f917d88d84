/// How many frames each column of a waveform covers.
/// A value (`Sendable`, safe to share); allocates only the array a case holds.
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
