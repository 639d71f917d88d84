import ArgumentParser
import Foundation
import MixRender

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a preset to an audio file (\(OutputFileFormat.extensionList(dotted: true))).")

    @Argument(help: "The preset (JSON).")
    var preset: String

    @Option(name: .shortAndLong, help: "The output file; its extension picks the format. '-' writes the encoded stream to standard output (with --format). Give it again for more files from the same render (-o night.m4a -o night.opus -o night.flac): the mix is made once and the encoders run side by side.")
    var output: [String] = []

    /// The first output (`-o`), which the report calls `output` and `--format` speaks of.
    private var firstOutput: String { output[0] }

    @Option(help: "The format of the stream with -o -: \(OutputFileFormat.streamableList) (formats that never seek back). With a file, it must match the extension.")
    var format: String?

    @OptionGroup var overrides: OverrideOptions

    @OptionGroup var template: TemplateVariableOptions

    @OptionGroup var progress: ProgressOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Option(help: .hidden)
    var blockFrames = 4096

    @Option(help: "Threads that mix the sounds (1 to \(RenderCommand.maximumThreads)); the master chain and the encoder run beside them. The file is the same bit for bit whatever the count.")
    var threads = 1

    /// The most `--threads` takes: past the cores there is nothing to gain, and each thread holds two stints of mix.
    static let maximumThreads = 64

    @Option(help: "Also write the mix's waveform, made during the render: .json, .dat, .png or .svg (defaults of `mixrender waveform`).")
    var waveform: String?

    @Option(help: "Also write the timeline as JSON: sections, spoken segments, ducking, schedules, breathing phases.")
    var timeline: String?

    @Option(help: "Also write a report as JSON once the render succeeds: inputs and output with SHA-256, levels, timings, the cache key (docs/report.md); - writes it to standard output, and the summary to standard error.")
    var report: String?

    /// `--report -`: the report goes to standard output.
    private var reportsToStandardOutput: Bool { report == "-" }

    @OptionGroup var cache: CacheDirOptions

    @OptionGroup var voices: VoicesFolderOptions

    func validate() throws {
        guard !output.isEmpty else { throw CLIError("-o/--output: give the output file (its extension picks the format), or - for standard output with --format") }
        if output.count > 1 {
            if output.contains("-") { throw CLIError("-o -: a stream on standard output cannot be one of several outputs; render it alone") }
            if format != nil { throw CLIError("--format: with several -o, each file's extension picks its format; drop --format") }
        }
        guard blockFrames > 0 && blockFrames <= 1 << 20 else {
            throw CLIError("--block-frames must be between 1 and 1048576")
        }
        guard threads >= 1 && threads <= Self.maximumThreads else {
            throw CLIError("--threads must be between 1 and \(Self.maximumThreads), not \(threads)")
        }
    }

    /// The format of a stream to standard output (`-o -`), checked; nil for a file.
    func streamFormat() throws -> OutputFileFormat? {
        let named = try format.map { name -> OutputFileFormat in
            guard let f = OutputFileFormat.named(name) else {
                throw CLIError("--format: unknown format '\(name)'; expected \(firstOutput == "-" ? OutputFileFormat.streamableList : OutputFileFormat.extensionList())")
            }
            return f
        }
        guard firstOutput == "-" else {
            if let named, OutputFileFormat.from(path: firstOutput) != named {
                throw CLIError("--format \(format!) does not match the output '\(firstOutput)', whose extension picks its format; give the file a .\(named.fileExtension) name, or drop --format")
            }
            return nil
        }
        guard let named else {
            throw CLIError("-o -: give the stream's format with --format (\(OutputFileFormat.streamableList)), e.g. -o - --format ogg")
        }
        if let refusal = named.streamRefusal { throw CLIError("--format \(format!): \(refusal)") }
        guard !Terminal.isTerminal(Terminal.standardOutput) else {
            throw CLIError("-o -: standard output is a terminal; send the stream into a file or a program (-o - --format \(named.fileExtension) | ...)")
        }
        if report != nil {
            throw CLIError("--report: a report hashes the output file, and a stream on standard output is none; render to a file for a report")
        }
        return named
    }

    func run() throws {
        try InterruptCleanup.install()   // Ctrl-C removes the temporary output file and exits 130
        voices.apply()
        let stream = try streamFormat()
        // With --cache-dir, prepared sounds, syntheses and loudness measurements come from the folder when there.
        let material = PreparedMaterial(store: try cache.store())
        let job = try RenderJob(presetPath: preset, overrides: try overrides.resolved(), variables: try template.values(), analyzer: Analyzer(material: material))
        // A bad extension or format is found before rendering, and what the output cannot keep is said then.
        let outputPlans = try stream.map { [try job.outputPlan(to: .stream(descriptor: Terminal.standardOutput, format: $0, name: "standard output"))] }
            ?? output.map { try job.outputPlan(to: .file(path: $0), checksum: report != nil) }
        if !quiet { Printout.warn(job.plan.warnings + outputPlans.flatMap(\.warnings)) }

        let bar = ProgressBar(totalFrames: Int64(job.range.count), sampleRate: job.plan.sampleRate,
                              style: progress.style(quiet: quiet))
        // The waveform's files are known before rendering (one per level); it is written after the audio.
        let recording = try waveform.map {
            WaveformRecording(plan: try WaveformPlan(output: $0, options: WaveformOptions(), sampleRate: job.plan.sampleRate,
                                                    channelCount: job.plan.channelCount, frameCount: Int64(job.range.count)))
        }
        // Nothing written may be anything the render reads or another file it writes (FileAccess), whatever the spelling.
        var writes: [(path: String, what: EngineReason)] = []
        if stream == nil { writes += output.map { ($0, EngineReason(stringLiteral: "the output")) } }
        writes += (recording?.recorders[0].plan.destinations ?? []).map { ($0, EngineReason(stringLiteral: "--waveform")) }
        if let timeline { writes.append((timeline, "--timeline")) }
        if let report, !reportsToStandardOutput { writes.append((report, "--report")) }
        try job.checkWrites(writes)
        if let timeline { _ = try AtomicOutputFile.check(destination: timeline) }
        // The report's inputs are hashed before rendering: an unreadable source stops the render before it starts.
        var reportInputs: RenderReport.Inputs?
        if let report {
            if !reportsToStandardOutput { _ = try AtomicOutputFile.check(destination: report) }
            reportInputs = try RenderReport.Inputs(job: job, output: firstOutput)
        }
        let taps = recording.map { [$0.renderTap(channelCount: job.plan.channelCount, blockFrames: blockFrames)] } ?? []
        let results = try job.render(outputPlans, blockFrames: blockFrames, threads: threads, taps: taps, material: material,
                                     releasesMaterial: true) { bar.update($0) }
        bar.finish()
        if !quiet {
            // A damaged cache entry was made again; the render is what it would have been without the folder.
            let problems = material.damagedEntries + material.storeProblems.prefix(1)
            for line in problems { FileHandle.standardError.write("warning: \(line)\n".data(using: .utf8)!) }
        }
        let waveforms = try recording?.writeOutputs() ?? []
        if let timeline { try TimelineJSON.write(job.plan.timeline, range: job.range, to: timeline) }
        if let report, let inputs = reportInputs {
            let document = try RenderReport(job: job, results: results, inputs: inputs)
            if reportsToStandardOutput { print(document.text) } else { try document.write(to: report) }
        }
        if !quiet {
            var lines = [Printout.summary(results[0], job: job)] + results.dropFirst().map { Printout.outputLine($0) }
                + waveforms.map { "waveform  \($0)" }
            if let timeline { lines.append("timeline  \(timeline)") }
            if let report, !reportsToStandardOutput { lines.append("report    \(report)") }
            // With the audio or the report on standard output, the summary goes to standard error.
            if stream != nil || reportsToStandardOutput { FileHandle.standardError.write((lines.joined(separator: "\n") + "\n").data(using: .utf8)!) }
            else { print(lines.joined(separator: "\n")) }
        }
    }
}

/// Options that override the preset.
struct OverrideOptions: ParsableArguments {
    @Option(help: "Length of the render: seconds, or 90s, 45m, 8h, 1:30:00.")
    var duration: String?

    @Option(parsing: .unconditional, help: "Output sample rate in Hz.")
    var sampleRate: Int?

    @Option(parsing: .unconditional, help: "Ogg Vorbis, MP3 (variable bitrate) and Opus quality, 0 to 1.")
    var quality: Double?

    @Option(parsing: .unconditional, help: "Bitrate in kbit/s instead of a quality: MP3 constant bitrate (32 to 320 at 32 kHz and up), Opus target (6 to 256 per channel).")
    var bitrate: Int?

    @Option(help: "Resampler for sources at another rate: soxr-hq (the default) or soxr-vhq (libsoxr), best, medium or fast (libsamplerate).")
    var resampler: String?

    @Option(parsing: .unconditional, help: "Normalise to this integrated loudness, in LUFS (EBU R128; -70 to 0, e.g. -16).")
    var loudness: Double?

    @Option(name: .customLong("true-peak"), parsing: .unconditional, help: "The true-peak ceiling while normalising, in dBTP (-20 to 0; default -1).")
    var truePeak: Double?

    @Option(help: "Render only from this time of the timeline on (fades and envelopes stay where the preset puts them).")
    var start: String?

    @Option(help: "Render only up to this time of the timeline.")
    var end: String?

    @Flag(help: "Render a file that loops without a seam: the mix after the end is crossfaded into the start (output.loopable; 5 s equalPower unless the preset says).")
    var loopable = false

    /// The options as the engine takes them. Only their spelling is checked here; their values are checked
    /// by the engine (`RenderJob`), by the same rules as the preset's.
    func resolved() throws -> RenderOverrides {
        var o = RenderOverrides()
        if let duration {
            guard let s = TimeParser.seconds(duration) else {
                throw CLIError("--duration: '\(duration)' is not a length of time (seconds, or 90s, 45m, 8h, 1:30:00)")
            }
            o.durationSeconds = s
        }
        for (name, value) in [("--start", start), ("--end", end)] {
            guard let value else { continue }
            guard let s = TimeParser.seconds(value) else {
                throw CLIError("\(name): '\(value)' is not a time (seconds, or 90s, 45m, 8h, 1:30:00)")
            }
            if name == "--start" { o.startSeconds = s } else { o.endSeconds = s }
        }
        o.sampleRate = sampleRate
        o.quality = quality
        o.bitrateKbps = bitrate
        o.loudnessTarget = loudness
        o.truePeakDb = truePeak
        o.loopable = loopable
        if let resampler {
            guard let r = ResamplerChoice(rawValue: resampler) else {
                throw CLIError("--resampler: unknown quality '\(resampler)'; expected \(ResamplerChoice.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            o.resampler = r
        }
        return o
    }
}
