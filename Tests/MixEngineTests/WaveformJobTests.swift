import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import TestSupport
import Testing

/// `WaveformJob`: a file decoded and analysed end to end, and every bad input refused before anything
/// is written.
@Suite struct WaveformJobTests {
    @Test func aFileToJSONEndToEnd() throws {
        let scratch = try TemporaryFolder()
        // 16-bit PCM: a 0.5 sine reads back exactly 16384 / 32768.
        let input = try scratch.wav("tone.wav", rate: 44_100, channels: 2, frames: 44_100 * 3, format: .pcm16) { n, c in
            Float(0.5 * sin(2 * Double.pi * 441 * Double(n) / 44_100)) * (c == 0 ? 1 : 0.5)
        }
        var options = WaveformOptions()
        options.isSplittingChannels = true
        let job = try WaveformJob(inputPath: input, outputPath: scratch.path("tone.json"), options: options)
        #expect(job.plan.samplesPerPixel == [256])
        let recorder = try job.run()
        #expect(recorder.totals.frameCount == 132_300)
        #expect(recorder.totals.channelPeaks == [0.5, 0.25])
        #expect(recorder.totals.dominantBand == .mid)
        let json = try readJSONObject(scratch.path("tone.json"))
        #expect(json["length"] as? Int == 517)   // ceil(132300 / 256)
        let data = ints(json["data"])
        // 100 samples per period: column 1 (frames 256..<512) holds whole periods' peaks.
        #expect(Array(data[4..<8]) == [-16384, 16384, -8192, 8192])
        #expect(scratch.contents == ["tone.json", "tone.wav"])
    }

    /// Several outputs from one decode (the server's JSON, PNG, SVG and `.dat` of a render) are each the file a job of its
    /// own writes, byte for byte, from one analysis (`WaveformRecording`); an output that cannot be
    /// written is refused before anything is.
    @Test func severalOutputsFromOneDecodeAreTheFilesEachJobWrites() throws {
        let scratch = try TemporaryFolder()
        let input = try scratch.wav("tone.wav", rate: 48_000, channels: 2, frames: 48_000 * 4, format: .pcm16) { n, c in
            Float(0.4 * sin(2 * Double.pi * 330 * Double(n) / 48_000)) * (c == 0 ? 1 : 0.7)
        }
        try FileManager.default.createDirectory(atPath: scratch.path("one"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: scratch.path("all"), withIntermediateDirectories: false)
        let names = ["w.json", "w.png", "w.svg", "w.dat"]
        for name in names {
            _ = try WaveformJob(inputPath: input, outputPath: scratch.path("one/" + name), options: WaveformOptions()).run()
        }
        let job = try WaveformJob(inputPath: input, outputs: names.map { scratch.path("all/" + $0) }, options: WaveformOptions())
        #expect(job.plans.count == 4)
        let recorders = try job.runAll()
        #expect(recorders.count == 4 && recorders.allSatisfy { $0.totals.frameCount == 192_000 })
        #expect(WaveformRecording(plans: job.plans).analysisCount == 1, "the four outputs share one analysis")
        for name in names {
            let alone = try Data(contentsOf: URL(fileURLWithPath: scratch.path("one/" + name)))
            let together = try Data(contentsOf: URL(fileURLWithPath: scratch.path("all/" + name)))
            #expect(!alone.isEmpty && alone == together, "\(name) differs")
        }
        #expect(throws: (any Error).self) {
            try WaveformJob(inputPath: input, outputs: [scratch.path("x.json"), scratch.path("nowhere/x.png")], options: WaveformOptions())
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.json")))
    }

    @Test func aPreviewWritesNothing() throws {
        let scratch = try TemporaryFolder()
        let input = try scratch.wav("a.wav", frames: 4800, format: .pcm16) { n, _ in Float(n % 10) / 20 }
        let job = try WaveformJob(inputPath: input, outputPath: nil, options: WaveformOptions(), previewWidth: 30)
        let recorder = try job.run()
        #expect(recorder.stores[0].count == 30)       // ceil(4800 / 160)
        #expect(try recorder.pixels().width == 30)
        #expect(scratch.contents == ["a.wav"])
    }

    enum Case: String, CaseIterable, Sendable {
        case notAudio, zeroLength, noFrames, widthZero, unknownExtension, noExtension, missingFolder, missingInput,
             inputAsOutput, spectrogramNotPNG, tooWideImage, tooManyPixelsPerSecond
    }

    /// Each bad input gets a one-line error naming the file or the option, and leaves no file behind.
    @Test(arguments: Case.allCases)
    func badInputIsRefusedAndLeavesNothing(_ badCase: Case) throws {
        let scratch = try TemporaryFolder()
        let good = try scratch.wav("good.wav", frames: 48_000, format: .pcm16) { n, _ in Float(n % 7) / 10 }
        var input = good, output: String? = scratch.path("out.json"), options = WaveformOptions()
        let expected: String
        switch badCase {
        case .notAudio:
            input = scratch.path("notes.wav")
            try "these are not audio samples\n".write(toFile: input, atomically: true, encoding: .utf8)
            expected = "cannot open '\(input)': not an audio format mixrender can read"
        case .zeroLength:
            input = scratch.path("empty.wav")
            _ = FileManager.default.createFile(atPath: input, contents: Data())
            expected = "cannot open '\(input)': empty file (0 bytes)"
        case .noFrames:
            input = try scratch.wav("silent.wav", frames: 0, format: .pcm16) { _, _ in 0 }
            expected = "cannot read '\(input)': the file holds no audio (0 frames)"
        case .widthZero:
            options.resolution = .width(0)
            expected = "--width must be at least 1, not 0"
        case .unknownExtension:
            output = scratch.path("out.txt")
            expected = "cannot write '\(output!)': unknown extension '.txt'; use .json, .dat, .png or .svg"
        case .noExtension:
            output = scratch.path("out")
            expected = "cannot write '\(output!)': no extension; use .json, .dat, .png or .svg"
        case .missingFolder:
            output = scratch.path("no/such/folder/out.png")
            expected = "cannot write '\(output!)': folder '\(scratch.path("no/such/folder"))' does not exist"
        case .missingInput:
            input = scratch.path("nothing.ogg")
            expected = "cannot open '\(input)': no such file"
        case .inputAsOutput:
            let json = scratch.path("good.json")
            try "{}".write(toFile: json, atomically: true, encoding: .utf8)
            output = scratch.path("./good.json")
            input = json
            expected = "cannot write '\(output!)': the waveform is the input file ('\(json)'); writing there would destroy it"
        case .spectrogramNotPNG:
            options.style.isSpectrogram = true
            expected = "cannot write '\(output!)': --spectrogram draws a PNG image; use a .png file"
        case .tooWideImage:
            output = scratch.path("wide.png")
            options.resolution = .samplesPerPixel([1])
            expected = "cannot write '\(output!)': 48000 columns at 1 sample per pixel make an image wider than 32768 pixels; use --width"
        case .tooManyPixelsPerSecond:
            options.resolution = .pixelsPerSecond([50_000])
            expected = "--pixels-per-second 50000 is more than the sample rate (48000 Hz)"
        }
        let before = scratch.contents
        var message = ""
        do {
            let job = try WaveformJob(inputPath: input, outputPath: output, options: options)
            _ = try job.run()
            Issue.record("\(badCase) was accepted")
        } catch let error as EngineError {
            // Worded as the command line words it: each setting as its option (--kebab-case).
            message = error.words { setting in
                "--" + setting.rawValue.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
            }
        } catch {
            message = String(describing: error)
        }
        #expect(message.hasPrefix(expected), "\(badCase): \(message)")
        #expect(!message.contains("\n"))
        #expect(scratch.contents == before, "\(badCase) left \(scratch.contents)")
    }

    /// A failure while writing the second of several zoom levels removes the first, too.
    @Test func aFailedLevelTakesTheOthersWithIt() throws {
        let scratch = try TemporaryFolder()
        let input = try scratch.wav("a.wav", frames: 4800, format: .pcm16) { n, _ in Float(n % 10) / 20 }
        var options = WaveformOptions()
        options.resolution = .samplesPerPixel([100, 200])
        let job = try WaveformJob(inputPath: input, outputPath: scratch.path("a.json"), options: options)
        // A folder where the second level's file should go: the rename fails.
        try FileManager.default.createDirectory(atPath: scratch.path("a.200.json"), withIntermediateDirectories: false)
        #expect(throws: (any Error).self) { _ = try job.run() }
        #expect(scratch.contents == ["a.200.json", "a.wav"])
    }
}
