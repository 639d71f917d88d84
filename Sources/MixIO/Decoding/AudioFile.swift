import MixDSP

/// An open audio file: a decoder, and what the file says about itself.
///
/// Every reader's `info.frameCount` is the length its decoder actually produces (for MP3, found by
/// scanning the frames, not taken from the header), so a plan made from `info` matches what `read` gives.
/// Not thread-safe: one thread at a time, as `AudioDecoder`.
public protocol AudioFileReader: AudioDecoder {
    var info: AudioFileInfo { get }
    /// Whether a seek gives the very samples a read from the start gives there, so that readers of one file can each
    /// decode a part of it (`mixrender waveform`'s decoding threads).
    var seeksToTheSameSamples: Bool { get }
}

extension AudioFileReader {
    public var seeksToTheSameSamples: Bool { false }
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
    /// `MPEGFileReader` then reads (libsndfile's MP3 length is the header's, which may be wrong). A regular
    /// file whose format libsndfile does not recognise goes to FFmpeg (AAC in .m4a and .mp4, Opus and
    /// Vorbis in WebM, ...); if FFmpeg does not recognise it either, the error says it is not an audio
    /// format mixrender can read.
    public static func open(path: String) throws -> any AudioFileReader {
        let reader: SoundFileReader
        do {
            reader = try SoundFileReader(path: path)
        } catch let error as AudioIOError where error.isUnrecognisedFormat {
            return try FFmpegFileReader(path: path)
        }
        guard reader.isMPEG else { return reader }
        return try MPEGFileReader(path: path, identity: reader.info.identity, tags: reader.info.tags)
    }

    /// What a file is opened for, where two decoders read its format.
    public enum Purpose: Sendable {
        /// Streamed as it plays, with seeks anywhere: libsndfile for everything it reads.
        case playback
        /// Read whole, once, from the start (waveforms, loudness measurements): the fastest decoder that gives the
        /// same samples. Loops and one-shots prepared in memory keep libsndfile: on the peers' night mix FFmpeg's
        /// Vorbis decoder saved 3 % of the CPU and no wall time (preparing runs on every core), and raised the
        /// peak by 7 MiB.
        case wholeFile
    }

    /// Opens `path` for `purpose`. Read whole, Ogg Vorbis is decoded by FFmpeg's decoder, with libsndfile's info (its
    /// exact length, names and tags): 2.9x faster here than libvorbis through libsndfile, and the same samples within
    /// 1.1e-7 (`swift run -c release bench --only vorbis`). One plain stream is demuxed with libogg
    /// (`OggVorbisFileReader`), anything else by FFmpeg (`FFmpegFileReader`). Everything else as `open(path:)`.
    public static func open(path: String, purpose: Purpose) throws -> any AudioFileReader {
        let reader = try open(path: path)
        guard purpose == .wholeFile, reader.info.commentFormat == .oggVorbis, reader is SoundFileReader else { return reader }
        if let plain = try OggVorbisFileReader.open(path: path, knownInfo: reader.info) { return plain }
        return try FFmpegFileReader(path: path, knownInfo: reader.info)
    }
}
