import Foundation
import MixDSP
import MixIO

/// What `mixrender render` produced.
/// A value: the summary, the output's path and its size; allocates only the path. `Sendable`, safe to share.
public struct RenderResult: Sendable {
    public var summary: RenderSummary
    /// What normalising to a loudness did, when the preset or the command line asked for it.
    public var normalisation: NormalisationOutcome?
    /// What a lossy file holds, decoded and measured; nil for a lossless file (it holds what `summary.loudness`
    /// measured) and for a stream (never measured afterwards).
    public var fileLoudness: LoudnessMeasurement?
    /// What the output holds: the decoded file's measure when there is one, else the render's.
    public var outputLoudness: LoudnessMeasurement { fileLoudness ?? summary.loudness }
    /// The file written, or the name of the stream (`render(toStream:)`).
    public var outputPath: String
    /// The file's size; nil for a stream, whose bytes went to its reader.
    public var outputBytes: Int64?
    /// The file's SHA-256, when its output plan asked for it (`OutputPlan`'s `checksum`); nil otherwise.
    public var outputChecksum: OutputChecksum? = nil
    /// The output plan the render wrote by: its settings (format, rate, tags) and chapters, as the report gives them.
    public var output: OutputPlan
    public var isStream: Bool { outputBytes == nil }
}

/// A preset loaded, checked and planned: everything that can be wrong with it has been found.
///
/// A value (`Sendable`, safe to share): the preset's path, the `Preset`, the `RenderPlan` and the range.
/// `init` allocates them (reading the preset, then the analysis phase: every source file probed once, speech
/// said, recordings measured); each `render` builds its
/// own state (see `Renderer`), so renders of one job to different paths may run on several threads.
public struct RenderJob: Sendable {
    public let presetPath: String
    public let preset: Preset
    public let plan: RenderPlan
    /// Whether the loudness target came from the command line (so its errors name `--loudness`).
    public let loudnessIsOverride: Bool
    /// Whether `presetPath` names a file (false for a preset given as JSON bytes, which it only names).
    public let presetIsFile: Bool
    /// What this job's analysis made itself (texts said, recordings measured, files decoded), rather than found
    /// made before in its analyzer's cache.
    public let analysisCounts: Analysis.Counts
    /// What measures this job's renders for loudness: its tracks', its normalisation's, its encoded file's.
    public var measuring: LoudnessMeasuring { LoudnessMeasuring(presetFile: presetPath) }

    /// Loads the preset with the overrides merged (`PresetLoader.load(path:overrides:)`), analyses it (`analyzer`:
    /// every file probed, every text said, every recording measured) and plans it. Overrides are checked by the
    /// same rules as the preset's own values (an `EngineError.setting` naming the setting).
    /// `analyzer`: where syntheses are kept between processes (a batch's `--cache-dir`) and utterances between renders
    /// (a `PreparedMaterial`'s `analyses`), so speech is said and measured once; with a `PreparedMaterial`, its
    /// `measurements` keep the tracks' loudness too.
    /// A template's `variables` fill it (`PresetLoader.load(path:overrides:variables:)`).
    public init(presetPath: String, overrides: RenderOverrides = RenderOverrides(), variables: [String: JSONValue]? = nil,
                analyzer: Analyzer = Analyzer()) throws {
        try self.init(presetPath: presetPath, isFile: true, overrides: overrides, analyzer: analyzer) {
            try PresetLoader.load(path: presetPath, overrides: overrides, variables: variables)
        }
    }

    /// Loads a preset held in memory (UTF-8 JSON `bytes`, as a library caller has it), as `init(presetPath:)` loads a
    /// file: `name` is what errors and warnings call it, `baseDirectory` the folder its relative paths are taken from
    /// (empty: the current folder). It is not a file this render reads (`recordReads`).
    public init(presetJSON bytes: [UInt8], name: String, baseDirectory: String = "",
                overrides: RenderOverrides = RenderOverrides(), analyzer: Analyzer = Analyzer()) throws {
        try self.init(presetPath: name, isFile: false, overrides: overrides, analyzer: analyzer) {
            try PresetLoader.parse(bytes, file: name, baseDirectory: baseDirectory, overrides: overrides)
        }
    }

    /// Loads a preset given as a value (a `JSONValue` a program built or changed), as `init(presetJSON:)` loads its
    /// bytes: read by the same reader, so every rule applies and errors name the JSON path.
    /// `sources`, when given, names its files instead of `baseDirectory` (a server's sounds, `SourceResolver`).
    public init(preset value: JSONValue, name: String, baseDirectory: String = "",
                overrides: RenderOverrides = RenderOverrides(), sources: SourceResolver? = nil,
                analyzer: Analyzer = Analyzer()) throws {
        try self.init(presetPath: name, isFile: false, overrides: overrides, analyzer: analyzer) {
            try PresetLoader.read(value, file: name, baseDirectory: baseDirectory, overrides: overrides, sources: sources)
        }
    }

    /// `load` makes the final preset (the overrides merged at load, checked by the same rules as the document's
    /// values); then it is analysed and planned.
    private init(presetPath: String, isFile: Bool, overrides: RenderOverrides, analyzer: Analyzer,
                 load: () throws -> Preset) throws {
        let preset = try load()
        presetIsFile = isFile
        self.presetPath = presetPath
        self.preset = preset
        self.loudnessIsOverride = overrides.loudnessTarget != nil
        // Load → analyse (all the reading, synthesis and measuring planning needs) → plan (no I/O) → measure.
        let analysis = try analyzer.analyse(preset)
        analysisCounts = analysis.made
        var plan = try Planner(presetFile: presetPath).plan(preset, analysis: analysis)
        // Tracks that give a loudness are measured now, between planning and writing (the planner only records them).
        try LoudnessMeasuring(presetFile: presetPath).applyTrackLoudness(to: &plan, cache: analyzer.material?.measurements)
        plan.warnings = preset.warnings + plan.warnings
        self.plan = plan
        let rate = Double(plan.sampleRate)
        // A session's length is its voice's and sections': it too must stay within the longest render.
        if preset.session != nil, Double(plan.frameCount) / rate > TimeParser.maximumSeconds {
            let t = TimeParser.string(fromSeconds:)
            throw EngineError.preset(PresetError(file: presetPath, jsonPath: "sections",
                                                 message: "the session lasts \(t(Double(plan.frameCount) / rate)), longer than \(t(TimeParser.maximumSeconds)), the longest time mixrender takes"))
        }
        if plan.loop != nil, let setting = overrides.startSeconds != nil ? EngineSetting.start : overrides.endSeconds != nil ? .end : nil {
            throw EngineError.setting(setting, reason: "cannot take part of a loopable render (output.loopable): its start holds its end")
        }
        let first = Int64(((overrides.startSeconds ?? 0) * rate).rounded())
        let last = overrides.endSeconds.map { Int64(($0 * rate).rounded()) } ?? plan.outputFrameCount
        guard first < plan.outputFrameCount else {
            throw EngineError.setting(.start, reason: "\(overrides.startSeconds ?? 0) s is not before the end of the render (\(plan.durationSeconds) s)")
        }
        guard last > first else { throw EngineError.setting(.end, reason: "must be after \(setting: .start)") }
        self.range = first..<min(last, plan.outputFrameCount)
        // A window of the timeline says which one it is, so that `join` can check its parts (WindowMark).
        if range != 0..<plan.outputFrameCount {
            let digests = Dictionary(try InputFile.hashAll(plan).map { ($0.info.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
            let key = try CacheKey(plan: plan, range: 0..<plan.outputFrameCount, digests: digests, output: nil).audio
            window = WindowMark(start: range.lowerBound, end: range.upperBound, total: plan.outputFrameCount,
                                sampleRate: plan.sampleRate, key: key)
        } else {
            window = nil
        }
        // A session's length is known once it is planned: its listed chapters must start before its end.
        let end = plan.outputFrameCount   // a loopable render's file ends before its crossfade
        for (index, chapter) in (preset.chapters ?? []).enumerated() where chapter.frame >= end {
            let t = { (frame: Int64) in TimeParser.string(fromSeconds: Double(frame) / rate) }
            throw EngineError.preset(PresetError(file: presetPath, jsonPath: "chapters[\(index)].at",
                                                 message: "\(t(chapter.frame)) is not before the end of the render (\(t(end)))"))
        }
    }

    /// What this job's outputs are written from (`OutputSource`): its settings, chapters, loudness, window and reads.
    public var outputSource: OutputSource {
        var reads = FileAccess()
        recordReads(into: &reads)
        return OutputSource(presetPath: presetPath, title: preset.name, output: preset.output, sampleRate: plan.sampleRate,
                            channelCount: plan.channelCount, frameCount: Int64(range.count), chapters: chapters,
                            listsChapters: preset.chapters != nil, loudness: plan.loudness, limiterCeilingDb: plan.limiter.ceilingDb,
                            needsSeparateChannels: plan.needsSeparateChannels, window: window, reads: reads)
    }

    /// The settings for writing this job in `format` (not checked against the writer's limits).
    public func outputSettings(format: OutputFileFormat, encoding: OutputEncoding? = nil) -> OutputSettings {
        outputSource.encoded(encoding).settings(format: format)
    }

    /// Adds what this render reads to `access`: the preset (`preset`: how errors call it, by default "the preset
    /// being rendered") and every file it names, its beds' at any depth included, and every source the plan opened.
    public func recordReads(into access: inout FileAccess, preset: EngineReason = "the preset being rendered") {
        if presetIsFile { access.reads(presetPath, as: preset) }
        access.reads(filesOf: self.preset, by: "the render")
        for source in plan.sourceFiles.keys.sorted() {
            access.reads(source, as: "one of the render's sources")
        }
    }

    /// Refuses writing any of `outputs` where this render reads or where another of them writes
    /// (`OutputSource.checkWrites`). Nothing has been written when it throws.
    public func checkWrites(_ outputs: [(path: String, what: EngineReason)]) throws {
        try outputSource.checkWrites(outputs)
    }

    /// The frames to render: all of them, or the part the overrides ask for.
    public let range: Range<Int64>
    /// Which window of the whole render `range` is, written into the file's tags; nil for the whole render.
    public let window: WindowMark?

    /// The chapter marks the output carries: the preset's `chapters` list (which wins over a session's
    /// sections), else a session's sections; those that fall in the rendered range, each from its start (or the
    /// range's) relative to the range's start. A listed chapter lasts until the next one starts.
    public var chapters: [ChapterMark] {
        let spans: [(name: String, start: Int64, end: Int64)]
        if let list = preset.chapters {
            spans = list.indices.map { (list[$0].name, list[$0].frame, $0 + 1 < list.count ? list[$0 + 1].frame : plan.frameCount) }
        } else {
            spans = plan.timeline.sections.map { ($0.name, $0.start, $0.end) }
        }
        return spans.compactMap { span in
            guard span.end > range.lowerBound && span.start < range.upperBound else { return nil }
            return ChapterMark(name: span.name, frame: max(span.start, range.lowerBound) - range.lowerBound, sampleRate: plan.sampleRate)
        }
    }

    /// The output of this job to `destination`, computed and checked once before anything is rendered
    /// (`OutputPlan`): its settings, chapters, loudness policy, warnings and finishing steps. A file's path is
    /// also checked against what the render reads (`checkWrites`).
    /// With `checksum`, a file is hashed before it is renamed into place (`ChecksumStep`, `RenderResult.outputChecksum`).
    /// `encoding`: the output's own quality or bitrate, rate, channels or quieter loudness, in place of the render's (one
    /// of several outputs; see `OutputSource.encoded`).
    public func outputPlan(to destination: OutputPlan.Destination, checksum: Bool = false,
                           encoding: OutputEncoding? = nil) throws -> OutputPlan {
        let source = outputSource
        if let refusal = source.ownLoudnessRefusal(encoding) {
            throw EngineError.output(path: destination.name, reason: refusal)
        }
        return try OutputPlan(source: source.encoded(encoding), destination: destination, checksum: checksum)
    }

    /// Checks that this render can be written as `format` (`validate --format`): the encoder's limits (its rates,
    /// bitrates and channels), the format's tag limits and binaural beats' bitrate, as a render to such a file
    /// checks them before it starts, with `name` standing for the file in errors. Returns what the format
    /// cannot keep (tags, chapters, ReplayGain), one warning each. Writes nothing.
    public func check(format: OutputFileFormat, name: String) throws -> [String] {
        let source = outputSource
        let settings = try OutputPlan.checkedSettings(source: source, format: format, name: name)
        return OutputPlan.fileWarnings(source: source, settings: settings)
    }

    /// Renders to `path` through a temporary file beside it, renamed into place when complete
    /// (`outputPlan(to: .file(path:))`, then `render(_:)`).
    public func render(to path: String, blockFrames: Int = 4096, threads: Int = 1, taps: [RenderTap] = [], material: PreparedMaterial? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderResult {
        try render(try outputPlan(to: .file(path: path)), blockFrames: blockFrames, threads: threads, taps: taps, material: material, progress: progress)
    }

    /// Renders into the open file descriptor `descriptor` (standard output), encoded as `format`
    /// (`outputPlan(to: .stream(...))`, then `render(_:)`).
    public func render(toStream descriptor: Int32, format: OutputFileFormat, name: String, blockFrames: Int = 4096,
                       threads: Int = 1, taps: [RenderTap] = [], material: PreparedMaterial? = nil,
                       progress: ((Int64) -> Void)? = nil) throws -> RenderResult {
        let output = try outputPlan(to: .stream(descriptor: descriptor, format: format, name: name))
        return try render(output, blockFrames: blockFrames, threads: threads, taps: taps, material: material, progress: progress)
    }

    /// Renders to `output`. Normalising, measuring passes find the master gain first (they share `material`).
    /// A file is written under a temporary name, then the output's finishing steps run in order (the encoded
    /// loudness corrected, tags, the rename); on an error nothing is left at its path. A stream gets the bytes as
    /// they are encoded: a lossy stream cannot be measured and written again, nor tagged after the end (see
    /// `OutputPlan.streamWarnings`); on an error it is cut short, and the caller's exit status says so.
    /// `taps` are sinks at points of the master chain (a waveform recorder at `.output` gets the frames the
    /// file gets: `WaveformRecording.renderTap`). `material` shares decoded sources with other renders (see
    /// `Renderer.render`). `threads` mix the bus (`Renderer.threads`: the same output, on more cores).
    ///
    /// `releasesMaterial` says the material is this render's alone (always so when none is given): then, when no
    /// finishing step can write the file again (no loudness target), it is released before they run, so that a
    /// lossy file's measuring decode (FFmpeg's libraries, about 25 MB) does not stand on top of the loops.
    public func render(_ output: OutputPlan, blockFrames: Int = 4096, threads: Int = 1, taps: [RenderTap] = [], material: PreparedMaterial? = nil,
                       releasesMaterial: Bool = false, progress: ((Int64) -> Void)? = nil) throws -> RenderResult {
        let releasesMaterial = releasesMaterial || material == nil
        let material = material ?? PreparedMaterial()
        let normalisation = try findNormalisation(material: material, blockFrames: blockFrames)
        let gainDb = normalisation?.gainDb ?? 0
        switch output.destination {
        case .stream(let descriptor, _, let name):
            let writer = try AudioFileWriter.open(fileDescriptor: descriptor, settings: output.settings, displayPath: name)
            let summary = try Renderer(plan: plan.withMasterGain(db: gainDb), blockFrames: blockFrames, threads: threads)
                .render(to: writer, range: range, material: material, taps: taps, loop: plan.loop, progress: progress)
            return RenderResult(summary: summary, normalisation: normalisation, fileLoudness: nil, outputPath: name, outputBytes: nil, output: output)
        case .file:
            return try renderFiles([output], normalisation: normalisation, blockFrames: blockFrames, threads: threads, taps: taps,
                                   material: material, releasesMaterial: releasesMaterial, progress: progress)[0]
        }
    }

    /// Renders once into every one of `outputs`, all files (several outputs of one render: an `.m4a` to download, a
    /// smaller `.opus` to stream, a `.flac` to keep). The mix, its normalisation and `taps` are made once; each file
    /// is encoded from it on a thread of its own (`Renderer.render(to:)` with several encoders), then finished by its
    /// own steps: a lossy or converted file is measured and, normalised to a loudness, written again alone if it
    /// missed (`taps` keep what they heard of the first write). Nothing is renamed into place until every output has finished
    /// its other steps; on an error nothing is left at any of their paths. Results come in the order of `outputs`.
    /// A stream cannot be one of several outputs. Otherwise as `render(_:)`.
    public func render(_ outputs: [OutputPlan], blockFrames: Int = 4096, threads: Int = 1, taps: [RenderTap] = [],
                       material: PreparedMaterial? = nil, releasesMaterial: Bool = false,
                       progress: ((Int64) -> Void)? = nil) throws -> [RenderResult] {
        guard outputs.count != 1 else {
            return [try render(outputs[0], blockFrames: blockFrames, threads: threads, taps: taps, material: material,
                               releasesMaterial: releasesMaterial, progress: progress)]
        }
        guard !outputs.isEmpty else { return [] }
        for output in outputs {
            if case .stream(_, _, let name) = output.destination {
                throw EngineError.output(path: name, reason: "a stream cannot be one of several outputs; render it alone")
            }
        }
        try checkWrites(outputs.map { ($0.name, "the output") })
        let releasesMaterial = releasesMaterial || material == nil
        let material = material ?? PreparedMaterial()
        let normalisation = try findNormalisation(material: material, blockFrames: blockFrames)
        return try renderFiles(outputs, normalisation: normalisation, blockFrames: blockFrames, threads: threads, taps: taps,
                               material: material, releasesMaterial: releasesMaterial, progress: progress)
    }

    /// Writes every one of `outputs` (files) from one render at the normalisation's gain, each through a temporary
    /// file, then runs their finishing steps: every step but the rename for each output in turn, then the renames.
    private func renderFiles(_ outputs: [OutputPlan], normalisation: NormalisationOutcome?, blockFrames: Int, threads: Int,
                             taps: [RenderTap], material: PreparedMaterial, releasesMaterial: Bool,
                             progress: ((Int64) -> Void)?) throws -> [RenderResult] {
        let gainDb = normalisation?.gainDb ?? 0
        var files: [AtomicOutputFile] = []
        var contexts: [FinishingContext] = []
        do {
            for output in outputs { files.append(try AtomicOutputFile(destination: output.name)) }
            let summary = try write(plan.withMasterGain(db: gainDb), to: Array(zip(files, outputs)),
                                    blockFrames: blockFrames, threads: threads, taps: taps, material: material, progress: progress)
            for (file, output) in zip(files, outputs) {
                contexts.append(FinishingContext(
                    source: outputSource, output: output, file: file, summary: summary, normalisation: normalisation,
                    write: { gainDb, ceilingDb, file in
                        try self.write(self.plan.withMasterGain(db: gainDb).withLimiterCeiling(db: ceilingDb), to: [(file, output)],
                                       blockFrames: blockFrames, threads: threads, taps: [], material: material, progress: progress)
                    }))
            }
            if releasesMaterial && normalisation == nil { material.releaseUnheld() }
            // Every output is finished before any is renamed into place, so a failure leaves none of them.
            for i in contexts.indices {
                for step in outputs[i].finishing where !(step is CommitStep) { try step.finish(&contexts[i]) }
            }
            for i in contexts.indices {
                for step in outputs[i].finishing where step is CommitStep { try step.finish(&contexts[i]) }
            }
            return contexts.map { context in
                RenderResult(summary: context.summary, normalisation: context.normalisation, fileLoudness: context.fileLoudness,
                             outputPath: context.output.name, outputBytes: context.committedBytes ?? 0,
                             outputChecksum: context.checksum, output: context.output)
            }
        } catch {
            for context in contexts { context.file.discard() }   // the files written again, if they were
            for file in files { file.discard() }
            throw error
        }
    }

    /// The master gain that brings the render to its loudness target, found by measuring passes before anything
    /// is encoded (they share `material`); nil when the render is not normalised. Errors name `--loudness` or
    /// `output.loudness.target`, whichever set the target.
    private func findNormalisation(material: PreparedMaterial, blockFrames: Int) throws -> NormalisationOutcome? {
        try plan.loudness.map { spec in
            try measuring.normalisation(of: plan, to: spec, material: material, blockFrames: blockFrames) { reason in
                loudnessIsOverride ? .setting(.loudness, reason: "\(String(format1: spec.targetLUFS)): \(reason)")
                                   : .preset(PresetError(file: presetPath, jsonPath: "output.loudness.target", message: reason))
            }
        }
    }

    /// One render of `plan` into the outputs' temporary files, each written with its settings, its chapter marks and,
    /// where its rate or channels are its own, through its conversion (`OutputConversion`).
    private func write(_ plan: RenderPlan, to outputs: [(file: AtomicOutputFile, output: OutputPlan)], blockFrames: Int, threads: Int,
                       taps: [RenderTap], material: PreparedMaterial, progress: ((Int64) -> Void)?) throws -> RenderSummary {
        let encoders = try outputs.map { file, output in
            let settings = output.settings
            let writer = try AudioFileWriter.open(path: file.temporaryPath, settings: settings, displayPath: file.destination,
                                                  chapters: settings.format == .m4a ? output.chapters : [])
            return try output.conversion?.encoder(feeding: writer, frameCount: range.upperBound - range.lowerBound, blockFrames: blockFrames) ?? writer
        }
        return try Renderer(plan: plan, blockFrames: blockFrames, threads: threads).render(to: encoders, range: range, material: material,
                                                                        taps: taps, loop: plan.loop, progress: progress)
    }
}
