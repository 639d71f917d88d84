import MixRender

/// Turns the engine's and MixIO's structured errors into the one-line messages the command line prints
/// (after ArgumentParser's `Error: `), naming each engine setting by its option.
enum ErrorMessage {
    /// The option that sets `setting`.
    static func option(_ setting: EngineSetting) -> String {
        switch setting {
        case .duration: return "--duration"
        case .sampleRate: return "--sample-rate"
        case .quality: return "--quality"
        case .bitrate: return "--bitrate"
        case .format: return "--format"
        case .loudness: return "--loudness"
        case .truePeak: return "--true-peak"
        case .start: return "--start"
        case .end: return "--end"
        case .output: return "-o"
        case .samplesPerPixel: return "--samples-per-pixel"
        case .pixelsPerSecond: return "--pixels-per-second"
        case .width: return "--width"
        case .bits: return "--bits"
        case .height: return "--height"
        case .amplitudeScale: return "--amplitude-scale"
        case .decibelRange: return "--db-range"
        case .spectrogram: return "--spectrogram"
        case .jobs: return "--jobs"
        case .cacheSize: return "--cache-mb"
        case .cacheDir: return "--cache-dir"
        case .shard: return "--shard"
        case .results: return "--results"
        case .jobList: return "--jobs"
        }
    }

    /// The line for `error`: engine errors worded with option names, MixIO's as they describe themselves
    /// (`cannot open 'rain.ogg': malformed file (sf_open)`); anything else (ArgumentParser's own errors,
    /// `CLIError`) is passed on as it is.
    static func translate(_ error: Error) -> Error {
        switch error {
        case let error as EngineError: return CLIError(line(error))
        case let error as AudioIOError: return CLIError(EngineError.singleLine(error.description))
        default: return error
        }
    }

    static func line(_ error: EngineError) -> String {
        error.words(naming: option)
    }
}
