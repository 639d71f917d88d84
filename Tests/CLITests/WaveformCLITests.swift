import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `mixrender waveform` and `render --waveform`, run as the user runs them: the built executable in a
/// subprocess, with files made in code in a scratch folder.
@Suite struct WaveformCLITests {
    @Test func previewFitsTheTerminalAndSummarises() throws {
        let folder = try TemporaryFolder()
        let input = try folder.sineWAV()
        let run = try CLI.run(["waveform", input], environment: ["COLUMNS": "40"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Four rows of blocks, 40 characters; the preview scales the mono mix's peak to the full height.
        for line in lines[0..<4] { #expect(line.count == 40 && line.allSatisfy { $0 == "█" }, "\(line)") }
        #expect(lines[4].hasPrefix("0:00") && lines[4].hasSuffix("0:02.000") && lines[4].count == 40)
        #expect(lines[5] == "file      \(input): WAV 16-bit PCM, 44100 Hz, stereo")
        #expect(lines[6] == "duration  0:02.000 (88200 frames)")
        #expect(lines[7] == "peak      -6.0 dBFS, RMS -11.8 dBFS")
        #expect(lines[8].hasPrefix("bands     low 0 %, mid 100 %, high 0 %: mid dominates (250 Hz to 4 kHz); centroid 4"))
        #expect(folder.contents == ["tone.wav"])
    }

    @Test func splitChannelsPreviewHasALanePerChannel() throws {
        let folder = try TemporaryFolder()
        let run = try CLI.run(["waveform", try folder.sineWAV(), "--split-channels", "--width", "30"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        // Three rows per channel; scale auto = 1 / 0.5: the left fills its lane, the right (0.125) a quarter.
        for line in lines[0..<3] { #expect(line == String(repeating: "█", count: 30)) }
        #expect(lines[3] == String(repeating: " ", count: 30))
        #expect(lines[5] == String(repeating: "▆", count: 30))
    }

    @Test func writesJSONAndReportsIt() throws {
        let folder = try TemporaryFolder()
        let input = try folder.sineWAV()
        let output = folder.path("tone.json")
        let run = try CLI.run(["waveform", input, "-o", output, "--bits", "8", "--pixels-per-second", "100"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("wrote     \(output) (441 samples per pixel, 200 columns, 1 channel, 8-bit)\n"))
        let json = try readJSONObject(output)
        #expect(json["version"] as? Int == 2 && json["bits"] as? Int == 8 && json["length"] as? Int == 200)
        #expect(json["samples_per_pixel"] as? Int == 441 && json["sample_rate"] as? Int == 44_100)
        // The mono mix peaks at (0.5 + 0.125) / 2 = 0.3125 -> 10240 / 256 = 40.
        let data = ints(json["data"])
        #expect(data.max() == 40 && data.min() == -40)
        #expect(folder.contents == ["tone.json", "tone.wav"])
    }

    @Test func zoomLevelsAndImagesInOneGo() throws {
        let folder = try TemporaryFolder()
        let input = try folder.sineWAV()
        let dat = try CLI.run(["waveform", input, "-o", folder.path("t.dat"), "--zoom", "256,1024", "-q"])
        #expect(dat.status == 0 && dat.stdout.isEmpty, "\(dat.stderr)")
        let png = try CLI.run(["waveform", input, "-o", folder.path("t.png"), "--width", "300", "--height", "60",
                                      "--colors", "bands", "--background", "transparent"])
        #expect(png.status == 0, "\(png.stderr)")
        let svg = try CLI.run(["waveform", input, "-o", folder.path("t.svg"), "--color", "#ff0000", "--rms-color", "#00ff0080"])
        #expect(svg.status == 0, "\(svg.stderr)")
        let spectrogram = try CLI.run(["waveform", input, "-o", folder.path("s.png"), "--spectrogram", "--height", "128"])
        #expect(spectrogram.status == 0, "\(spectrogram.stderr)")
        #expect(folder.contents == ["s.png", "t.1024.dat", "t.256.dat", "t.png", "t.svg", "tone.wav"])
        let image = try PNGReader.read(path: folder.path("t.png"))
        #expect(image.width == 300 && image.height == 60)
        #expect(image.pixel(x: 0, y: 0).a == 0)
        #expect(try PNGReader.read(path: folder.path("s.png")).width == 1200)
    }

    /// A preset rendered with --waveform writes the audio and, made from the same frames, its waveform.
    @Test func renderWithWaveform() throws {
        let folder = try TemporaryFolder()
        let preset = try folder.preset("""
            {"version": 1, "name": "hiss", "duration": "3s", "output": {"sampleRate": 32000, "channels": 1},
             "tracks": [{"name": "white", "generator": {"type": "white", "seed": 3}, "gainDb": -6}]}
            """, name: "p.json")
        let run = try CLI.run(["render", preset, "-o", folder.path("p.wav"), "--waveform", folder.path("p.json.dat")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("waveform  \(folder.path("p.json.dat"))"))
        let dat = try Data(contentsOf: URL(fileURLWithPath: folder.path("p.json.dat")))
        // 96000 frames at 256 per column: 375 columns; one channel of 16-bit pairs.
        #expect(dat.count == 24 + 375 * 4)
        #expect(folder.contents == ["p.json", "p.json.dat", "p.wav"])

        let bad = try CLI.run(["render", preset, "-o", folder.path("q.wav"), "--waveform", folder.path("q.txt")])
        #expect(bad.status != 0)
        #expect(bad.stderr == "Error: cannot write '\(folder.path("q.txt"))': unknown extension '.txt'; use .json, .dat, .png or .svg\n")
        #expect(folder.contents == ["p.json", "p.json.dat", "p.wav"])
    }

    enum BadCase: String, CaseIterable, Sendable {
        case notAudio, zeroLength, truncatedHeader, widthZero, unknownExtension, missingFolder, bits, colors, zoomZero,
             zoomText, twoResolutions, spectrogramWithoutOutput, colour, amplitudeScale
    }

    /// Each bad input: a non-zero exit, one line on stderr naming the file or the option, no file left.
    @Test(arguments: BadCase.allCases)
    func badInput(_ badCase: BadCase) throws {
        let folder = try TemporaryFolder()
        let good = try folder.sineWAV("good.wav", seconds: 0.5)
        var arguments = ["waveform", good, "-o", folder.path("out.png")]
        var named = folder.path("out.png")
        switch badCase {
        case .notAudio:
            let text = try folder.write("readme.ogg", "not audio at all")
            arguments[1] = text; named = text
        case .zeroLength:
            let empty = folder.path("empty.wav")
            _ = FileManager.default.createFile(atPath: empty, contents: Data())
            arguments[1] = empty; named = "empty file"
        case .truncatedHeader:
            // A WAV header fragment: RIFF size says 2.3 MB, the file stops after 22 bytes.
            let cut = folder.path("cut.wav")
            var bytes = Array("RIFF".utf8) + [0x24, 0x20, 0x23, 0x00] + Array("WAVEfmt ".utf8)
            bytes += [0x10, 0, 0, 0, 1, 0]
            _ = FileManager.default.createFile(atPath: cut, contents: Data(bytes))
            arguments[1] = cut; named = cut
        case .widthZero:
            arguments += ["--width", "0"]; named = "--width"
        case .unknownExtension:
            arguments[3] = folder.path("out.webp"); named = "unknown extension '.webp'"
        case .missingFolder:
            arguments[3] = folder.path("missing/out.json"); named = "folder '\(folder.path("missing"))' does not exist"
        case .bits:
            arguments += ["--bits", "12"]; named = "--bits"
        case .colors:
            arguments += ["--colors", "rainbow"]; named = "--colors"
        case .zoomZero:
            arguments += ["--zoom", "256,0"]; named = "--samples-per-pixel"
        case .zoomText:
            arguments += ["--zoom", "fine"]; named = "--samples-per-pixel"
        case .twoResolutions:
            arguments += ["--zoom", "256", "--width", "100"]; named = "--width"
        case .spectrogramWithoutOutput:
            arguments = ["waveform", good, "--spectrogram"]; named = "--spectrogram"
        case .colour:
            arguments += ["--background", "blue-ish"]; named = "--background"
        case .amplitudeScale:
            arguments += ["--amplitude-scale", "0"]; named = "--amplitude-scale"
        }
        let before = folder.contents
        let run = try CLI.run(arguments)
        #expect(run.status != 0, "\(badCase) was accepted")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(badCase): \(run.stderr)")
        #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(named), "\(badCase): \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(folder.contents == before, "\(badCase) left \(folder.contents)")
    }
}

extension TemporaryFolder {
    /// A 16-bit stereo WAV: a 441 Hz sine of amplitude 0.5 on the left (100 samples a period, so samples 25
    /// and 75 of each are exactly ±0.5), a quarter of it on the right.
    func sineWAV(_ name: String = "tone.wav", seconds: Double = 2) throws -> String {
        let rate = 44_100, sine = TestSignals.sine(frequency: 441, amplitude: 0.5, rate: rate)
        return try wav(name, rate: rate, channels: 2, frames: Int(seconds * Double(rate)), format: .pcm16) { n, c in
            c == 0 ? sine(n, c) : sine(n, c) / 4
        }
    }
}
