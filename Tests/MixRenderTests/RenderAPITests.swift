import Foundation
import MixRender
import Testing

/// The library as another program uses it: `import MixRender` only, a preset given as JSON bytes.
@Suite struct RenderAPITests {
    /// A short procedural mix: brown and pink noise with fades, `seconds` long, mono at 32 kHz.
    static func preset(seconds: Double, gainDb: String = "-6") -> [UInt8] {
        Array("""
        {
          "version": 1,
          "name": "Library test",
          "duration": \(seconds),
          "output": { "sampleRate": 32000, "channels": 1 },
          "master": { "fadeIn": { "duration": "0.2s" }, "fadeOut": { "duration": "0.2s" } },
          "tracks": [
            { "name": "brown", "generator": { "type": "brown", "seed": 9 }, "gainDb": \(gainDb) },
            { "name": "air", "generator": { "type": "pink", "seed": 10 }, "gainDb": -24 }
          ]
        }
        """.utf8)
    }

    /// A new empty folder for one test's files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mixrender-lib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func rendersJSONBytesToAFileWithProgress() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try PresetRender(json: Self.preset(seconds: 2), name: "test.json")
        #expect(render.frameCount == 64_000)
        #expect(render.sampleRate == 32_000 && render.channelCount == 1)
        let path = dir.appendingPathComponent("mix.flac").path
        let (progress, reporter) = AsyncStream.makeStream(of: RenderProgress.self)
        let collected = Task { await progress.reduce(into: [RenderProgress]()) { $0.append($1) } }
        let result = try await render.render(toFile: path, progress: reporter)
        let values = await collected.value

        #expect(result.summary.frameCount == 64_000)
        #expect(result.outputPath == path && result.outputBytes ?? 0 > 0)
        #expect(!values.isEmpty)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.frames < $1.frames }, "frames only increase")
        #expect(values.last?.frames == 64_000 && values.last?.totalFrames == 64_000 && values.last?.isComplete == true)
        let info = try await AudioAnalysis.info(ofFile: path)
        #expect(info.frameCount == 64_000 && info.sampleRate == 32_000 && info.channelCount == 1)
        #expect(try Self.contents(dir) == ["mix.flac"], "no temporary file is left")
        // The file's loudness as the summary measured it while rendering (a lossless file: within 0.01 LU).
        let loudness = try await AudioAnalysis.loudness(ofFile: path)
        #expect(abs(loudness.integrated - result.summary.loudness.integrated) < 0.01)
    }

    /// Several files from one render (issue 56): each the file `render(toFile:)` writes alone; cancelled, none is left.
    @Test func severalFilesFromOneRender() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try PresetRender(json: Self.preset(seconds: 2), name: "test.json")
        let paths = ["mix.flac", "mix.mp3", "mix.m4a"].map { dir.appendingPathComponent($0).path }
        let results = try await render.render(toFiles: paths)
        #expect(results.map(\.outputPath) == paths)
        for path in paths {
            let alone = dir.appendingPathComponent("alone").appendingPathExtension((path as NSString).pathExtension).path
            _ = try await render.render(toFile: alone)
            #expect(FileManager.default.contents(atPath: path) == FileManager.default.contents(atPath: alone), "\(path)")
        }
        let long = try PresetRender(json: Self.preset(seconds: 6 * 3600))
        let (progress, reporter) = AsyncStream.makeStream(of: RenderProgress.self)
        let cancelled = try Self.folder()
        defer { try? FileManager.default.removeItem(at: cancelled) }
        let task = Task { try await long.render(toFiles: ["a.ogg", "a.flac"].map { cancelled.appendingPathComponent($0).path }, progress: reporter) }
        for await p in progress where p.frames > 0 { break }
        task.cancel()
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(try Self.contents(cancelled) == [], "no file and no temporary file")
    }

    /// Waveforms from a tap on the render's output (issue 56, the server's waveforms): each file is the one
    /// `mixrender waveform` writes of the rendered file, byte for byte, when the file holds the output exactly (a
    /// float WAV), from one analysis and no decoding.
    @Test func waveformsFromTheRendersOutputAreTheFilesOwn() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = String(decoding: Self.preset(seconds: 3), as: UTF8.self)
            .replacingOccurrences(of: #""channels": 1 }"#, with: #""channels": 1, "bitDepth": "float" }"#)
        let render = try PresetRender(json: Array(json.utf8), name: "test.json")
        let audio = dir.appendingPathComponent("mix.wav").path
        let names = ["w.json", "w.png", "w.svg", "w.dat"]
        _ = try await render.render(toFiles: [audio], waveforms: names.map { dir.appendingPathComponent("tap-" + $0).path })
        _ = try await AudioAnalysis.waveforms(ofFile: audio, writingTo: names.map { dir.appendingPathComponent("file-" + $0).path })
        for name in names {
            let tap = FileManager.default.contents(atPath: dir.appendingPathComponent("tap-" + name).path)
            let file = FileManager.default.contents(atPath: dir.appendingPathComponent("file-" + name).path)
            #expect(tap != nil && tap == file, "\(name)")
        }
        // A waveform that would overwrite the audio is refused before anything is written.
        await #expect(throws: (any Error).self) {
            _ = try await render.render(toFiles: [dir.appendingPathComponent("b.wav").path], waveforms: [dir.appendingPathComponent("b.wav").path])
        }
    }

    /// Each output's own quality or bitrate (issue 56): the file is the one a render with that setting writes alone, and
    /// its file key holds it.
    @Test func eachOutputMayHaveItsOwnEncoding() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = Self.preset(seconds: 4)
        let render = try PresetRender(json: json, name: "test.json")
        let paths = ["mix.mp3", "mix.ogg", "mix.flac"].map { dir.appendingPathComponent($0).path }
        let encodings: [OutputEncoding?] = [OutputEncoding(bitrateKbps: 64), OutputEncoding(quality: 0.1), nil]
        let report = try await render.renderWithReport(toFiles: paths, encodings: encodings)
        #expect(report.outputs.map { $0.result.output.settings.bitrateKbps } == [64, nil, nil])
        #expect(report.outputs[1].result.output.settings.vorbisQuality == 0.1)
        // 64 kbit/s constant bitrate: 8000 bytes a second, within a frame or two and the tags.
        let mp3Bytes = try #require(FileManager.default.attributesOfItem(atPath: paths[0])[.size] as? Int)
        #expect(abs(Double(mp3Bytes) - 4 * 8000) < 2500, "\(mp3Bytes) bytes")
        // Each file is the one the same setting writes alone (the MP3 and the FLAC byte for byte).
        var alone = RenderOverrides()
        alone.bitrateKbps = 64
        let mp3Alone = dir.appendingPathComponent("alone.mp3").path
        _ = try await PresetRender(json: json, name: "test.json", overrides: alone).render(toFile: mp3Alone)
        #expect(FileManager.default.contents(atPath: paths[0]) == FileManager.default.contents(atPath: mp3Alone))
        // The keys: the report's are the ones asked for before, and an encoding changes its file's key alone.
        let keys = try render.cacheKeys(formats: [.mp3, .oggVorbis, .flac], encodings: encodings)
        #expect(report.outputs.map(\.fileKey) == keys)
        let plain = try render.cacheKeys(formats: [.mp3, .oggVorbis, .flac])
        #expect(keys[0] != plain[0] && keys[1] != plain[1] && keys[2] == plain[2])
        #expect(try PresetRender(json: json, name: "test.json", overrides: alone).cacheKey(format: .mp3) == keys[0])
        #expect(OutputEncoding(quality: 0.5, bitrateKbps: 64).refusal == "give a quality or a bitrate, not both")
        #expect(OutputEncoding(quality: 1.5).refusal == "quality 1.5 is not from 0 to 1")
        #expect(OutputEncoding(bitrateKbps: 4).refusal == "bitrate 4 kbit/s is not from 6 to 512")
    }

    @Test func streamsEncodedBytesThatDecode() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try PresetRender(json: Self.preset(seconds: 3))
        for (format, name) in [(OutputFileFormat.flac, "stream.flac"), (.oggVorbis, "stream.ogg")] {
            var bytes: [UInt8] = []
            var chunks = 0
            for try await chunk in try render.encodedBytes(format: format) {
                #expect(!chunk.isEmpty && chunk.count <= 64 << 10)
                bytes += chunk
                chunks += 1
            }
            #expect(chunks > 0)
            let path = dir.appendingPathComponent(name).path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let info = try await AudioAnalysis.info(ofFile: path)
            #expect(info.frameCount == 96_000, "\(name) decodes to every frame")
            #expect(info.sampleRate == 32_000)
        }
        // A format that seeks back cannot stream: refused before anything renders.
        #expect(throws: EngineError.self) { _ = try render.encodedBytes(format: .wav) }
    }

    /// With one thread, and with mixing workers (`threads`), which stop with the render.
    @Test(arguments: [1, 2])
    func cancellingTheTaskLeavesNoFile(threads: Int) async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Long enough that it cannot end before it is cancelled, even on a loaded machine where this task wakes
        // seconds after the first progress (six hours of audio; cancelled at its first block, it costs nothing).
        var render = try PresetRender(json: Self.preset(seconds: 6 * 3600))
        render.threads = threads
        let path = dir.appendingPathComponent("long.ogg").path
        let (progress, reporter) = AsyncStream.makeStream(of: RenderProgress.self)
        let task = Task { try await render.render(toFile: path, progress: reporter) }
        // Cancelled once the first blocks are in the temporary file (unnamed, O_TMPFILE, where the file system
        // has it; else a named file beside the output: either must go).
        var seen: RenderProgress?
        for await p in progress where p.frames > 0 {
            seen = p
            break
        }
        task.cancel()
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(try Self.contents(dir) == [], "no file and no temporary file")
        #expect(seen.map { $0.frames < $0.totalFrames } == true)
    }

    /// Preparing (loading, analysing, planning) in a cancelled task stops at the analysis's first request and
    /// throws `CancellationError`; not cancelled, it prepares what `init(json:)` does.
    @Test func cancellingThePreparationThrowsCancellationError() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await PresetRender.prepare(json: Array(#"{"duration": 1, "tracks": [{"speech": {"text": "Hello."}}]}"#.utf8))
        }
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        let prepared = try await PresetRender.prepare(json: Self.preset(seconds: 2))
        #expect(prepared.frameCount == 64_000)
    }

    @Test func cancellingAStreamStopsItsRender() async throws {
        let render = try PresetRender(json: Self.preset(seconds: 600))
        let task = Task {
            var count = 0
            for try await _ in try render.encodedBytes(format: .flac) {
                count += 1
                if count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    @Test func aWrongPresetNamesItsJSONPath() throws {
        do {
            _ = try PresetRender(json: Self.preset(seconds: 2, gainDb: "\"loud\""), name: "bad.json")
            Issue.record("a preset with a string for a gain loaded")
        } catch let EngineError.preset(problem) {
            #expect(problem.file == "bad.json")
            #expect(problem.jsonPath == "tracks[0].gainDb")
            #expect(!problem.message.isEmpty)
        }
        // An override is checked as the preset's own value, naming the setting.
        #expect(throws: EngineError.setting(.duration, reason: "must be longer than 0")) {
            _ = try PresetRender(json: Self.preset(seconds: 2), overrides: RenderOverrides(durationSeconds: -1))
        }
    }

    /// The same preset as `preset(seconds: 2)`, built as a value in Swift.
    static let presetValue: JSONValue = [
        "version": 1, "name": "Library test", "duration": 2,
        "output": ["sampleRate": 32000, "channels": 1],
        "master": ["fadeIn": ["duration": "0.2s"], "fadeOut": ["duration": "0.2s"]],
        "tracks": [
            ["name": "brown", "generator": ["type": "brown", "seed": 9], "gainDb": -6],
            ["name": "air", "generator": ["type": "pink", "seed": 10], "gainDb": -24],
        ],
    ]

    @Test func aPresetGivenAsAValueRendersAsItsJSONDoes() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fromValue = try PresetRender(preset: Self.presetValue, name: "value")
        let fromBytes = try PresetRender(json: Self.preset(seconds: 2), name: "bytes")
        #expect(fromValue.frameCount == 64_000 && fromValue.sampleRate == 32_000)
        let a = dir.appendingPathComponent("value.wav").path, b = dir.appendingPathComponent("bytes.wav").path
        _ = try await fromValue.render(toFile: a)
        _ = try await fromBytes.render(toFile: b)
        #expect(try Data(contentsOf: URL(fileURLWithPath: a)) == Data(contentsOf: URL(fileURLWithPath: b)))
        // Cancellable preparation takes a value too.
        let prepared = try await PresetRender.prepare(preset: Self.presetValue)
        #expect(prepared.frameCount == 64_000)
        // A value is read by the same rules as a document: a wrong one is an error at its JSON path.
        var wrong = Self.presetValue
        wrong["tracks"]?[0]["gainDb"] = "loud"
        #expect(wrong["tracks"]?[0]["gainDb"] == "loud")
        do {
            _ = try PresetRender(preset: wrong, name: "value")
            Issue.record("a preset with a string for a gain loaded")
        } catch let EngineError.preset(problem) {
            #expect(problem.file == "value" && problem.jsonPath == "tracks[0].gainDb", "\(problem)")
        }
    }

    @Test func anUnknownOutputExtensionIsAnOutputError() async throws {
        let render = try PresetRender(json: Self.preset(seconds: 1))
        do {
            _ = try await render.render(toFile: "mix.xyz")
            Issue.record("rendered to an unknown extension")
        } catch let EngineError.output(path, reason) {
            #expect(path == "mix.xyz")
            #expect(reason.description.hasPrefix("unknown output extension"))
        }
    }
}
