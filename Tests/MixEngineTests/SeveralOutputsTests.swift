import Foundation
@testable import MixEngine
import MixDSP
import MixIO
import Testing
import DSPTestSupport
import TestSupport

/// Several outputs from one render (issue 56): the mix is made once, every encoder fed from it; each file is the file
/// the same job writes alone, each lossy one is corrected to its loudness on its own, and a failure leaves none.
@Suite struct SeveralOutputsTests {
    /// Tones and seeded noise, 4 s: enough for every encoder's priming and a loudness measurement.
    static let preset = #"""
        { "duration": 4,
          "tracks": [ { "tone": { "frequencyHz": 220 }, "gainDb": -12 },
                      { "generator": { "type": "pink" }, "gainDb": -24, "fadeIn": "1s" } ] }
        """#
    static let names = ["out.flac", "out.wav", "out.m4a", "out.ogg", "out.opus", "out.mp3"]

    /// The decoded samples of the file at `path`.
    static func decoded(_ path: String) throws -> [Float] { try readAll(try AudioFile.open(path: path)) }

    @Test func eachFileIsTheFileItsJobWritesAlone() throws {
        let together = try TemporaryFolder(), alone = try TemporaryFolder()
        let job = try RenderJob(presetPath: try together.preset(Self.preset))
        let plans = try Self.names.map { try job.outputPlan(to: .file(path: together.path($0))) }
        let results = try job.render(plans)
        #expect(results.map(\.outputPath) == Self.names.map { together.path($0) })
        for name in Self.names {
            _ = try job.render(to: alone.path(name))
            let a = try FileSystem.readDocument(path: together.path(name), maximumBytes: 1 << 26)
            let b = try FileSystem.readDocument(path: alone.path(name), maximumBytes: 1 << 26)
            if name.hasSuffix(".ogg") || name.hasSuffix(".opus") {
                // An Ogg stream's serial number is random: the same packets, other page headers. Decoded, the same audio.
                let x = try Self.decoded(together.path(name)), y = try Self.decoded(alone.path(name))
                #expect(x.count == y.count && zip(x, y).allSatisfy { $0 == $1 }, "\(name): decoded audio differs")
            } else {
                #expect(a == b, "\(name): \(a.count) bytes against \(b.count) alone")
            }
        }
        // One render: every result has its summary, and the render's encode time is the slowest encoder's.
        #expect(results.allSatisfy { $0.summary.frameCount == 4 * 48_000 })
        #expect(results.allSatisfy { $0.summary.timings.encodeCPU > 0 })
    }

    /// Normalised: each lossy file is measured decoded and written again alone until it holds the target, as it is
    /// when rendered by itself; the lossless one holds what the render measured.
    @Test func eachLossyFileHoldsTheTargetLoudness() throws {
        let folder = try TemporaryFolder()
        var overrides = RenderOverrides()
        overrides.loudnessTarget = -18
        let job = try RenderJob(presetPath: try folder.preset(Self.preset), overrides: overrides)
        let names = ["out.m4a", "out.opus", "out.flac"]
        let results = try job.render(try names.map { try job.outputPlan(to: .file(path: folder.path($0))) })
        for (name, result) in zip(names, results) {
            let measured = try LoudnessMeter.measure(path: folder.path(name), truePeak: true)
            #expect(abs(measured.integrated - -18) <= Normalisation.toleranceLU + 0.05, "\(name): \(measured.integrated) LUFS")
            #expect(measured.truePeak <= -1 + 0.05, "\(name): \(measured.truePeak) dBTP")
            #expect(abs(result.outputLoudness.integrated - measured.integrated) < 0.05, "\(name)")
            #expect((result.fileLoudness != nil) == !name.hasSuffix(".flac"))
        }
    }

    /// A failure at any output leaves none of them, and no temporary file.
    @Test func aFailureLeavesNoFile() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.preset(Self.preset))
        let before = folder.contents
        let plans = [try job.outputPlan(to: .file(path: folder.path("a.flac"))), try job.outputPlan(to: .file(path: folder.path("b.ogg"))),
                     try job.outputPlan(to: .file(path: folder.path("missing/c.m4a")))]
        #expect(throws: (any Error).self) { try job.render(plans) }
        #expect(folder.contents == before)
    }

    @Test func twoOutputsCannotShareAPathNorHoldAStream() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.preset(Self.preset))
        let same = [try job.outputPlan(to: .file(path: folder.path("a.flac"))), try job.outputPlan(to: .file(path: folder.path("./a.flac")))]
        let error = try #require(throws: EngineError.self) { try job.render(same) }
        #expect("\(error)".contains("a.flac"), "\(error)")
        let stream = try job.outputPlan(to: .stream(descriptor: 1, format: .oggVorbis, name: "standard output"))
        let b = try job.outputPlan(to: .file(path: folder.path("b.flac")))
        let mixed = try #require(throws: EngineError.self) { try job.render([b, stream]) }
        #expect("\(mixed)".contains("standard output") && "\(mixed)".contains("several outputs"), "\(mixed)")
        #expect(!folder.contents.contains("a.flac") && !folder.contents.contains("b.flac"))
    }

    /// The report lists every file with its own hash and file key; the first is `output`.
    @Test func theReportListsEveryOutput() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.preset(Self.preset))
        let names = ["out.flac", "out.ogg"]
        let results = try job.render(try names.map { try job.outputPlan(to: .file(path: folder.path($0)), checksum: true) })
        let report = try RenderReport(job: job, results: results, inputs: RenderReport.Inputs(job: job, output: folder.path(names[0])))
        #expect(report.outputs.count == 2)
        #expect(report.outputSHA256 == report.outputs[0].sha256)
        for (entry, name) in zip(report.outputs, names) {
            var hash = ContentHash()
            try FileSystem.readDocument(path: folder.path(name), maximumBytes: 1 << 26).withUnsafeBytes { hash.update($0) }
            #expect(entry.sha256 == hash.hex)
        }
        #expect(report.outputs[0].fileKey != report.outputs[1].fileKey)
        let value = report.value
        #expect(value["outputs"]?[1]["path"] == .string(folder.path("out.ogg")))
    }

    /// An output at its own rate and channels (issue 56) is the mix converted: the render's two channels' mean,
    /// resampled by libsoxr's very-high-quality recipe, with exactly the frames the rates say, aligned with the render,
    /// and its own file key.
    @Test func anOutputAtItsOwnRateAndChannelsIsTheMixConverted() throws {
        let folder = try TemporaryFolder()
        let preset = #"{ "duration": 3, "output": { "bitDepth": "float" }, "tracks": [ { "tone": { "frequencyHz": 220 }, "gainDb": -12, "pan": -0.5 }, { "generator": { "type": "pink" }, "gainDb": -24 } ] }"#
        let job = try RenderJob(presetPath: try folder.preset(preset))
        let small = OutputEncoding(sampleRate: 22_050, channelCount: 1)
        let plans = [try job.outputPlan(to: .file(path: folder.path("mix.wav"))),
                     try job.outputPlan(to: .file(path: folder.path("small.wav")), encoding: small)]
        _ = try job.render(plans)
        let mix = try AudioFile.open(path: folder.path("mix.wav")), converted = try AudioFile.open(path: folder.path("small.wav"))
        #expect(mix.sampleRate == 48_000 && mix.channelCount == 2)
        #expect(converted.sampleRate == 22_050 && converted.channelCount == 1)
        #expect(converted.frameCount == 3 * 22_050)
        // The same conversion made here from the render's own file.
        let stereo = try readAll(mix)
        let mono: [Float] = (0..<stereo.count / 2).map { (i: Int) -> Float in (stereo[2 * i] + stereo[2 * i + 1]) / 2 }
        let resampler = try SoxrResampler(channelCount: 1, inputRate: 48_000, outputRate: 22_050, quality: .soxrVHQ)
        var expected = [Float](repeating: 0, count: 3 * 22_050 + 4096)
        var produced = 0
        try mono.withUnsafeBufferPointer { input in
            try expected.withUnsafeMutableBufferPointer { output in
                var consumed = 0
                while true {
                    let step = try resampler.process(input: input.baseAddress! + consumed, inputFrames: input.count - consumed,
                                                     output: output.baseAddress! + produced, outputCapacity: output.count - produced,
                                                     endOfInput: true)
                    consumed += step.consumed
                    produced += step.produced
                    if step.produced == 0 { break }
                }
            }
        }
        let got = try readAll(converted)
        #expect(abs(produced - got.count) <= 1, "the resampler made \(produced) frames, the file has \(got.count)")
        let compared = min(produced, got.count)
        let worst = (0..<compared).map { abs(got[$0] - expected[$0]) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference \(worst)")
        // Aligned with the render: at 24 kHz, every other frame of the mono mix matches best at no lag.
        let half = try RenderJob(presetPath: job.presetPath)
        _ = try half.render([try half.outputPlan(to: .file(path: folder.path("half.wav")), encoding: OutputEncoding(sampleRate: 24_000, channelCount: 1)),
                             try half.outputPlan(to: .file(path: folder.path("again.wav")))])
        let halved = try readAll(try AudioFile.open(path: folder.path("half.wav")))
        func correlation(lag: Int) -> Double {
            var sum = 0.0
            for i in 1000..<30_000 { sum += Double(halved[i]) * Double(mono[2 * (i + lag)]) }
            return sum
        }
        #expect(correlation(lag: 0) > correlation(lag: 1) && correlation(lag: 0) > correlation(lag: -1))
        // Its own file key; the render's own file's key is unchanged.
        let inputs = try InputFile.hashAll(job.plan)
        let plain = try job.cacheKey(inputs: inputs, format: .wav).file
        #expect(try job.cacheKey(inputs: inputs, format: .wav, encoding: small).file != plain)
        #expect(try job.cacheKey(inputs: inputs, format: .wav, encoding: OutputEncoding(sampleRate: 48_000, channelCount: 2)).file == plain)
        #expect(OutputEncoding(sampleRate: 4000).refusal == "sample rate 4000 Hz is not from 8000 to 192000")
        #expect(OutputEncoding(channelCount: 3).refusal == "channels 3 is not 1 or 2")
    }

    /// Normalised, a converted file is measured as written and corrected to the target like a lossy one (a mono mix
    /// of two channels measures otherwise than they do); binaural beats are never mixed to mono.
    @Test func aConvertedFileHoldsTheTargetAndBeatsStayStereo() throws {
        let folder = try TemporaryFolder()
        var overrides = RenderOverrides()
        overrides.loudnessTarget = -18
        let job = try RenderJob(presetPath: try folder.preset(Self.preset), overrides: overrides)
        let results = try job.render([try job.outputPlan(to: .file(path: folder.path("mix.flac"))),
                                      try job.outputPlan(to: .file(path: folder.path("mono.flac")), encoding: OutputEncoding(sampleRate: 16_000, channelCount: 1))])
        let measured = try LoudnessMeter.measure(path: folder.path("mono.flac"), truePeak: true)
        #expect(abs(measured.integrated - -18) <= Normalisation.toleranceLU + 0.05, "\(measured.integrated) LUFS")
        #expect(measured.truePeak <= -1 + 0.05, "\(measured.truePeak) dBTP")
        #expect(results[1].fileLoudness != nil && results[0].fileLoudness == nil)
        let beats = try RenderJob(presetPath: try folder.preset(#"{ "duration": "4s", "tracks": [ { "binaural": { "carrierHz": 200, "beatHz": 6 } } ] }"#))
        let error = try #require(throws: EngineError.self) {
            try beats.outputPlan(to: .file(path: folder.path("beats.m4a")), encoding: OutputEncoding(channelCount: 1))
        }
        #expect("\(error)".contains("binaural beats") && "\(error)".contains("beats.m4a"), "\(error)")
        _ = try beats.outputPlan(to: .file(path: folder.path("beats.m4a")), encoding: OutputEncoding(sampleRate: 44_100))
    }

    /// An output's own loudness (issue 56): at most the render's, the render turned down after its limiter, so each
    /// file holds its own target and its true peak falls by as much; a louder one, or one in a render that is not
    /// normalised, is refused naming the file.
    @Test func aQuieterOutputIsTheRenderTurnedDown() throws {
        let folder = try TemporaryFolder()
        var overrides = RenderOverrides()
        overrides.loudnessTarget = -14
        let preset = #"{ "duration": 4, "output": { "bitDepth": 24 }, "tracks": [ { "tone": { "frequencyHz": 220 }, "gainDb": -12 }, { "generator": { "type": "pink" }, "gainDb": -24, "fadeIn": "1s" } ] }"#
        let job = try RenderJob(presetPath: try folder.preset(preset), overrides: overrides)
        let results = try job.render([try job.outputPlan(to: .file(path: folder.path("mix.wav"))),
                                      try job.outputPlan(to: .file(path: folder.path("quiet.flac")), encoding: OutputEncoding(loudnessLUFS: -23)),
                                      try job.outputPlan(to: .file(path: folder.path("quiet.m4a")), encoding: OutputEncoding(loudnessLUFS: -20))])
        let loud = try LoudnessMeter.measure(path: folder.path("mix.wav"), truePeak: true)
        #expect(abs(loud.integrated - -14) <= Normalisation.toleranceLU + 0.05, "\(loud.integrated) LUFS")
        for (name, target) in [("quiet.flac", -23.0), ("quiet.m4a", -20.0)] {
            let measured = try LoudnessMeter.measure(path: folder.path(name), truePeak: true)
            #expect(abs(measured.integrated - target) <= Normalisation.toleranceLU + 0.05, "\(name): \(measured.integrated) LUFS")
            #expect(measured.truePeak <= loud.truePeak + (target - -14) + 0.3, "\(name): \(measured.truePeak) dBTP")
        }
        #expect(results[1].output.loudness?.targetLUFS == -23 && results[1].fileLoudness != nil)
        // The FLAC is the WAV times the gain, within a step of their 24 bits (each quantised on its own).
        let mix = try Self.decoded(folder.path("mix.wav")), quiet = try Self.decoded(folder.path("quiet.flac"))
        let factor = Float(gain(fromDecibels: -9))
        #expect(mix.count == quiet.count)
        let worst = zip(mix, quiet).map { abs($0 * factor - $1) }.max() ?? 1
        #expect(worst < 3e-7, "largest difference \(worst)")
        // Louder than the render, or a render not normalised: refused, naming the file.
        let louder = try #require(throws: EngineError.self) {
            try job.outputPlan(to: .file(path: folder.path("loud.m4a")), encoding: OutputEncoding(loudnessLUFS: -10))
        }
        #expect("\(louder)".contains("loud.m4a") && "\(louder)".contains("louder than the render's -14.0 LUFS"), "\(louder)")
        let plain = try RenderJob(presetPath: job.presetPath)
        let unnormalised = try #require(throws: EngineError.self) {
            try plain.outputPlan(to: .file(path: folder.path("own.m4a")), encoding: OutputEncoding(loudnessLUFS: -20))
        }
        #expect("\(unnormalised)".contains("needs the render normalised"), "\(unnormalised)")
        #expect(OutputEncoding(loudnessLUFS: 3).refusal == "loudness 3.0 LUFS is not from -70.0 to 0.0")
    }
}
