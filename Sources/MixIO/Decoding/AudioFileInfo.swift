/// What a reader reports about an audio file when it opens it (for libsndfile, what `sf_open` puts in
/// `SF_INFO`).
/// A value: two `String`s, numbers, the tags and the file's identity; allocates only its strings when
/// made (`read` opens and closes the file). `Sendable`, safe to share.
public struct AudioFileInfo: Sendable, Equatable {
    /// The file as the caller named it.
    public var path: String
    /// A human name for container and encoding: "Ogg Vorbis", "FLAC 24-bit", "WAV 16-bit PCM", "MP3".
    public var formatName: String
    public var sampleRate: Int
    public var channelCount: Int
    /// The frames the file's decoder gives: exact for every format mixrender reads (MP3 is scanned,
    /// see `MPEGFileReader`), so plans are made with it. Readers still read until `read` returns 0.
    public var frameCount: Int64
    /// Whether `sf_seek` works on this file.
    public var isSeekable: Bool
    /// Title, artist and comment, if the file carries them (`sf_get_string`).
    public var tags: AudioTags
    /// Which file it is on disk (device, inode, size, modification time), as `stat` saw it when the file
    /// was opened; nil when it could not be seen.
    public var identity: FileIdentity?
    /// The format whose Vorbis comments (tags, chapter marks) `FileTags` reads in it: Ogg Vorbis or FLAC,
    /// from the header's container and encoding; nil for the others.
    public var commentFormat: OutputFileFormat?
    /// What is wrong with the file that does not stop it being read, in plain words: "the file is cut
    /// short: ...". The engine passes them on as the render's warnings; `info` prints them.
    public var warnings: [String]

    public init(path: String, formatName: String, sampleRate: Int, channelCount: Int, frameCount: Int64,
                isSeekable: Bool = true, tags: AudioTags = AudioTags(), identity: FileIdentity? = nil,
                commentFormat: OutputFileFormat? = nil, warnings: [String] = []) {
        self.path = path
        self.formatName = formatName
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.frameCount = frameCount
        self.isSeekable = isSeekable
        self.tags = tags
        self.identity = identity
        self.commentFormat = commentFormat
        self.warnings = warnings
    }

    /// `frameCount / sampleRate`.
    public var durationSeconds: Double {
        sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0
    }

    /// Opens the file (`AudioFile.open`), reads its header and closes it again.
    public static func read(path: String) throws -> AudioFileInfo {
        try AudioFile.open(path: path).info
    }
}
