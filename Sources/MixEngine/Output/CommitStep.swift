import MixIO

/// The last finishing step: renames the temporary file over the destination (`AtomicOutputFile.commit`) and
/// records the size of what is there. A value with no state; allocates nothing.
struct CommitStep: FinishingStep {
    func finish(_ context: inout FinishingContext) throws {
        try context.file.commit()
        context.committedBytes = FileSystem.identity(of: context.file.destination)?.size ?? 0
    }
}
