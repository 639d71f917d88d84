import MixDSP
import MixIO

/// The `--report` file: what a render read, wrote and measured, where its time went, and its cache key, as
/// JSON a back end can store beside the file (docs/report.md documents every field; docs/report.schema.json
/// is its JSON Schema).
///
/// A value of what the document is made from; `document` allocates the text and `write` writes it
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

    public init(job: RenderJob, result: RenderResult, inputs: [InputFile], key: CacheKey, outputSHA256: String,
                hashSeconds: Double, hashCPUSeconds: Double) {
        self.job = job; self.result = result; self.inputs = inputs; self.key = key; self.outputSHA256 = outputSHA256
        self.hashSeconds = hashSeconds; self.hashCPUSeconds = hashCPUSeconds
    }

    /// A JSON number, or null for what JSON cannot write (-infinity: silence).
    static func number(_ x: Double) -> String { x.isFinite ? TimelineJSON.number(x) : "null" }
    static func string(_ s: String?) -> String { s.map(TimelineJSON.quote) ?? "null" }
    static func object(_ fields: [(String, String)], indent: Int) -> String {
        let pad = String(repeating: "  ", count: indent + 1)
        return "{\n" + fields.map { pad + TimelineJSON.quote($0.0) + ": " + $0.1 }.joined(separator: ",\n")
            + "\n" + String(repeating: "  ", count: indent) + "}"
    }
    static func time(_ wall: Double, _ cpu: Double) -> String {
        "{\"wallSeconds\": \(number(wall)), \"cpuSeconds\": \(number(cpu))}"
    }

    public var document: String {
        typealias N = RenderReport
        let s = result.summary, l = s.loudness, t = s.timings
        let settings = job.outputSettings(format: OutputFileFormat.from(path: result.outputPath) ?? .wav)
        let rate = Double(job.plan.sampleRate)

        let inputList = inputs.map { input in
            "    {\"path\": \(N.string(input.info.path)), \"bytes\": \(input.bytes), \"sha256\": \(N.string(input.sha256)), "
                + "\"format\": \(N.string(input.info.formatName)), \"sampleRate\": \(input.info.sampleRate), "
                + "\"channels\": \(input.info.channelCount), \"frames\": \(input.info.frameCount), "
                + "\"durationSeconds\": \(N.number(input.info.durationSeconds))}"
        }
        let output = N.object([
            ("path", N.string(result.outputPath)),
            ("format", N.string(settings.format.fileExtension)),
            ("settings", N.object([
                ("sampleRate", "\(settings.sampleRate)"),
                ("channels", "\(settings.channelCount)"),
                ("sampleFormat", settings.format.isPCM ? N.string(settings.sampleFormat.rawValue) : "null"),
                ("quality", settings.format.isPCM || settings.bitrateKbps != nil ? "null" : N.number(settings.vorbisQuality)),
                ("bitrate", settings.format.isPCM ? "null" : settings.bitrateKbps.map { "\($0)" } ?? "null"),
                ("title", N.string(settings.title)),
                ("artist", N.string(settings.artist)),
                ("comment", N.string(settings.comment)),
            ], indent: 2)),
            ("rendered", "{\"startSeconds\": \(N.number(Double(job.range.lowerBound) / rate)), "
                + "\"endSeconds\": \(N.number(Double(job.range.upperBound) / rate)), "
                + "\"startFrame\": \(job.range.lowerBound), \"endFrame\": \(job.range.upperBound)}"),
            ("durationSeconds", N.number(s.durationSeconds)),
            ("frames", "\(s.frameCount)"),
            ("bytes", "\(result.outputBytes ?? 0)"),
            ("sha256", N.string(outputSHA256)),
            ("chapters", "\(FileTags.carriesChapters(settings.format) ? job.chapters.count : 0)"),
        ], indent: 1)

        let normalisation = result.normalisation.map { n in
            N.object([
                ("targetLUFS", N.number(n.targetLUFS)),
                ("truePeakDbTP", N.number(n.truePeakDb)),
                ("measuredLUFS", N.number(n.measuredLUFS)),
                ("gainDb", N.number(n.gainDb)),
                ("limiterLossLU", N.number(n.limiterLossLU)),
                ("expectedLUFS", N.number(n.expectedLUFS)),
                ("encodedLUFS", n.encodedLUFS.map(N.number) ?? "null"),
                ("encoderCorrectionDb", N.number(n.encoderCorrectionDb)),
                ("measuringPasses", "\(n.measuringPasses)"),
            ], indent: 2)
        } ?? "null"
        let levels = N.object([
            ("integratedLUFS", N.number(l.integrated)),
            ("loudnessRangeLU", N.number(l.range)),
            ("truePeakDbTP", N.number(l.truePeak)),
            ("samplePeakDbFS", N.number(l.samplePeak)),
            ("momentaryMaxLUFS", N.number(l.momentaryMax)),
            ("shortTermMaxLUFS", N.number(l.shortTermMax)),
            ("rmsDbFS", N.number(s.rmsDb)),
            ("mixPeakDbFS", N.number(s.mixPeakDb)),
            ("clippedSamples", "\(s.clippedSamples)"),
            ("limiter", "{\"maxGainReductionDb\": \(N.number(s.maxGainReductionDb)), \"limitedSeconds\": \(N.number(s.limitedSeconds))}"),
            ("normalisation", normalisation),
        ], indent: 1)
        let timings = N.object([
            ("normalise", result.normalisation.map { N.time($0.seconds, $0.cpuSeconds) } ?? "null"),
            ("prepare", N.time(t.prepare, t.prepareCPU)),
            ("sources", N.time(t.sources, t.sourcesCPU)),
            ("mix", N.time(t.mix, t.mixCPU)),
            ("write", N.time(t.write, t.writeCPU)),
            ("encode", N.time(t.encode, t.encodeCPU)),
            ("render", N.time(t.wall, t.totalCPU)),
            ("hash", N.time(hashSeconds, hashCPUSeconds)),
        ], indent: 1)
        let key = N.object([("audio", N.string(self.key.audio)), ("file", N.string(self.key.file)), ("version", N.string(self.key.version))], indent: 1)

        return N.object([
            ("reportVersion", "\(Self.formatVersion)"),
            ("mixrender", "{\"version\": \(N.string(MixrenderVersion.string))}"),
            ("preset", N.string(job.presetPath)),
            ("cacheKey", key),
            ("inputs", inputList.isEmpty ? "[]" : "[\n" + inputList.joined(separator: ",\n") + "\n  ]"),
            ("output", output),
            ("levels", levels),
            ("timings", timings),
            ("warnings", "[" + job.plan.warnings.map(TimelineJSON.quote).joined(separator: ", ") + "]"),
        ], indent: 0) + "\n"
    }

    /// Writes `document` to `path`, atomically.
    public func write(to path: String) throws {
        let output = try AtomicOutputFile(destination: path)
        do {
            try FileSystem.writeFile(path: output.temporaryPath, bytes: Array(document.utf8))
            try output.commit()
        } catch {
            output.discard()
            throw error
        }
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

    /// The report of a finished render: hashes the written output and adds that time to the inputs'.
    public init(job: RenderJob, result: RenderResult, inputs: Inputs) throws {
        let started = ContinuousClock.now, startedCPU = CPUClock.process
        let written = try ContentHash.file(path: result.outputPath)
        self.init(job: job, result: result, inputs: inputs.files, key: inputs.key, outputSHA256: written.sha256,
                  hashSeconds: inputs.seconds + (ContinuousClock.now - started).seconds,
                  hashCPUSeconds: inputs.cpuSeconds + CPUClock.process - startedCPU)
    }
}
