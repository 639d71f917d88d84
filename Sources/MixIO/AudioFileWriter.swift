import MixDSP

/// The one door for writing audio files: picks the encoder for a format and checks settings before anything
/// is rendered. libsndfile (`SoundFileWriter`) writes every format but AAC in M4A, which FFmpeg's libavcodec and
/// libavformat write (`FFmpegFileWriter`); a format that needs another library adds its case here.
///
/// No state; `open` allocates the encoder it returns.
public enum AudioFileWriter {
    /// Why `settings` cannot be written, in plain words, or nil if they can.
    /// What is wrong with `settings` for writing a file mixrender hands out, or nil: the writer's own limits, and
    /// 24-bit ALAC in more than one channel. libsndfile's encoder corrupts loud audio there (measured with
    /// libsndfile 1.2.0, `SoundFileIntegerTests`: stereo noise past about -6 dBFS does not decode back, in it or
    /// in FFmpeg, and a render of loud stereo noise to a 24-bit CAF crashed in it with heap corruption); mono and
    /// 16-bit ALAC are exact. (`SoundFileWriter` itself still writes it, so the sentinel test sees a fix.)
    public static func validate(settings: OutputSettings) -> String? {
        if settings.format == .caf && settings.sampleFormat == .pcm24 && settings.channelCount > 1 {
            return "24-bit ALAC in more than one channel is refused: libsndfile's encoder corrupts loud audio there (measured with libsndfile 1.2.0: stereo noise past about -6 dBFS did not decode back, and a render crashed); use 16-bit ALAC (output.bitDepth 16), or .flac, .wav or .aiff at 24 bits"
        }
        return settings.format == .m4a ? FFmpegFileWriter.validate(settings: settings) : SoundFileWriter.validate(settings: settings)
    }

    /// Creates the file at `path` and returns its encoder; `displayPath` is the name errors give (the
    /// destination, when `path` is a temporary file beside it). `chapters` are stored by a container that has
    /// its own chapter marks (M4A's chapter track); other formats ignore them (Vorbis comments are written
    /// into the finished file with `FileTags`).
    public static func open(path: String, settings: OutputSettings, displayPath: String? = nil,
                            chapters: [ChapterMark] = []) throws -> AudioEncoder {
        if settings.format == .m4a {
            return try FFmpegFileWriter(path: path, settings: settings, displayPath: displayPath, chapters: chapters)
        }
        return try SoundFileWriter(path: path, settings: settings, displayPath: displayPath)
    }

    /// Creates a lossless file (`settings.format.isPCM`: WAV/RF64, FLAC, AIFF, ALAC in CAF) at `path` and returns
    /// its libsndfile encoder, which also takes integer samples (`write(interleavedIntegers:frames:)`) for
    /// copies that must stay sample-exact (`mixrender join`).
    public static func openLossless(path: String, settings: OutputSettings, displayPath: String? = nil) throws -> SoundFileWriter {
        precondition(settings.format.isPCM, "openLossless is for WAV, FLAC, AIFF and CAF")
        return try SoundFileWriter(path: path, settings: settings, displayPath: displayPath)
    }

    /// An encoder writing into the open file descriptor `descriptor` (a pipe: standard output), for formats that
    /// `canStream`; `displayPath` names it in errors ("standard output").
    public static func open(fileDescriptor descriptor: Int32, settings: OutputSettings, displayPath: String) throws -> AudioEncoder {
        try SoundFileWriter(fileDescriptor: descriptor, settings: settings, displayPath: displayPath)
    }
}
