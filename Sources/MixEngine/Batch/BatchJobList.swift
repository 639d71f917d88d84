import MixDSP
import MixIO

/// One render of a batch: a preset, an output, and the settings that override the preset's.
/// A value of strings and numbers; `Sendable`, safe to share.
public struct BatchJob: Sendable, Equatable {
    /// The job's place in the whole list, from 0 (a shard keeps the list's numbers).
    public var index: Int
    /// Where it was written: `jobs.jsonl:4`, or the preset's path for a folder of presets.
    public var origin: String
    /// The caller's name for it (`id` in a job line), carried into its result.
    public var id: String?
    /// The preset and the output, as the render opens them (a job line's relative paths are resolved
    /// against the job file's folder).
    public var preset: String
    public var output: String
    public var overrides: RenderOverrides

    public init(index: Int, origin: String, id: String? = nil, preset: String, output: String,
                overrides: RenderOverrides = RenderOverrides()) {
        self.index = index; self.origin = origin; self.id = id
        self.preset = preset; self.output = output; self.overrides = overrides
    }
}

/// Reads a batch's jobs: a JSON Lines file (one job object per line) or a folder of presets.
///
/// A job line: `{"preset": "presets/night.json", "output": "out/night.ogg", "duration": "30m"}`, with the
/// optional `id`, `duration`, `sampleRate`, `quality`, `bitrate`, `resampler`, `loudness`, `truePeak`,
/// `start`, `end` and `loopable`, which mean what the render command's options mean and are checked by the same
/// rules. Blank lines are skipped. Everything that can be wrong with the list itself (a line that is not JSON,
/// an unknown key, a value out of range, two jobs writing one file) is an error before any job runs, naming
/// `file:line: key`; what is wrong with a job's preset or sources is found when it runs, and fails that job alone.
///
/// Stateless; reading allocates the jobs.
public enum BatchJobList {
    public static let keys = ["id", "preset", "output", "duration", "sampleRate", "quality", "bitrate", "resampler",
                              "loudness", "truePeak", "start", "end", "loopable"]
    /// More jobs than this in one list is refused (a list that large is better split into several batches).
    public static let maximumJobs = 1_000_000
    /// The longest job list read: 256 MiB (a million jobs of over 250 bytes each).
    public static let maximumBytes = 256 << 20

    /// The jobs of the JSON Lines file at `path`; `defaults` apply to every job that does not set its own.
    public static func read(path: String, defaults: RenderOverrides = RenderOverrides()) throws -> [BatchJob] {
        let folder = folderOf(path)
        var jobs: [BatchJob] = []
        for (lineNumber, line) in try JSONLines.read(path: path, maximumBytes: maximumBytes) {
            let origin = "\(path):\(lineNumber)"
            let value: JSONValue
            do { value = try JSONValue.parse(Array(line)) } catch let error as JSONSyntaxError {
                throw EngineError.preset(PresetError(file: origin, jsonPath: error.jsonPath, message: error.message))
            }
            guard jobs.count < maximumJobs else {
                throw EngineError.preset(PresetError(file: path, jsonPath: "", message: "holds more than \(maximumJobs) jobs; split it into several batches"))
            }
            jobs.append(try job(JSONCursor(value, file: origin), index: jobs.count, origin: origin, folder: folder, defaults: defaults))
        }
        guard !jobs.isEmpty else { throw EngineError.preset(PresetError(file: path, jsonPath: "", message: "holds no jobs (one JSON object per line)")) }
        return jobs
    }

    /// One job per preset (`*.json`, in name order) in `folder`, each written to `outputFolder/<name>.<format>`.
    public static func folder(_ folder: String, outputFolder: String, format: OutputFileFormat,
                              defaults: RenderOverrides = RenderOverrides()) throws -> [BatchJob] {
        let names = try FileSystem.folderEntries(folder).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { throw EngineError.preset(PresetError(file: folder, jsonPath: "", message: "holds no presets (*.json)")) }
        return names.enumerated().map { index, name in
            BatchJob(index: index, origin: join(folder, name), preset: join(folder, name),
                     output: join(outputFolder, String(name.dropLast(5)) + "." + format.fileExtension), overrides: defaults)
        }
    }

    /// Checks, before any job runs, that nothing the batch will write is anything it reads or another file it
    /// writes (`FileAccess`): each job's output against every job's preset, the files each preset names (beds
    /// and their files, sources, recordings), the job list and the other outputs; and `results` (what the
    /// caller calls it: `resultsRole`) against all of them. All of `jobs` are checked, not only a shard's, since
    /// the other shards write beside this one. A preset that cannot be loaded adds no files: its job fails
    /// before it writes anything. Each preset file is loaded once, however many jobs render it.
    public static func checkFiles(_ jobs: [BatchJob], jobList: String, results: String, resultsRole: EngineReason) throws {
        var access = FileAccess()
        access.reads(jobList, as: "the job list")
        var loaded: [String: Preset?] = [:]
        for job in jobs {
            access.reads(job.preset, as: "the preset of \(job.origin)")
            let preset = loaded[job.preset] ?? (try? PresetLoader.load(path: job.preset, overrides: job.overrides))
            loaded[job.preset] = preset
            if let preset { access.reads(filesOf: preset, by: job.origin) }
        }
        for job in jobs { access.writes(job.output, as: "the output of \(job.origin)") }
        access.writes(results, as: resultsRole)
        try access.check()
    }

    private static func job(_ cursor: JSONCursor, index: Int, origin: String, folder: String, defaults: RenderOverrides) throws -> BatchJob {
        let object = try cursor.object(allowing: keys)
        var o = defaults
        let preset = try object.required("preset", hint: "the preset to render").nonEmptyString()
        let output = try object.required("output", hint: "the file to write; its extension picks the format").nonEmptyString()
        guard OutputFileFormat.from(path: output) != nil else {
            throw object["output"]!.error("unknown output extension in '\(output)'; use \(OutputFileFormat.extensionList(dotted: true))")
        }
        let id = try object["id"].map { try $0.nonEmptyString() }
        if let d = object["duration"] { o.durationSeconds = try d.time(allowingZero: false) }
        if let r = object["sampleRate"] { o.sampleRate = Int(try NumberLimit.sampleRate.read(r)) }
        let hasQuality = object.has("quality"), hasBitrate = object.has("bitrate")
        if hasQuality && hasBitrate { throw object["bitrate"]!.error("and 'quality' cannot be given together; give one") }
        if let q = object["quality"] { o.quality = try NumberLimit.quality.read(q); o.bitrateKbps = nil }
        if let b = object["bitrate"] {
            o.bitrateKbps = Int(try NumberLimit.bitrate.read(b))
            o.quality = nil
        }
        if let r = object["resampler"] { o.resampler = try r.choice("resampler", ResamplerChoice.allCases.map { ($0.rawValue, $0) }) }
        if let l = object["loudness"] { o.loudnessTarget = try NumberLimit.loudnessTarget.read(l) }
        if let t = object["truePeak"] { o.truePeakDb = try NumberLimit.truePeakCeiling.read(t) }
        if let s = object["start"] { o.startSeconds = try s.time(allowingZero: true) }
        if let e = object["end"] { o.endSeconds = try e.time(allowingZero: false) }
        if let l = object["loopable"] { o.loopable = try l.bool() }
        return BatchJob(index: index, origin: origin, id: id, preset: join(folder, preset), output: join(folder, output), overrides: o)
    }

    /// The folder `path` is in, or "" for a bare name.
    private static func folderOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` against `folder`, unless it is absolute (or the folder is the current one).
    private static func join(_ folder: String, _ path: String) -> String {
        if path.hasPrefix("/") || folder.isEmpty || folder == "." { return path }
        return folder.hasSuffix("/") ? folder + path : folder + "/" + path
    }
}
