import MixDSP

/// The one door for writing audio files: picks the encoder for a format and checks settings before anything
/// is rendered. Every format goes through libsndfile (`SoundFileWriter`) today; a format that needs another
/// library adds its case here.
///
/// No state; `open` allocates the encoder it returns.
public enum AudioFileWriter {
    /// Why `settings` cannot be written, in plain words, or nil if they can.
    public static func validate(settings: OutputSettings) -> String? {
        SoundFileWriter.validate(settings: settings)
    }

    /// Creates the file at `path` and returns its encoder; `displayPath` is the name errors give (the
    /// destination, when `path` is a temporary file beside it).
    public static func open(path: String, settings: OutputSettings, displayPath: String? = nil) throws -> AudioEncoder {
        try SoundFileWriter(path: path, settings: settings, displayPath: displayPath)
    }
}
