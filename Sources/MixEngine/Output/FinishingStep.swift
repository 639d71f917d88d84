import MixIO

/// One thing done to a rendered file after the block loop and before it is renamed into place: the encoded
/// file measured and corrected (`EncodedFileCorrection`), the tags written (`TagWriting`), the file hashed
/// (`ChecksumStep`), the rename (`CommitStep`). `OutputPlan.finishing` lists them in the order they run;
/// `RenderJob.render` runs the list, and a new step (an upload) goes into that list, not into `render`.
///
/// A step is a value (`Sendable`) with no state of its own: what it reads and changes is the `FinishingContext`.
/// It runs on the render's calling thread; if it throws, the temporary file is removed and nothing is left at
/// the destination.
public protocol FinishingStep: Sendable {
    func finish(_ context: inout FinishingContext) throws
}

/// What the finishing steps share: what the render is (`OutputSource`) and its output, the temporary file written, the summary and what
/// normalising did so far, and a way to write the file again.
/// A value holding references (the file, the material) and a closure; allocates nothing itself. Not `Sendable`:
/// used on the render's calling thread only.
public struct FinishingContext {
    public let source: OutputSource
    public let output: OutputPlan
    /// The temporary file and its destination (a new one after `rewrite`).
    public internal(set) var file: AtomicOutputFile
    public internal(set) var summary: RenderSummary
    public var normalisation: NormalisationOutcome?
    /// What a lossy file holds, decoded and measured (`EncodedFileCorrection`); nil for a lossless file, which holds
    /// what the render measured (`summary.loudness`).
    public var fileLoudness: LoudnessMeasurement?
    /// The file's size once committed.
    public internal(set) var committedBytes: Int64?
    /// The file's SHA-256, when the output asked for it (`ChecksumStep`).
    public var checksum: OutputChecksum?
    let write: (_ gainDb: Double, _ limiterCeilingDb: Double, _ file: AtomicOutputFile) throws -> RenderSummary

    /// Discards the temporary file and renders the plan again into a new one, at master gain `gainDb` and with the
    /// limiter's ceiling at `limiterCeilingDb`. Only the file listens this time: the render's taps (a waveform, the
    /// live stream) keep what they heard of the first write, which differs from the file by the correction.
    public mutating func rewrite(gainDb: Double, limiterCeilingDb: Double) throws {
        file.discard()
        file = try AtomicOutputFile(destination: file.destination)
        summary = try write(gainDb, limiterCeilingDb, file)
    }
}
