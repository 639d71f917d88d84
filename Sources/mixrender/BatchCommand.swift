import ArgumentParser
import Foundation
import MixRender

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Render many presets at once, sharing their prepared sounds (docs/batch.md).",
        discussion: """
            JOBS is a JSON Lines file, one job per line:
              {"preset": "presets/night.json", "output": "out/night.ogg", "duration": "30m"}
            (also id, sampleRate, quality, bitrate, resampler, loudness, truePeak, start, end, loopable; relative
            paths are taken from the job file's folder), or a folder of presets with --output-dir and --format.
            The options below that a render takes apply to every job that does not set its own.
            """)

    @Argument(help: "A JSON Lines file of jobs, or a folder of presets (*.json).")
    var jobList: String

    @Option(help: "With a folder of presets: the folder to write their renders into (made if missing).")
    var outputDir: String?

    @Option(help: "With a folder of presets: the format of their renders (an extension: ogg, m4a, mp3, flac, wav, ...).")
    var format = "ogg"

    @OptionGroup var overrides: OverrideOptions

    @Option(name: .customLong("jobs"), parsing: .unconditional, help: "How many jobs render at once (default: the cores available).")
    var workers: Int?

    @Option(name: .customLong("cache-mb"), parsing: .unconditional, help: "MiB of prepared sounds held in memory, by running jobs and between them; a job waits for room, or runs alone (default 1024).")
    var cacheMB = 1024

    @OptionGroup var cache: CacheDirOptions

    @OptionGroup var voices: VoicesFolderOptions

    @Option(help: "The results file, JSON Lines, one line per job as it ends (default: beside the job list, .results.jsonl).")
    var results: String?

    @Option(parsing: .unconditional, help: "Render only slice I of N of the job list (1/4 ... 4/4), or 'slurm' for this Slurm array task's slice.")
    var shard: String?

    @OptionGroup var progress: ProgressOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func run() throws {
        try InterruptCleanup.install()   // Ctrl-C removes every job's temporary output and exits 130
        voices.apply()
        guard cacheMB >= 0 && cacheMB <= 1 << 24 else { throw CLIError("--cache-mb must be between 0 and \(1 << 24)") }
        if let workers, !(1...256).contains(workers) { throw CLIError("--jobs must be between 1 and 256") }
        let defaults = try overrides.resolved()

        // The job list: everything wrong with it is found before any job runs.
        guard let listKind = FileSystem.identity(of: jobList)?.kind else {
            throw CLIError("\(jobList): no such file or folder (give a JSON Lines job list, or a folder of presets with --output-dir)")
        }
        var all: [BatchJob]
        let resultsStem: String
        if listKind == .folder {
            guard let outputDir else {
                throw CLIError("\(jobList) is a folder of presets: give --output-dir for their renders (and --format, default ogg)")
            }
            guard let format = OutputFileFormat.named(format) else {
                throw CLIError("--format: unknown format '\(format)'; expected \(OutputFileFormat.extensionList())")
            }
            if let kind = FileSystem.identity(of: outputDir)?.kind, kind != .folder {
                throw CLIError("--output-dir: '\(outputDir)' is a file, not a folder")
            }
            do { try FileSystem.makeFolders(outputDir) } catch { throw CLIError("--output-dir: \(ErrorMessage.translate(error))") }
            all = try BatchJobList.folder(jobList, outputFolder: outputDir, format: format, defaults: defaults)
            resultsStem = outputDir + "/batch.results"
        } else {
            guard outputDir == nil else { throw CLIError("--output-dir is for a folder of presets; a job list names each job's output") }
            all = try BatchJobList.read(path: jobList, defaults: defaults)
            let stem = jobList.hasSuffix(".jsonl") ? String(jobList.dropLast(6)) : jobList
            resultsStem = stem + ".results"
        }
        let slice = try shard.map { try Shard.parse($0, environment: ProcessInfo.processInfo.environment) } ?? .whole
        let jobs = Array(all[slice.range(jobCount: all.count)])
        let resultsFile = results ?? resultsStem + (slice.count > 1 ? "-\(slice.index + 1)of\(slice.count)" : "") + ".jsonl"
        // Nothing written (outputs, the results) may be anything read (presets, beds, sources, the job list), or
        // another file written, however spelled: checked before the results file is made or any job runs.
        try BatchJobList.checkFiles(all, jobList: jobList, results: resultsFile,
                                    resultsRole: results != nil ? "\(setting: .results)" : "the results file")
        let store = try cache.store()
        let material = PreparedMaterial(budgetBytes: cacheMB << 20, store: store)
        _ = try AtomicOutputFile.check(destination: resultsFile)
        let writer = try LineFile(path: resultsFile)

        let cores = ProcessInfo.processInfo.activeProcessorCount
        let runner = BatchRunner(jobs: jobs, workers: workers ?? cores, material: material)
        let line = BatchLine(style: progress.style(quiet: quiet))
        if !quiet && slice.count > 1 {
            FileHandle.standardError.write("shard \(slice): jobs \(jobs.first.map { $0.index + 1 } ?? 0)-\(jobs.last.map { $0.index + 1 } ?? 0) of \(all.count)\n".data(using: .utf8)!)
        }
        let outcomes = runner.run(progress: { line.draw($0) }, finished: { outcome, state in
            let error = outcome.error.map { "\(ErrorMessage.translate($0))" }
            do { try writer.append(BatchResults.line(outcome, shard: slice, error: error)) } catch {
                line.print("warning: \(ErrorMessage.translate(error))")
            }
            if let error { line.print("failed    \(outcome.job.origin): \(error)") }
            line.draw(state, force: true)
        })
        line.finish()
        try writer.close()
        if !quiet {
            for damaged in material.damagedEntries { FileHandle.standardError.write("warning: \(damaged)\n".data(using: .utf8)!) }
        }

        let failed = outcomes.filter { !$0.succeeded }
        if !quiet {
            let audio = outcomes.compactMap { $0.result?.summary.durationSeconds }.reduce(0, +)
            let wall = runner.elapsedSeconds
            let made = outcomes.compactMap(\.material).reduce(0) { $0 + $1.made - $1.fromStore }
            let fromStore = outcomes.compactMap(\.material).reduce(0) { $0 + $1.fromStore }
            let reused = outcomes.compactMap(\.material).reduce(0) { $0 + $1.reused }
            var lines = [
                "batch     \(jobs.count) jobs\(slice.count > 1 ? " (shard \(slice) of \(all.count))" : ""): \(jobs.count - failed.count) ok, \(failed.count) failed, \(runner.workers) at a time",
                "audio     \(Printout.clock(audio)) in \(Printout.clock(wall)) (\(Int((wall > 0 ? audio / wall : 0).rounded()))x realtime)",
                "material  \(made) prepared, \(fromStore) read from the cache folder, \(reused) shared; \(material.releasedCount) released under --cache-mb",
                "results   \(resultsFile)",
            ]
            if !material.storeProblems.isEmpty { lines.append("warning: " + material.storeProblems[0]) }
            print(lines.joined(separator: "\n"))
        }
        if !failed.isEmpty {
            throw CLIError("\(failed.count) of \(jobs.count) jobs failed (each is in \(resultsFile))")
        }
    }
}

/// `mixrender merge-results`: one results file from the shards'.
struct MergeResultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-results",
        abstract: "Merge the results files of a batch's shards into one, in job order.")

    @Argument(help: "The shards' results files.")
    var parts: [String]

    @Option(name: .shortAndLong, help: "The merged results file.")
    var output: String

    @Option(name: .customLong("jobs"), parsing: .unconditional, help: "The job list: check that every job of it has exactly one result.")
    var jobList: String?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func run() throws {
        guard !parts.isEmpty else { throw CLIError("give the results files to merge") }
        try BatchResults.checkFiles(merging: parts, jobList: jobList, into: output)
        let count = try jobList.map { try BatchJobList.read(path: $0).count }
        let merged = try BatchResults.merge(files: parts, jobCount: count)
        let file = try AtomicOutputFile(destination: output)
        do {
            try FileSystem.writeFile(path: file.temporaryPath, bytes: Array(merged.lines.map { $0 + "\n" }.joined().utf8))
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        if !quiet { print("merged    \(merged.lines.count) results from \(parts.count) files into \(output): \(merged.lines.count - merged.failed) ok, \(merged.failed) failed") }
        if !merged.missing.isEmpty {
            let shown = merged.missing.prefix(10).map(String.init).joined(separator: ", ")
            throw CLIError("\(merged.missing.count) jobs of \(count!) have no result (job \(shown)\(merged.missing.count > 10 ? ", ..." : ""); indexes from 0)")
        }
        if merged.failed > 0 { throw CLIError("\(merged.failed) of \(merged.lines.count) jobs failed (see \(output))") }
    }
}

/// The batch's one progress line on stderr: jobs done of total, failed, speed, time left; or, with `--progress json`,
/// the same as JSON lines (at most four a second, and the last when the batch ends):
/// `{"done":3,"total":8,"failed":0,"running":2,"speed":412.5,"remaining":6.2}` (`remaining` null until known), and
/// the lines printed above the bar as `{"message":"..."}`.
/// `Sendable`: what changes (whether a line is drawn, when it last was) is under a `Locked`; the runner calls `draw`
/// and `print` from its workers one at a time anyway (`BatchRunner.run`).
final class BatchLine: Sendable {
    private let style: ProgressOptions.Style?
    private struct Drawing {
        var drawn = false
        var last = ContinuousClock.now
    }
    private let drawing = Locked(Drawing())
    private var drawn: Bool {
        get { drawing.withLock { $0.drawn } }
        set { drawing.withLock { $0.drawn = newValue } }
    }
    private var last: ContinuousClock.Instant {
        get { drawing.withLock { $0.last } }
        set { drawing.withLock { $0.last = newValue } }
    }

    init(style: ProgressOptions.Style?) { self.style = style }

    func draw(_ p: BatchProgress, force: Bool = false) {
        guard let style, force || ContinuousClock.now - last >= .milliseconds(style == .json ? 250 : 100) else { return }
        last = ContinuousClock.now
        if style == .json {
            ProgressOptions.writeJSONLine([
                JSONValue.Member("done", .number(Double(p.done))), JSONValue.Member("total", .number(Double(p.total))),
                JSONValue.Member("failed", .number(Double(p.failed))), JSONValue.Member("running", .number(Double(p.running))),
                JSONValue.Member("speed", .number((p.realtime * 10).rounded() / 10)),
                JSONValue.Member("remaining", p.secondsLeft.map { .number(($0 * 1000).rounded() / 1000) } ?? .null),
            ])
            return
        }
        let left = p.secondsLeft.map { Printout.clock($0) + " left" } ?? ""
        let text = String(format: "\r[batch] %d/%d done, %d failed, %d running  %6.0fx realtime  %@ ", p.done, p.total, p.failed, p.running,
                          p.realtime, left)
        FileHandle.standardError.write((text + "\u{1B}[K").data(using: .utf8)!)
        drawn = true
    }

    /// A line of its own above the progress line (a JSON line `{"message": text}` with `--progress json`).
    func print(_ text: String) {
        if style == .json {
            ProgressOptions.writeJSONLine([JSONValue.Member("message", .string(text))])
            return
        }
        let clear = style == .bar && drawn ? "\r\u{1B}[K" : ""
        FileHandle.standardError.write((clear + text + "\n").data(using: .utf8)!)
    }

    func finish() {
        guard style == .bar && drawn else { return }
        FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
    }
}
