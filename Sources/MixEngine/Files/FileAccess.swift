import MixIO

/// Every file one command will read and every file it will write, checked against each other before anything
/// is written: the one rule that keeps mixrender from destroying its own inputs (rsync never writes onto its
/// source). `render`, `batch`, `merge-results`, `join` and `waveform` each list what they read (presets, beds at
/// any depth, sources, job lists, parts) and what they write (outputs, results, timelines, reports, waveforms,
/// merged files), then call `check()`.
///
/// Paths are compared by where they lead (`FileSystem.location(of:)`): the same device and inode for files that
/// exist, however they are spelled (`..`, an absolute path, a symbolic or hard link, a symbolic link to a
/// folder); for files not made yet, the existing folder above and the names below it. So `dup/a.wav` and
/// `dup/../dup/a.wav` are one output, and a job's output is refused when a later job plays it, whether or not it
/// exists yet.
///
/// A value of two lists; `check` reads the file system (`stat`) once per path. Not for sharing between threads
/// while it is being filled.
public struct FileAccess: Sendable {
    /// One path and what it is to the command, in words for an error: `the preset of jobs.jsonl:3`, `--timeline`.
    struct Use: Sendable {
        var path: String
        var what: EngineReason
    }

    private var reads: [Use] = []
    private var writes: [Use] = []

    public init() {}

    /// The command reads `path`, which is `what` (`"the bed 'bed.json'"`).
    public mutating func reads(_ path: String, as what: EngineReason) { reads.append(Use(path: path, what: what)) }

    /// The command reads every file `preset` names (beds, sources, recordings), each said to be read by `reader`
    /// (`the render`, `jobs.jsonl:3`) and named where the preset names it.
    public mutating func reads(filesOf preset: Preset, by reader: String) {
        for file in preset.files { reads(file.path, as: "a file \(reader) reads (\(file.preset): \(file.jsonPath))") }
    }

    /// The command writes `path`, which is `what` (`"\(setting: .timeline)"`, `"the output of jobs.jsonl:2"`).
    public mutating func writes(_ path: String, as what: EngineReason) { writes.append(Use(path: path, what: what)) }

    /// Throws `EngineError.output` for the first written path that leads where another written path does, or
    /// where a read one does: `cannot write 'p.json': --results is the preset of jobs.jsonl:1 ('./p.json'); writing
    /// there would destroy it`. A path that cannot be resolved at all (a folder on the way that may not be
    /// looked in) is compared by its spelling.
    public func check() throws {
        enum Key: Hashable { case location(FileLocation), spelling(String) }
        func key(_ path: String) -> Key { FileSystem.location(of: path).map(Key.location) ?? .spelling(path) }
        var readAt: [Key: Use] = [:]
        for use in reads {
            let k = key(use.path)
            if readAt[k] == nil { readAt[k] = use }
        }
        var writtenAt: [Key: Use] = [:]
        for use in writes {
            let k = key(use.path)
            if let input = readAt[k] {
                throw EngineError.output(path: use.path, reason: EngineReason(parts: use.what.parts + [.text(" is ")] + input.what.parts + [
                    .text("\(Self.spelled(input.path, differently: use.path)); writing there would destroy it")]))
            }
            if let other = writtenAt[k] {
                throw EngineError.output(path: use.path, reason: EngineReason(parts: use.what.parts + [
                    .text(" is also ")] + other.what.parts + [
                    .text("\(Self.spelled(other.path, differently: use.path)); each needs a file of its own")]))
            }
            writtenAt[k] = use
        }
    }

    /// ` ('./p.json')` when the other path is spelled differently, else nothing.
    private static func spelled(_ path: String, differently other: String) -> String {
        path == other ? "" : " ('\(path)')"
    }
}
