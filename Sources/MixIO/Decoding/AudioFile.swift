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
    /// libsndfile reads WAV, AIFF, FLAC, Ogg Vorbis and Ogg Opus, and recognises MPEG audio, which
    /// `MPEGFileReader` then reads (libsndfile's MP3 length is the header's, which may be wrong).
    public static func open(path: String) throws -> any AudioFileReader {
        let reader = try SoundFileReader(path: path)
        guard reader.isMPEG else { return reader }
        return try MPEGFileReader(path: path, identity: reader.info.identity, tags: reader.info.tags)
    }
}
