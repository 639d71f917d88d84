/// How samples are stored in lossless output (ignored by Ogg Vorbis, which stores no samples).
/// A plain enum value (`Sendable`); allocates nothing.
public enum OutputSampleFormat: String, Sendable, CaseIterable {
    /// Signed 16-bit integers (`SF_FORMAT_PCM_16`); clipped, not wrapped.
    case pcm16
    /// Signed 24-bit integers (`SF_FORMAT_PCM_24`); clipped, not wrapped.
    case pcm24
    /// 32-bit floats (`SF_FORMAT_FLOAT`); WAV only.
    case float32

    /// Bytes one sample takes in a WAV file.
    public var bytesPerSample: Int {
        switch self {
        case .pcm16: return 2
        case .pcm24: return 3
        case .float32: return 4
        }
    }
}
