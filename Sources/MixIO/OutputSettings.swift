/// Everything `SoundFileWriter` needs to create a file; check with `SoundFileWriter.validate(settings:)`.
/// A value: two enums, numbers and three optional tag `String`s; allocates only those strings.
/// `Sendable`, safe to share.
public struct OutputSettings: Sendable, Equatable {
    public var format: OutputFileFormat
    public var sampleRate: Int
    public var channelCount: Int
    /// Sample storage for WAV and FLAC; ignored for Ogg Vorbis.
    public var sampleFormat: OutputSampleFormat
    /// Ogg Vorbis VBR quality, 0...1 (libsndfile's `SFC_SET_VBR_ENCODING_QUALITY`; 0.4 is about 92 kbit/s).
    public var vorbisQuality: Double
    public var title: String?
    public var artist: String?
    public var comment: String?

    public init(format: OutputFileFormat, sampleRate: Int, channelCount: Int,
                sampleFormat: OutputSampleFormat = .pcm16, vorbisQuality: Double = 0.4,
                title: String? = nil, artist: String? = nil, comment: String? = nil) {
        self.format = format
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.sampleFormat = sampleFormat
        self.vorbisQuality = vorbisQuality
        self.title = title
        self.artist = artist
        self.comment = comment
    }

    public var tags: AudioTags { AudioTags(title: title, artist: artist, comment: comment) }
}
