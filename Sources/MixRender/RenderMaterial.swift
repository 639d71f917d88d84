import MixEngine

/// What renders in one process share, and with a cache folder keep across processes and machines: the sources they
/// play, decoded once for every render that plays them (held within `budgetBytes` of memory, least recently used out
/// first), the speech they say and the loudness they measure. A server gives one to every render it makes; the
/// CLI's `--cache-dir` is its folder.
///
/// The folder (made when missing, trimmed to `folderBudgetBytes`, least recently used out first) is safe to share
/// between processes and servers: entries are written whole and renamed into place, and an entry read back is
/// checked; a damaged one is made again, said in `problems`, never used. What is made from the folder is the same,
/// sample for sample, as what a render makes itself.
///
/// A class (`Sendable`, safe to share): its state is the engine's `PreparedMaterial`, guarded by its own lock.
public final class RenderMaterial: Sendable {
    let prepared: PreparedMaterial

    /// Material held within `budgetBytes` of memory; with `folder`, kept there too, within `folderBudgetBytes` of
    /// disk. Throws `EngineError.setting(.cacheDir)` when the folder cannot be made, written or trimmed.
    public init(budgetBytes: Int = .max, folder: String? = nil, folderBudgetBytes: Int64 = 4 << 30) throws {
        let store = try folder.map { try MaterialStore(folder: $0, budgetBytes: folderBudgetBytes) }
        prepared = PreparedMaterial(budgetBytes: budgetBytes, store: store)
    }

    /// What went wrong with the folder so far, one line each: entries found damaged (and made again), entries that
    /// could not be stored (the render went on without storing them).
    public var problems: [String] { prepared.damagedEntries + prepared.storeProblems }

    /// Entries found damaged in the folder and made again, one line each.
    public var damagedEntries: [String] { prepared.damagedEntries }

    /// Why entries could not be stored in the folder, one line each.
    public var storeProblems: [String] { prepared.storeProblems }

    /// Sources let go to stay within `budgetBytes`.
    public var releasedCount: Int { prepared.releasedCount }
}
