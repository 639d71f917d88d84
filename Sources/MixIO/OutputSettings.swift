/// Everything `SoundFileWriter` needs to create a file; check with `SoundFileWriter.validate(settings:)`.
/// A value: two enums, numbers and the tags (`TagFields`); allocates only the tags' strings.
/// `Sendable`, safe to share.
public struct OutputSettings: Sendable, Equatable {
    public var format: OutputFileFormat
    public var sampleRate: Int
    public var channelCount: Int
    /// Sample storage for WAV and FLAC; ignored for Ogg Vorbis.
    public var sampleFormat: OutputSampleFormat
    /// Ogg Vorbis VBR quality, 0...1 (libsndfile's `SFC_SET_VBR_ENCODING_QUALITY`; 0.4 is about 92 kbit/s);
    /// for MP3 and Opus the variable-bitrate quality on the same scale, used when `bitrateKbps` is nil.
    public var vorbisQuality: Double
    /// A bitrate in kbit/s for the lossy formats that take one (MP3: constant bitrate; Opus: its target
    /// bitrate); nil: variable bitrate at `vorbisQuality`.
    public var bitrateKbps: Int?
    /// The tags, in order (docs/tags.md): libsndfile stores title, artist and comment (and, in CAF, every known
    /// key); `FileTags` writes them all where the format has tags.
    public var tagFields = TagFields()
    public var title: String? { get { tagFields.value("TITLE") } set { tagFields.set("TITLE", newValue) } }
    public var artist: String? { get { tagFields.value("ARTIST") } set { tagFields.set("ARTIST", newValue) } }
    public var comment: String? { get { tagFields.value("COMMENT") } set { tagFields.set("COMMENT", newValue) } }
    /// How many frames will be written, when the caller knows: a WAV whose data will not fit in the 4 GiB a
    /// RIFF header can describe is written as RF64 instead (see `wavNeedsRF64`).
    public var expectedFrameCount: Int64?

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

    /// Whether the tags are written into the finished file afterwards (`FileTags`, as a render to a file does), so
    /// that the encoder stores none itself: each file's tags have one writer.
    public var tagsWrittenAfterwards = false

    /// Bytes of room the encoder reserves at the start of a FLAC or MP3 for the tags written afterwards
    /// (`TagLimits.room`): a placeholder comment (`FileTags.roomMarker`) that TagLib's save replaces, turning what is
    /// left into padding, so the finished file is tagged in place instead of rewritten whole. 0 reserves nothing.
    public var tagRoomBytes = 0

    /// The most data bytes a RIFF WAV holds: its sizes are 32-bit (the RIFF size counts the header too, so
    /// 1 MiB is kept for the header and the tags).
    public static let riffDataLimit: Int64 = (1 << 32) - (1 << 20)

    /// Whether this WAV's data will pass `riffDataLimit`, so that it must be RF64 (EBU Tech 3306, which
    /// libsndfile, FFmpeg, SoX and most editors read) for its header to say how long it is: an 8-hour 16-bit
    /// stereo render at 48 kHz is 5.5 GB. Smaller WAVs stay plain RIFF, which every player reads.
    public var wavNeedsRF64: Bool {
        guard format == .wav, let frames = expectedFrameCount else { return false }
        return frames * Int64(channelCount * sampleFormat.bytesPerSample) > OutputSettings.riffDataLimit
    }
}
