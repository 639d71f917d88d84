import Foundation  // ProcessInfo
import MixDSP
import MixIO

/// `mixrender waveform`: decodes an audio file in blocks, analyses it in one streaming pass, and writes
/// the requested file(s) or leaves a preview to print. Several outputs (a server's JSON, PNG and SVG of one render)
/// are fed from the one decode, each by a recorder of its own plan.
///
/// Everything that can be wrong with the request is found in `init`, before any audio is decoded: the
/// output's extension and folder, the options, the input (missing, empty, not audio, no frames).
///
/// Layout: the paths, the input's `AudioFileInfo`, the `WaveformPlan` and the open `AudioFileReader`.
/// `init` opens the input; `run` allocates the recorder, a read-ahead ring and its thread (with several decoding
/// threads: a reader of the input for each but the first, and their chunk buffers), and what the writers need.
/// Not thread-safe: `run` once, from one thread; the readers are read on the decoding threads it starts and stops.
public final class WaveformJob {
    public let inputPath: String
    /// The files asked for; none for a preview.
    public let outputPaths: [String]
    public let info: AudioFileInfo
    /// One plan per output (one, with no output, for a preview).
    public let plans: [WaveformPlan]
    private let reader: any AudioFileReader

    /// The first output, or nil for a preview.
    public var outputPath: String? { outputPaths.first }
    /// The first output's plan (the preview's).
    public var plan: WaveformPlan { plans[0] }

    /// Frames decoded per `read` call.
    public static let blockFrames = 16384

    /// Frames each decoding thread decodes at a time when there are several (`ParallelReadAhead`): 8 blocks, 2.7 s at
    /// 48 kHz (1 MiB of stereo). A decoder reaches its next chunk by reading the packets between (no seek of the
    /// file) and decodes about 4096 frames before it, 3 % of a chunk; longer chunks measured no faster and hold more.
    static let chunkFrames = 8 * blockFrames

    /// Threads that decode the file when nothing says otherwise: one per core, at most two. Decoding is most of the
    /// work (an hour of Ogg Vorbis: about 2.3 s of decoding, 1.2 s of analysis on one thread), so two decoders and
    /// the analysis fill two cores. A third measured about 4 % faster on two cores, for 2 MiB more: not the default.
    public static var defaultDecodingThreads: Int { min(2, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// The threads that decode the file (1 or more): more than one only for a file whose seeks give the same
    /// samples (`AudioFileReader.seeksToTheSameSamples`: Ogg Vorbis read whole) and at least three chunks long.
    public let decodingThreads: Int

    /// `decodingThreads` (at least 1) is how many threads may decode the file; see the property of that name for
    /// when they do.
    public convenience init(inputPath: String, outputPath: String?, options: WaveformOptions, previewWidth: Int = 80,
                            decodingThreads: Int = WaveformJob.defaultDecodingThreads) throws {
        try self.init(inputPath: inputPath, outputs: outputPath.map { [$0] } ?? [], options: options, previewWidth: previewWidth,
                      decodingThreads: decodingThreads)
    }

    /// A job writing every file of `outputs` (a preview when there are none) from one decode of the input.
    public init(inputPath: String, outputs: [String], options: WaveformOptions, previewWidth: Int = 80,
                decodingThreads: Int = WaveformJob.defaultDecodingThreads) throws {
        if outputs.isEmpty, let problem = options.problem { throw problem }
        for output in outputs { try WaveformPlan.checkOutput(output, options: options) }
        if !outputs.isEmpty { try Self.checkWrites(outputs, input: inputPath) }
        reader = try AudioFile.open(path: inputPath, purpose: .wholeFile)
        info = reader.info
        guard info.frameCount > 0 else {
            throw EngineError.input(path: inputPath, reason: "the file holds no audio (0 frames)")
        }
        self.inputPath = inputPath
        outputPaths = outputs
        let info = self.info
        plans = try (outputs.isEmpty ? [nil] : outputs.map { Optional($0) }).map { output in
            try WaveformPlan(output: output, options: options, sampleRate: info.sampleRate,
                             channelCount: info.channelCount, frameCount: info.frameCount, previewWidth: previewWidth)
        }
        // One file per level, when there are several; none may be another's or the input.
        let destinations = plans.flatMap(\.destinations)
        if !destinations.isEmpty { try Self.checkWrites(destinations, input: inputPath) }
        let isSeekExact = reader.seeksToTheSameSamples
        self.decodingThreads = isSeekExact && info.frameCount >= 3 * Int64(Self.chunkFrames) ? max(1, decodingThreads) : 1
    }

    /// Another reader of the input for another decoding thread, which must find the file as the first did: a file
    /// replaced or changed in between is refused, not decoded half from each.
    private func openAgain() throws -> any AudioFileReader {
        let again = try AudioFile.open(path: inputPath, purpose: .wholeFile)
        guard again.info.identity == info.identity, again.info.frameCount == info.frameCount,
              again.info.sampleRate == info.sampleRate, again.info.channelCount == info.channelCount else {
            throw EngineError.input(path: inputPath, reason: "the file changed while it was being opened")
        }
        return again
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
    /// the frames analysed so far. Call once. The first output's recorder (`runAll` gives every one).
    public func run(progress: ((Int64) -> Void)? = nil) throws -> WaveformRecorder {
        try runAll(progress: progress)[0]
    }

    /// Decodes the whole file once, each block into every output's recorder, then writes every plan's files.
    /// Call once.
    public func runAll(progress: ((Int64) -> Void)? = nil) throws -> [WaveformRecorder] {
        let recording = WaveformRecording(plans: plans)
        let blocks: any DecodedBlocks
        if decodingThreads > 1 {
            // Each decoder takes every Nth chunk of the file; the analysis here takes the blocks back in order.
            let others = try (1..<decodingThreads).map { _ in try openAgain() }
            blocks = ParallelReadAhead([reader] + others,
                                       frameCount: info.frameCount, blockFrames: Self.blockFrames, chunkFrames: Self.chunkFrames)
        } else {
            // Decoding runs a few blocks ahead on its own thread; the analysis here only waits for it.
            blocks = ReadAheadDecoder(reader, blockFrames: Self.blockFrames)
        }
        defer { blocks.cancel() }
        var decoded: Int64 = 0
        while let block = try blocks.next() {
            try recording.write(interleaved: block.samples, frames: block.frames)
            blocks.release()
            decoded += Int64(block.frames)
            progress?(decoded)
        }
        try recording.finish()
        guard decoded > 0 else {
            throw EngineError.input(path: inputPath, reason: "no audio could be decoded")
        }
        try recording.writeOutputs()
        return recording.recorders
    }
}
