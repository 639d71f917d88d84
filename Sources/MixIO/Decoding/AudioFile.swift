import MixDSP

/// An open audio file: a decoder, and what the file says about itself.
///
/// Every reader's `info.frameCount` is the length its decoder actually produces (for MP3, found by
/// scanning the frames, not taken from the header), so a plan made from `info` matches what `read` gives.
/// Not thread-safe: one thread at a time, as `AudioDecoder`.
public protocol AudioFileReader: AudioDecoder {
    var info: AudioFileInfo { get }
}

extension AudioFileReader {
    public var sampleRate: Int { info.sampleRate }
    public var channelCount: Int { info.channelCount }
    public var frameCount: Int64 { info.frameCount }
}

/// Opens audio files with the decoder that suits them. The one door through which the engine, the CLI and
/// the tests read audio.
public enum AudioFile {
    /// Opens `path` for reading.
    ///
    /// libsndfile reads WAV, AIFF, FLAC, Ogg Vorbis and Ogg Opus, and names what it finds. A regular file
    /// whose format it does not recognise goes to FFmpeg (AAC in .m4a and .mp4, Opus and Vorbis in WebM,
    /// ...); if FFmpeg does not recognise it either, the error says it is not an audio format mixrender
    /// can read.
    public static func open(path: String) throws -> any AudioFileReader {
        do {
            return try SoundFileReader(path: path)
        } catch let error as AudioIOError where error.isUnrecognisedFormat {
            return try FFmpegFileReader(path: path)
        }
    }
}
