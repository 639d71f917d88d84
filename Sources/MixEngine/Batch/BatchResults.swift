import MixIO

/// A batch's results file: JSON Lines, one object per job, written as each job ends (docs/batch.md lists the
/// fields), and the merging of several shards' results files into one.
///
/// Stateless.
public enum BatchResults {
    /// The job's result as one line of JSON (without the newline). `error` is the failure worded for people.
    public static func line(_ outcome: BatchOutcome, shard: Shard, error: String?) -> String {
        value(outcome, shard: shard, error: error).json(.line)
    }

    /// The job's result as a JSON value: the object `line` writes.
    static func value(_ outcome: BatchOutcome, shard: Shard, error: String?) -> JSONValue {
        let job = outcome.job
        var fields = JSONObject([
            JSONValue.Member("index", .integer(job.index)),
            JSONValue.Member("id", job.id.map { .string($0) } ?? .null),
            JSONValue.Member("job", .string(job.origin)),
            JSONValue.Member("preset", .string(job.preset)),
            JSONValue.Member("output", .string(job.output)),
            JSONValue.Member("status", .string(outcome.succeeded ? "ok" : "failed")),
        ])
        if let error { fields.set("error", to: .string(error)) }
        if let result = outcome.result {
            let s = result.summary
            let measured: KeyValuePairs<String, JSONValue> = [
                "durationSeconds": .rounded(s.durationSeconds),
                "frames": .integer(s.frameCount),
                "sampleRate": .integer(s.sampleRate),
                "bytes": result.outputBytes.map { .integer($0) } ?? .null,
                "peakDb": .rounded(s.peakDb),
                "rmsDb": .rounded(s.rmsDb),
                "loudnessLUFS": .rounded(s.loudness.integrated),
                "truePeakDb": .rounded(s.loudness.truePeak),
                "limiterMaxReductionDb": .rounded(s.maxGainReductionDb),
                "clippedSamples": .integer(s.clippedSamples),
                "realtime": .rounded(outcome.totalSeconds > 0 ? s.durationSeconds / outcome.totalSeconds : 0),
            ]
            for (key, value) in measured { fields.set(key, to: value) }
            if let gain = result.normalisation?.gainDb { fields.set("normalisationGainDb", to: .rounded(gain)) }
        }
        if let m = outcome.material {
            fields.set("material", to: .object(["made": .integer(m.made - m.fromStore), "fromCacheDir": .integer(m.fromStore), "reused": .integer(m.reused)]))
        }
        fields.set("seconds", to: .object(["plan": .rounded(outcome.planSeconds), "prepare": .rounded(outcome.prepareSeconds),
                                           "render": .rounded(outcome.renderSeconds), "total": .rounded(outcome.totalSeconds)]))
        fields.set("shard", to: .string(shard.description))
        fields.set("warnings", to: .array(outcome.warnings.map { .string($0) }))
        return .object(fields)
    }

    /// What merging found.
    public struct Merged: Sendable {
        /// The lines, in job order.
        public var lines: [String]
        public var failed: Int
        /// Job indexes from 0 to the list's length that no file has (when the list's length was given).
        public var missing: [Int]
    }

    /// Merges results files (a batch's shards), in job order. A line that is not a JSON object with a whole
    /// `index`, or a job in two files, is an error naming the file and line. With `jobCount`, an index past it is
    /// an error too, and the jobs no file has are listed in `missing`. Errors are `EngineError.input` naming the
    /// file and line (`part.jsonl:3`), or MixIO's naming the file it cannot read.
    /// Checks, before anything is read or written, that the merged file `output` is none of `files` nor the job
    /// list, however spelled (`FileAccess`).
    public static func checkFiles(merging files: [String], jobList: String?, into output: String) throws {
        var access = FileAccess()
        for file in files { access.reads(file, as: "one of the files being merged") }
        if let jobList { access.reads(jobList, as: "the job list (\(setting: .jobList))") }
        access.writes(output, as: "the merged results file")
        try access.check()
    }

    /// The longest results file `merge` reads: 1 GiB (a million jobs' lines with room to spare).
    public static let maximumBytes = 1 << 30

    public static func merge(files: [String], jobCount: Int?) throws -> Merged {
        var byIndex: [Int: (line: String, origin: String, failed: Bool)] = [:]
        for file in files {
            let lines: [(number: Int, bytes: ArraySlice<UInt8>)]
            lines = try JSONLines.read(path: file, maximumBytes: maximumBytes)
            for (lineNumber, line) in lines {
                let origin = "\(file):\(lineNumber)"
                func fail(_ why: String) -> EngineError { .input(path: origin, reason: "\(why)") }
                guard let value = try? JSONValue.parse(Array(line)), case .object(let members) = value else {
                    throw fail("not a JSON object (a results file has one per line)")
                }
                guard case .number(let x)? = members["index"], x.isFinite, x == x.rounded(), x >= 0, x < 1e9 else {
                    throw fail("no whole 'index' (the job's place in the list, from 0)")
                }
                let index = Int(x)
                if let jobCount, index >= jobCount { throw fail("job \(index) is not in a list of \(jobCount) jobs") }
                if let other = byIndex[index] { throw fail("job \(index) is also at \(other.origin); merge each shard once") }
                let failed = members["status"] != .string("ok")
                byIndex[index] = (String(decoding: line, as: UTF8.self), origin, failed)
            }
        }
        let order = byIndex.keys.sorted()
        let missing = jobCount.map { count in (0..<count).filter { byIndex[$0] == nil } } ?? []
        return Merged(lines: order.map { byIndex[$0]!.line }, failed: order.filter { byIndex[$0]!.failed }.count, missing: missing)
    }
}
