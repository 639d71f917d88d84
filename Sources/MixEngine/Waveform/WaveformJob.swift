import MixDSP
import MixIO

/// `mixrender waveform`: decodes an audio file in blocks, analyses it in one streaming pass, and writes
/// the requested file(s) or leaves a preview to print.
///
/// Everything that can be wrong with the request is found in `init`, before any audio is decoded: the
/// output's extension and folder, the options, the input (missing, empty, not audio, no frames).
///
/// Layout: the paths, the input's `AudioFileInfo`, the `WaveformPlan` and the open `AudioFileReader`.
/// `init` opens the input; `run` allocates the recorder, a read-ahead ring and its thread, and what the
/// writers need. Not thread-safe: `run` once, from one thread; the reader is read on the decoding
/// thread it starts and stops.
public final class WaveformJob {
    public let inputPath: String
    public let outputPath: String?
    public let info: AudioFileInfo
    public let plan: WaveformPlan
    private let reader: any AudioFileReader

    /// Frames decoded per `read` call.
    public static let blockFrames = 16384

    public init(inputPath: String, outputPath: String?, options: WaveformOptions, previewWidth: Int = 80) throws {
        if let outputPath {
            try WaveformPlan.checkOutput(outputPath, options: options)
            try Self.checkWrites([outputPath], input: inputPath)
        } else if let problem = options.problem {
            throw problem
        }
        reader = try AudioFile.open(path: inputPath, purpose: .wholeFile)
        info = reader.info
        guard info.frameCount > 0 else {
            throw EngineError.input(path: inputPath, reason: "the file holds no audio (0 frames)")
        }
        self.inputPath = inputPath
        self.outputPath = outputPath
        plan = try WaveformPlan(output: outputPath, options: options, sampleRate: info.sampleRate,
                                channelCount: info.channelCount, frameCount: info.frameCount, previewWidth: previewWidth)
        try Self.checkWrites(plan.destinations, input: inputPath)   // one file per level, when there are several
    }

    /// No file written may be the input, or another of them, however reached (`FileAccess`).
    private static func checkWrites(_ outputs: [String], input: String) throws {
        var access = FileAccess()
        access.reads(input, as: "the input file")
        for path in outputs { access.writes(path, as: "the waveform") }
        try access.check()
    }

    /// Decodes the whole file into a `WaveformRecorder` (decoding on a second thread, a few blocks ahead),
    /// then writes the plan's files (none for a preview). `progress` is called after each block with
    /// the frames analysed so far. Call once.
    public func run(progress: ((Int64) -> Void)? = nil) throws -> WaveformRecorder {
        let recorder = WaveformRecorder(plan: plan)
        // Decoding runs a few blocks ahead on its own thread; the analysis here only waits for it.
        let blocks = ReadAheadDecoder(reader, blockFrames: Self.blockFrames)
        defer { blocks.cancel() }
        var decoded: Int64 = 0
        while let block = try blocks.next() {
            try recorder.write(interleaved: block.samples, frames: block.frames)
            blocks.release()
            decoded += Int64(block.frames)
            progress?(decoded)
        }
        try recorder.finish()
        guard decoded > 0 else {
            throw EngineError.input(path: inputPath, reason: "no audio could be decoded")
        }
        try recorder.writeOutputs()
        return recorder
    }
}
