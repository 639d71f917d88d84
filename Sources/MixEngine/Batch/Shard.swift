/// One of N slices of a job list, for running one list on several machines (`--shard I/N`, or a Slurm job
/// array's task with `--shard slurm`, or a Kubernetes Indexed Job's completion index).
///
/// Slice `i` of `n` (0-based here, written 1-based as `i+1/n`) holds the jobs `[i·J/n, (i+1)·J/n)` of a list of
/// J: contiguous, so neighbouring jobs, which often share their sounds, share one machine's prepared material;
/// sizes differing by at most one; every job in exactly one slice for any n (a slice may be empty when n > J).
/// The split depends only on the list's length and n, so every machine computes the same one.
///
/// A value of two `Int`s; `Sendable`.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// From 0.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        precondition(count > 0 && index >= 0 && index < count)
        self.index = index
        self.count = count
    }

    /// The whole list as one slice.
    public static let whole = Shard(index: 0, count: 1)

    /// The jobs of a list of `jobCount` that this slice runs.
    public func range(jobCount: Int) -> Range<Int> {
        let n = Int64(jobCount), c = Int64(count), i = Int64(index)
        return Int(i * n / c)..<Int((i + 1) * n / c)
    }

    /// `2/4`: 1-based, as written on the command line.
    public var description: String { "\(index + 1)/\(count)" }

    /// More slices than this is refused.
    public static let maximumCount = 1_000_000

    /// `I/N` (1-based: `1/4` ... `4/4`), or `slurm`: the Slurm job array's task, from `SLURM_ARRAY_TASK_ID`,
    /// `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_STEP` (default 1) and `SLURM_ARRAY_TASK_COUNT` in `environment`.
    /// Errors are `EngineError.setting(.shard)`.
    public static func parse(_ text: String, environment: [String: String]) throws -> Shard {
        if text == "slurm" { return try slurm(environment) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw EngineError.setting(.shard, reason: "'\(text)' is not a slice; write I/N (1/4 is the first of four) or slurm")
        }
        guard n >= 1 && n <= maximumCount else { throw EngineError.setting(.shard, reason: "\(text): N must be between 1 and \(maximumCount)") }
        guard i >= 1 && i <= n else { throw EngineError.setting(.shard, reason: "\(text): I must be between 1 and \(n) (slices count from 1)") }
        return Shard(index: i - 1, count: n)
    }

    /// The largest task id, count, first id or step taken from Slurm's variables.
    static let slurmMaximum = 4_000_001

    private static func slurm(_ environment: [String: String]) throws -> Shard {
        func number(_ name: String, default value: Int? = nil) throws -> Int {
            guard let text = environment[name] else {
                if let value { return value }
                throw EngineError.setting(.shard, reason: "slurm: \(name) is not set; run it as a task of a Slurm job array (sbatch --array=0-3)")
            }
            guard let n = Int(text.filter { $0 != " " }) else { throw EngineError.setting(.shard, reason: "slurm: \(name)='\(text)' is not a number") }
            // Checked like a number on the command line: Slurm's task ids and counts stay under 4,000,001
            // (its largest MaxArraySize), which also keeps the arithmetic below far from overflowing.
            guard (0...slurmMaximum).contains(n) else {
                throw EngineError.setting(.shard, reason: "slurm: \(name)=\(text) is out of range (0 to \(slurmMaximum), as Slurm numbers array tasks)")
            }
            return n
        }
        let id = try number("SLURM_ARRAY_TASK_ID")
        let count = try number("SLURM_ARRAY_TASK_COUNT")
        let min = try number("SLURM_ARRAY_TASK_MIN", default: 0)
        let step = try number("SLURM_ARRAY_TASK_STEP", default: 1)
        guard count >= 1 && count <= maximumCount, step >= 1, id >= min, (id - min) % step == 0, (id - min) / step < count else {
            throw EngineError.setting(.shard, reason: "slurm: task \(id) is not one of \(count) tasks from \(min) in steps of \(step)")
        }
        return Shard(index: (id - min) / step, count: count)
    }
}
