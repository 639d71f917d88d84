import MixEngine
import MixIO

/// Reading and analysing audio files (a render's output, or any file): what a file is, its loudness and its
/// waveform, as `mixrender info`, `loudness` and `waveform` do. Each call decodes on a thread of its own.
/// No state: any task may call at once.
@available(macOS 15.0, *)
public enum AudioAnalysis {
    /// The format, rate, channels and length of the audio file at `path`, from its header (the exact length of an
    /// MP3, which takes a decode).
    public static func info(ofFile path: String) async throws -> AudioFileInfo {
        try await RenderThread.run { try LibraryError.wrapping(output: nil) { try AudioFileInfo.read(path: path) } }
    }

    /// The EBU R128 loudness of the file at `path` (libebur128): integrated, range, sample peak, momentary and
    /// short-term maxima, and the true peak (4x oversampled) unless `truePeak` is false.
    public static func loudness(ofFile path: String, truePeak: Bool = true) async throws -> LoudnessMeasurement {
        try await RenderThread.run {
            try LibraryError.wrapping(output: nil) { try LoudnessScan.measure([path], truePeak: truePeak)[0].result.get() }
        }
    }

    /// The waveform of the file at `path`, in one streaming pass: its totals (length, peak, RMS, band shares), and
    /// when `output` is given the files `mixrender waveform -o` writes (.json, .dat, .png or .svg; one per level
    /// when `options` asks for several), checked before anything is decoded.
    public static func waveform(ofFile path: String, writingTo output: String? = nil,
                                options: WaveformOptions = WaveformOptions()) async throws -> WaveformAnalysis {
        try await RenderThread.run {
            try LibraryError.wrapping(output: output) {
                let job = try WaveformJob(inputPath: path, outputPath: output, options: options)
                let recorder = try job.run()
                return WaveformAnalysis(info: job.info, totals: recorder.totals, files: recorder.plan.destinations)
            }
        }
    }

    /// The waveform of the file at `path` written as every file of `outputs` (say `.json`, `.png` and `.svg`) from one
    /// decode: one `WaveformAnalysis` per output, in order. The files are those `waveform(ofFile:writingTo:)` writes
    /// for each, byte for byte.
    public static func waveforms(ofFile path: String, writingTo outputs: [String],
                                 options: WaveformOptions = WaveformOptions()) async throws -> [WaveformAnalysis] {
        precondition(!outputs.isEmpty, "waveforms(ofFile:writingTo:) writes at least one file")
        return try await RenderThread.run {
            try LibraryError.wrapping(output: outputs[0]) {
                let job = try WaveformJob(inputPath: path, outputs: outputs, options: options)
                return try job.runAll().map { recorder in
                    WaveformAnalysis(info: job.info, totals: recorder.totals, files: recorder.plan.destinations)
                }
            }
        }
    }
}

/// What `AudioAnalysis.waveform` found and wrote. A value (`Sendable`).
public struct WaveformAnalysis: Sendable {
    /// The file analysed.
    public var info: AudioFileInfo
    /// Its length, peak, RMS, band shares and spectral centroid.
    public var totals: WaveformTotals
    /// The files written (none without an output).
    public var files: [String]
}

/// What an audio file is: its path, format name, sample rate, channels, frames, tags and warnings.
public typealias AudioFileInfo = MixIO.AudioFileInfo
