import MixDSP
import MixIO

/// The `--report` file: what a render read, wrote and measured, where its time went, and its cache key, as
/// JSON a back end can store beside the file (docs/report.md documents every field; docs/report.schema.json
/// is its JSON Schema).
///
/// A value of what the document is made from; `value` builds the document as a `JSONValue`, `document`
/// allocates its text, and `write` writes it
/// through a temporary file beside the destination, renamed into place when complete. `Sendable`.
public struct RenderReport: Sendable {
    /// Bumped when a field changes meaning or goes away (new fields do not bump it).
    public static let formatVersion = 1

    public var job: RenderJob
    public var result: RenderResult
    public var inputs: [InputFile]
    public var key: CacheKey
    /// The written file's SHA-256.
    public var outputSHA256: String
    /// Wall and CPU seconds spent hashing the inputs and the output.
    public var hashSeconds: Double
    public var hashCPUSeconds: Double
    /// Every file the render wrote, `result` first: several when one render wrote several outputs
    /// (`RenderJob.render(_ outputs:)`), each with its SHA-256 and its file key.
    public var outputs: [Output]

    /// One file a render wrote, as the report lists it under `outputs`.
    /// A value; allocates nothing beyond its parts. `Sendable`.
    public struct Output: Sendable {
        public var result: RenderResult
        public var sha256: String
        /// The cache key of this file (`CacheKey.file`): the audio's key and this output's encoding.
        public var fileKey: String?
        public init(result: RenderResult, sha256: String, fileKey: String?) {
            self.result = result; self.sha256 = sha256; self.fileKey = fileKey
        }
    }

    public init(job: RenderJob, result: RenderResult, inputs: [InputFile], key: CacheKey, outputSHA256: String,
                hashSeconds: Double, hashCPUSeconds: Double, outputs: [Output]? = nil) {
        self.job = job; self.result = result; self.inputs = inputs; self.key = key; self.outputSHA256 = outputSHA256
        self.hashSeconds = hashSeconds; self.hashCPUSeconds = hashCPUSeconds
        self.outputs = outputs ?? [Output(result: result, sha256: outputSHA256, fileKey: key.file)]
    }

    /// `{"wallSeconds": ..., "cpuSeconds": ...}`
    static func time(_ wall: Double, _ cpu: Double) -> JSONValue {
        .object(["wallSeconds": .rounded(wall), "cpuSeconds": .rounded(cpu)])
    }

    /// The report as JSON text (`.readable`).
    public var document: String { value.document(.readable) }

    /// The report as a JSON value: the document `document` writes. The output's settings and chapters are the
    /// output plan's the render used (`RenderResult.output`), a stream's as much as a file's.
    var value: JSONValue { value(renamingPaths: { $0 }, warnings: { $0 }) }

    /// `value` with every file path (the preset's, the inputs', the output's) as `rename` gives it and every warning
    /// as `reword` does.
    func value(renamingPaths rename: (String) -> String, warnings reword: (String) -> String) -> JSONValue {
        let s = result.summary, l = s.loudness, t = s.timings

        let inputList = inputs.map { input -> JSONValue in
            .object([
                "path": .string(rename(input.info.path)), "bytes": .integer(input.bytes), "sha256": .string(input.sha256),
                "format": .string(input.info.formatName), "sampleRate": .integer(input.info.sampleRate),
                "channels": .integer(input.info.channelCount), "frames": .integer(input.info.frameCount),
                "durationSeconds": .rounded(input.info.durationSeconds),
            ])
        }
        let output = outputValue(result, sha256: outputSHA256, rename: rename)
        let normalisation = Self.normalisationValue(result.normalisation)
        let levels: JSONValue = .object([
            "integratedLUFS": .rounded(l.integrated),
            "loudnessRangeLU": .rounded(l.range),
            "truePeakDbTP": .rounded(l.truePeak),
            "samplePeakDbFS": .rounded(l.samplePeak),
            "momentaryMaxLUFS": .rounded(l.momentaryMax),
            "shortTermMaxLUFS": .rounded(l.shortTermMax),
            "rmsDbFS": .rounded(s.rmsDb),
            "mixPeakDbFS": .rounded(s.mixPeakDb),
            "clippedSamples": .integer(s.clippedSamples),
            "limiter": .object(["maxGainReductionDb": .rounded(s.maxGainReductionDb), "limitedSeconds": .rounded(s.limitedSeconds)]),
            "normalisation": normalisation,
            "file": Self.fileLevels(result),
        ])
        let timings: JSONValue = .object([
            "normalise": result.normalisation.map { Self.time($0.seconds, $0.cpuSeconds) } ?? .null,
            "prepare": Self.time(t.prepare, t.prepareCPU),
            "sources": Self.time(t.sources, t.sourcesCPU),
            "mix": Self.time(t.mix, t.mixCPU),
            "write": Self.time(t.write, t.writeCPU),
            "encode": Self.time(t.encode, t.encodeCPU),
            "render": Self.time(t.wall, t.totalCPU),
            "hash": Self.time(hashSeconds, hashCPUSeconds),
            "synthesise": job.plan.synthesis.speechSeconds > 0
                ? .object(["wallSeconds": .rounded(job.plan.synthesis.wallSeconds), "speechSeconds": .rounded(job.plan.synthesis.speechSeconds)])
                : .null,
        ])
        return .object([
            "reportVersion": .integer(Self.formatVersion),
            "mixrender": .object(["version": .string(MixrenderVersion.string)]),
            "preset": .string(rename(job.presetPath)),
            "cacheKey": .object(["audio": .string(key.audio), "file": key.file.map { .string($0) } ?? .null, "version": .string(key.version)]),
            "inputs": .array(inputList),
            "output": output,
            "outputs": .array(outputs.map { entry in
                var fields = outputValue(entry.result, sha256: entry.sha256, rename: rename)
                fields["fileKey"] = entry.fileKey.map { .string($0) } ?? .null
                fields["file"] = Self.fileLevels(entry.result)
                fields["normalisation"] = Self.normalisationValue(entry.result.normalisation)
                return fields
            }),
            "levels": levels,
            "timings": timings,
            "voices": VoiceCredit.json(job.plan.timeline.voices),
            "guessedWords": .array(job.plan.timeline.guessedWords.map {
                .object(["path": .string($0.path), "words": .array($0.words.map { .string($0) })])
            }),
            "warnings": .array(job.plan.warnings.map { .string(reword($0)) }),
        ])
    }

    /// One written file's fields (`output`, and each of `outputs`): its path, format, settings, range, size and hash.
    func outputValue(_ result: RenderResult, sha256: String, rename: (String) -> String) -> JSONValue {
        let s = result.summary, settings = result.output.settings
        let rate = Double(job.plan.sampleRate)
        return .object([
            "path": .string(rename(result.outputPath)),
            "format": .string(settings.format.fileExtension),
            "settings": .object([
                "sampleRate": .integer(settings.sampleRate),
                "channels": .integer(settings.channelCount),
                "sampleFormat": settings.format.isPCM ? .string(settings.sampleFormat.rawValue) : .null,
                "quality": settings.format.isPCM || settings.bitrateKbps != nil ? .null : .rounded(settings.vorbisQuality),
                "bitrate": settings.format.isPCM ? .null : settings.bitrateKbps.map { .integer($0) } ?? .null,
                "title": settings.title.map { .string($0) } ?? .null,
                "artist": settings.artist.map { .string($0) } ?? .null,
                "comment": settings.comment.map { .string($0) } ?? .null,
            ]),
            "rendered": .object([
                "startSeconds": .rounded(Double(job.range.lowerBound) / rate),
                "endSeconds": .rounded(Double(job.range.upperBound) / rate),
                "startFrame": .integer(job.range.lowerBound), "endFrame": .integer(job.range.upperBound),
            ]),
            "durationSeconds": .rounded(s.durationSeconds),
            "frames": .integer(s.frameCount),
            "bytes": .integer(result.outputBytes ?? 0),
            "sha256": .string(sha256),
            "chapters": .integer(FileTags.carriesChapters(settings.format) ? result.output.chapters.count : 0),
        ])
    }

    /// What normalising did (`levels.normalisation`, and each output's: a lossy file's own measures and rewrites);
    /// null when the render was not normalised.
    static func normalisationValue(_ outcome: NormalisationOutcome?) -> JSONValue {
        outcome.map { n -> JSONValue in
            .object([
                "targetLUFS": .rounded(n.targetLUFS),
                "truePeakDbTP": .rounded(n.truePeakDb),
                "measuredLUFS": .rounded(n.measuredLUFS),
                "gainDb": .rounded(n.gainDb),
                "limiterLossLU": .rounded(n.limiterLossLU),
                "expectedLUFS": .rounded(n.expectedLUFS),
                "encodedLUFS": n.encodedLUFS.map { .rounded($0) } ?? .null,
                "encodedTruePeakDbTP": n.encodedTruePeakDb.map { .rounded($0) } ?? .null,
                "encoderCorrectionDb": .rounded(n.encoderCorrectionDb),
                "limiterCeilingDbTP": n.limiterCeilingDb.map { .rounded($0) } ?? .null,
                "encoderCeilingCorrectionDb": .rounded(n.encoderCeilingCorrectionDb),
                "encoderTurnDownDb": .rounded(n.encoderTurnDownDb),
                "rewrites": .integer(n.rewrites),
                "measuringPasses": .integer(n.measuringPasses),
                "reusedFrom": n.reusedFrom.map { .string($0.rawValue) } ?? .null,
            ])
        } ?? .null
    }

    /// What the output holds, the levels a back end stores: the decoded file's for a lossy file, the render's (the
    /// same samples) for a lossless one; null for a lossy stream, which is never measured after it is written.
    static func fileLevels(_ result: RenderResult) -> JSONValue {
        let measuredFrom: String
        if result.fileLoudness != nil { measuredFrom = "decoded" }
        else if result.output.settings.format.isPCM { measuredFrom = "render" }
        else { return .null }
        let l = result.outputLoudness
        return .object([
            "integratedLUFS": .rounded(l.integrated),
            "loudnessRangeLU": .rounded(l.range),
            "truePeakDbTP": .rounded(l.truePeak),
            "samplePeakDbFS": .rounded(l.samplePeak),
            "measuredFrom": .string(measuredFrom),
        ])
    }

    /// Writes `document` to `path`, atomically.
    public func write(to path: String) throws {
        try value.write(to: path, style: .readable)
    }

    /// The document as `write(to:)` lays it out, for standard output (`--report -`).
    public var text: String { value.json(.readable) }

    /// The document (as `document` lays it out) with every file path (the preset's, the inputs', the output's) as `rename` gives it, and every
    /// warning as `reword` does: what a server gives its clients, who know its files by the names they gave them
    /// (`sha256:...`, `folder/file`), never by its own paths.
    public func text(renamingPaths rename: (_ path: String) -> String, warnings reword: (_ warning: String) -> String) -> String {
        value(renamingPaths: rename, warnings: reword).document(.readable)
    }
}

extension RenderReport {
    /// What a report needs from before the render: every input hashed (so that an unreadable source stops
    /// the render before it starts), the cache key, and what that took.
    /// A value; allocates the list of inputs. `Sendable`.
    public struct Inputs: Sendable {
        public var files: [InputFile]
        public var key: CacheKey
        public var seconds: Double
        public var cpuSeconds: Double

        /// Hashes the job's inputs (`InputFile.hashAll`, in parallel) and makes its key for writing `output`.
        public init(job: RenderJob, output: String) throws {
            let started = ContinuousClock.now, startedCPU = CPUClock.process
            files = try InputFile.hashAll(job.plan)
            key = try job.cacheKey(inputs: files, format: OutputFileFormat.from(path: output))
            seconds = (ContinuousClock.now - started).seconds
            cpuSeconds = CPUClock.process - startedCPU
        }
    }

    /// The report of a finished render: the output's SHA-256 its finishing step took (`ChecksumStep`), or else the
    /// written output hashed now; that time is added to the inputs'.
    public init(job: RenderJob, result: RenderResult, inputs: Inputs) throws {
        try self.init(job: job, results: [result], inputs: inputs)
    }

    /// The report of a render that wrote several files (`RenderJob.render(_ outputs:)`): the first is `output`, and
    /// every one is listed under `outputs` with its SHA-256 (hashed now where no finishing step did) and file key.
    public init(job: RenderJob, results: [RenderResult], inputs: Inputs) throws {
        precondition(!results.isEmpty, "a report is of one output or more")
        var seconds = inputs.seconds, cpuSeconds = inputs.cpuSeconds
        var outputs: [Output] = []
        for result in results {
            let checksum = try result.outputChecksum ?? OutputChecksum(ofFile: result.outputPath)
            seconds += checksum.seconds
            cpuSeconds += checksum.cpuSeconds
            // Each file's key from the settings it was written with (its own quality or bitrate among several).
            let fileKey = try job.cacheKey(inputs: inputs.files, settings: result.output.settings, conversion: result.output.conversion).file
            outputs.append(Output(result: result, sha256: checksum.sha256, fileKey: fileKey))
        }
        let key = try job.cacheKey(inputs: inputs.files, settings: results[0].output.settings, conversion: results[0].output.conversion)
        self.init(job: job, result: results[0], inputs: inputs.files, key: key, outputSHA256: outputs[0].sha256,
                  hashSeconds: seconds, hashCPUSeconds: cpuSeconds, outputs: outputs)
    }
}
