import MixIO

/// A finishing step that hashes the file as written (SHA-256, `ContentHash`) just before it is renamed into place,
/// so the digest a report gives is of the bytes committed, read while they are fresh in the page cache, and never of
/// a file someone changed after the rename. Asked for with `OutputPlan(checksum: true)` (a render with `--report`).
/// A value with no state; allocates the digest's text.
struct ChecksumStep: FinishingStep {
    func finish(_ context: inout FinishingContext) throws {
        context.checksum = try OutputChecksum(ofFile: context.file.temporaryPath)
    }
}

/// The SHA-256 of a written file (`ChecksumStep`): its hex digest, the bytes hashed and the time hashing took.
/// A value; allocates the digest's text. `Sendable`.
public struct OutputChecksum: Sendable, Equatable {
    public var sha256: String
    public var bytes: Int64
    public var seconds: Double
    public var cpuSeconds: Double

    /// Hashes the file at `path` (`ContentHash`), timing it: what `ChecksumStep` does before the rename, and a
    /// report does after it when the render did not ask for the step.
    init(ofFile path: String) throws {
        let started = ContinuousClock.now, startedCPU = CPUClock.process
        let digest = try ContentHash.file(path: path)
        self.init(sha256: digest.sha256, bytes: digest.bytes, seconds: (ContinuousClock.now - started).seconds,
                  cpuSeconds: CPUClock.process - startedCPU)
    }

    public init(sha256: String, bytes: Int64, seconds: Double, cpuSeconds: Double) {
        self.sha256 = sha256; self.bytes = bytes; self.seconds = seconds; self.cpuSeconds = cpuSeconds
    }
}
