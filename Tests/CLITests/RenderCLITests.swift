import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

@Suite struct RenderCLITests {
    /// A 1 kHz sine WAV at 44.1 kHz, amplitude 0.5, made in code.
    func sineWav(_ s: TemporaryFolder) throws -> String {
        try s.wav("sine.wav", rate: 44100, frames: 44100 * 4, TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: 44100))
    }

    func decode(_ path: String) throws -> (AudioFileInfo, [Float]) {
        let r = try AudioFile.open(path: path)
        return (r.info, try readAll(r))
    }

    @Test(arguments: ["out.flac", "out.wav", "out.ogg"])
    func rendersAFileOfTheRightLengthRateChannelsAndLevel(name: String) throws {
        let s = try TemporaryFolder()
        let wav = try sineWav(s)
        let preset = try s.write("mix.json", """
            { "duration": "10s", "output": { "sampleRate": 48000, "channels": 2, "bitDepth": 24 },
              "tracks": [ { "file": "\(URL(fileURLWithPath: wav).lastPathComponent)", "loop": true, "gainDb": -6 } ] }
            """)
        let r = try CLI.run([preset, "-o", s.path(name), "--duration", "3s"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("wrote"))
        let (info, samples) = try decode(s.path(name))
        #expect(info.frameCount == 3 * 48000)
        #expect(info.sampleRate == 48000)
        #expect(info.channelCount == 2)
        // 0.5 sine at -6 dB: RMS = 20 log10(0.5 / sqrt 2) - 6 = -15.05 dBFS (lossless within 0.05 dB, Vorbis 0.5 dB).
        let middle = samples[(48000 * 2)..<(48000 * 2 * 2)]
        let level = dB(rms(middle))
        let tolerance = name.hasSuffix(".ogg") ? 0.5 : 0.05
        #expect(abs(level - -15.05) < tolerance, "RMS \(level)")
        // Nothing but the output beside it: the temporary file was renamed.
        #expect(s.contents == ["mix.json", name, "sine.wav"].sorted())
    }

    @Test func renderSubcommandAndOverrides() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("n.json", #"{ "duration": "1h", "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        let r = try CLI.run(["render", preset, "-o", s.path("n.wav"), "--duration", "2s", "--sample-rate", "22050", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let info = try AudioFileInfo.read(path: s.path("n.wav"))
        #expect(info.frameCount == 44100 && info.sampleRate == 22050)
    }

    @Test func partialRenderWritesTheRange() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("n.json", #"{ "duration": "1h", "tracks": [ { "generator": { "type": "brown" } } ] }"#)
        let r = try CLI.run([preset, "-o", s.path("part.wav"), "--start", "30m", "--end", "30m1.5s"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try AudioFileInfo.read(path: s.path("part.wav")).frameCount == 72000)
    }

    @Test func validateAndInfo() throws {
        let s = try TemporaryFolder()
        let wav = try sineWav(s)
        let preset = try s.write("v.json", #"{ "duration": "8h", "tracks": [ { "file": "sine.wav", "loop": true } ] }"#)
        let v = try CLI.run(["validate", preset])
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stdout.contains("OK"))
        #expect(s.contents == ["sine.wav", "v.json"])
        let i = try CLI.run(["info", wav])
        #expect(i.status == 0)
        #expect(i.stdout.contains("44100 Hz") && i.stdout.contains("channels  1") && i.stdout.contains("176400 frames"))
    }

    /// Each bad input: a one-line error naming the culprit, a non-zero exit, nothing written.
    @Test(arguments: [
        ("malformed JSON", #"{ "duration": 10, "tracks": [ }"#, "out.ogg", [String](), "malformed JSON"),
        ("unknown key", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" }, "gian": 3 } ] }"#, "out.ogg", [], "tracks[0]: unknown key 'gian'"),
        ("unknown curve", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" }, "fadeIn": { "duration": 1, "curve": "cubic" } } ] }"#, "out.ogg", [], "tracks[0].fadeIn.curve: unknown curve 'cubic'"),
        ("negative number", #"{ "duration": -5, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.ogg", [], "duration"),
        ("non-finite number", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" }, "gainDb": 1e999 } ] }"#, "out.ogg", [], "preset.json"),
        ("missing source", #"{ "duration": 10, "tracks": [ { "file": "nowhere.ogg" } ] }"#, "out.ogg", [], "tracks[0].file"),
        ("not audio", #"{ "duration": 10, "tracks": [ { "file": "notes.txt" } ] }"#, "out.ogg", [], "notes.txt"),
        ("missing output folder", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "no/such/folder/out.ogg", [], "does not exist"),
        ("unknown extension", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.wma", [], "unknown output extension"),
        ("bad duration option", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.ogg", ["--duration", "soon"], "--duration"),
        ("bad quality option", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.ogg", ["--quality", "3"], "--quality"),
        ("float FLAC", #"{ "duration": 10, "output": { "bitDepth": "float" }, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.flac", [], "FLAC"),
        // The engine names settings; the command line words them as its options.
        ("start past the end", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.ogg", ["--start", "20"],
         "Error: --start 20.0 s is not before the end of the render (10.0 s)"),
        ("end before start", #"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, "out.ogg", ["--start", "5", "--end", "4"],
         "Error: --end must be after --start"),
        ("tone above Nyquist", #"{ "duration": 10, "output": { "sampleRate": 8000 }, "tracks": [ { "tone": { "frequencyHz": 5000 } } ] }"#, "out.ogg", [],
         "tracks[0].tone.frequencyHz: 5000 Hz is not below half the output rate (4000 Hz at 8000 Hz)"),
    ])
    func badInputFailsCleanly(what: String, json: String, output: String, extra: [String], fragment: String) throws {
        let s = try TemporaryFolder()
        _ = try s.write("notes.txt", "these are not sounds\n")
        let preset = try s.write("preset.json", json)
        let before = s.contents
        let r = try CLI.run([preset, "-o", s.path(output)] + extra)
        #expect(r.status != 0, "\(what): exit status 0")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(what): \(r.stderr)")
        #expect(r.stderr.contains(fragment), "\(what): \(r.stderr)")
        #expect(s.contents == before, "\(what): left \(s.contents)")
    }

    @Test func missingPresetIsNamed() throws {
        let s = try TemporaryFolder()
        let r = try CLI.run([s.path("absent.json"), "-o", s.path("x.ogg")])
        #expect(r.status != 0)
        #expect(r.stderr.contains("absent.json"))
        #expect(s.contents.isEmpty)
    }

    /// Starts an 8-hour render into `s` and returns once it holds its output file open in that folder (an
    /// unnamed file, or the hidden temporary name where the file system cannot make unnamed ones).
    func startLongRender(in s: TemporaryFolder) throws -> Process {
        let preset = try s.write("long.json", #"{ "duration": "8h", "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        let p = Process()
        p.executableURL = try CLI.executable
        p.arguments = [preset, "-o", s.path("long.wav"), "--quiet"]
        try p.run()
        func writing() -> Bool {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/fd")) ?? []
            return fds.contains { fd in
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(p.processIdentifier)/fd/\(fd)")) ?? "")
                    .hasPrefix(s.url.path + "/")
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while !writing() && Date() < deadline { usleep(5_000) }
        #expect(writing(), "the render never started writing")
        return p
    }

    @Test func interruptedRenderLeavesNothing() throws {
        let s = try TemporaryFolder()
        let p = try startLongRender(in: s)
        kill(p.processIdentifier, SIGINT)        // Ctrl-C
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        #expect(s.contents == ["long.json"])
    }

    /// A render killed outright (SIGKILL: no handler runs) leaves nothing either, where the file system can
    /// make unnamed files (`O_TMPFILE`): the file being written has no name until it is complete.
    @Test func killedRenderLeavesNothing() throws {
        let s = try TemporaryFolder()
        let p = try startLongRender(in: s)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal)
        #expect(s.contents == ["long.json"])
    }

    /// An output that is one of the render's inputs is refused, however it is named; nothing is written and
    /// the input is untouched.
    @Test func anOutputThatIsAnInputIsRefused() throws {
        let s = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: s.path("sounds"), withIntermediateDirectories: false)
        let source = s.path("sounds/surf.wav")
        _ = try s.wav("sounds/surf.wav", rate: 8000, channels: 1, frames: 8000) { i, _ in Float(i % 80) / 100 }
        let original = try Data(contentsOf: URL(fileURLWithPath: source))
        try FileManager.default.createSymbolicLink(atPath: s.path("link.wav"), withDestinationPath: "sounds/surf.wav")
        try FileManager.default.linkItem(atPath: source, toPath: s.path("hard.wav"))
        let preset = try s.write("p.json", #"{ "duration": 2, "tracks": [ { "file": "sounds/surf.wav", "loop": { "crossfade": 0.2 } } ] }"#)
        let before = s.contents
        for output in ["sounds/surf.wav", "./sounds/../sounds/surf.wav", "link.wav", "hard.wav"] {
            let r = try CLI.run([preset, "-o", output], in: s.url)
            #expect(r.status != 0, "\(output)")
            #expect(r.stderr.hasPrefix("Error: cannot write '\(output)': the output is a file the render reads (\(preset): tracks[0].file)")
                    && r.stderr.hasSuffix("; writing there would destroy it\n"), "\(output): \(r.stderr)")
        }
        let r = try CLI.run([preset, "-o", "out.wav", "--waveform", "p.json"], in: s.url)
        #expect(r.stderr == "Error: cannot write 'p.json': --waveform is the preset being rendered ('\(preset)'); writing there would destroy it\n", "\(r.stderr)")
        #expect(s.contents == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == original)
    }

    /// Sources that are not regular files would block or never end; a NUL in a path would be cut by C.
    @Test func hostileSourcesAreRefusedWithoutHanging() throws {
        let s = try TemporaryFolder()
        #expect(mkfifo(s.path("fifo.wav"), 0o644) == 0)
        for (file, fragment) in [(s.path("fifo.wav"), "not a regular file"), ("/dev/stdin", "not a regular file"),
                                 ("/dev/zero", "not a regular file"), ("a\\u0000b.wav", "a path cannot contain a NUL character")] {
            let preset = try s.write("p.json", #"{ "duration": 2, "tracks": [ { "file": "\#(file)" } ] }"#)
            let r = try CLI.run(["validate", preset])
            #expect(r.status != 0, "\(file)")
            #expect(r.stderr.hasPrefix("Error: \(preset): tracks[0].file: ") && r.stderr.contains(fragment), "\(file): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
    }

    /// Times beyond what the engine represents are refused with the limit, in the preset and on the command line,
    /// and an override is checked like the preset's own duration.
    @Test func hugeTimesAndOverridesAreChecked() throws {
        let s = try TemporaryFolder()
        let cases: [(json: String, extra: [String], expected: String)] = [
            (#"{ "duration": "99999999999999999999", "tracks": [ { "generator": { "type": "pink" } } ] }"#, [],
             "duration: '99999999999999999999' is longer than 100h, the longest time mixrender takes"),
            (#"{ "duration": 1e300, "tracks": [ { "generator": { "type": "pink" } } ] }"#, [],
             "duration: 1e+300 is longer than 100h"),
            (#"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" }, "end": "9999999999999999999999h" } ] }"#, [],
             "tracks[0].end: '9999999999999999999999h' is longer than 100h"),
            (#"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" }, "loop": false, "fadeIn": 1e19 } ] }"#, [],
             "tracks[0].fadeIn: 1e+19 is longer than 100h"),
            (#"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, ["--duration", "9999999999h"],
             "Error: --duration 9999999999h is longer than 100h, the longest time mixrender takes"),
            (#"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, ["--start", "999999999h"],
             "Error: --start 999999999h is longer than 100h"),
            (#"{ "duration": 10, "tracks": [ { "generator": { "type": "pink" } } ] }"#, ["--duration", "0"],
             "Error: --duration must be longer than 0"),
            // A preset that contradicts itself stays an error under an override (one that fits its own length is fitted to it: FadeFittingTests).
            (#"{ "duration": "10m", "master": { "fadeOut": "20m" }, "tracks": [ { "generator": { "type": "pink" } } ] }"#, ["--duration", "1h"],
             "master.fadeOut: 20m is longer than the preset's duration (10m)"),
        ]
        for (json, extra, expected) in cases {
            let preset = try s.write("p.json", json)
            let r = try CLI.run([preset, "-o", s.path("out.wav")] + extra)
            #expect(r.status != 0 && r.status < 128, "\(json) \(extra): status \(r.status)")
            #expect(r.stderr.contains(expected) && r.stderr.split(separator: "\n").count == 1, "\(json) \(extra): \(r.stderr)")
            #expect(s.contents == ["p.json"])
        }
    }

    /// Past the file size limit (`ulimit -f`), the render stops with one line naming the output, and no
    /// temporary file is left (SIGXFSZ would have killed it with the file half-written).
    @Test func theFileSizeLimitIsAnErrorNotADeath() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": "10m", "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "ulimit -f 200; exec \"$0\" \"$1\" -o \"$2\" --quiet", try CLI.executable.path, preset, s.path("out.wav")]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 1, "status \(p.terminationStatus)")
        #expect(stderr.hasPrefix("Error: cannot write '\(s.path("out.wav"))': ") && stderr.contains("the file grew past the largest size the file system (or the process's limit) allows"), "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 1)
        #expect(s.contents == ["p.json"])
    }

    /// `output.bitrate` and `output.quality` together is a mistake in the preset; `--quality` on the command line
    /// replaces a preset's bitrate (and `--bitrate` its quality), since the command line chooses for this output.
    @Test func aBitrateAndAQuality() throws {
        let s = try TemporaryFolder()
        let both = try s.write("both.json", #"{ "duration": 2, "output": { "quality": 0.5, "bitrate": 128 }, "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        let r = try CLI.run([both, "-o", s.path("o.mp3")])
        #expect(r.status == 1 && r.stderr == "Error: \(both): output.bitrate: give a quality or a bitrate, not both (the bitrate is for MP3 and Opus; quality 0 to 1 for Ogg Vorbis, MP3 and Opus)\n", "\(r.stderr)")
        let cbr = try s.write("cbr.json", #"{ "duration": 2, "output": { "bitrate": 96 }, "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        #expect(try CLI.run([cbr, "-o", s.path("cbr.mp3"), "-q"]).status == 0)
        let tag = try #require(LAMETag.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: s.path("cbr.mp3"))))))
        #expect(Set(tag.frameBitrates) == [96] && tag.kind == "Info" && tag.gaplessFrameCount == 96_000)
        // The same preset at a quality from the command line: LAME's variable bitrate.
        #expect(try CLI.run([cbr, "-o", s.path("vbr.mp3"), "-q", "--quality", "0.6"]).status == 0)
        let vbr = try #require(LAMETag.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: s.path("vbr.mp3"))))))
        #expect(vbr.kind == "Xing" && vbr.gaplessFrameCount == 96_000)
        // And a bitrate for a lossless file is no error (it has none to set, as it has no quality).
        #expect(try CLI.run([cbr, "-o", s.path("o.flac"), "-q"]).status == 0)
    }

    @Test func commandLineMistakesAreOneLine() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": 2, "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        for (arguments, expected) in [
            ([preset, "-o", s.path("o.wav"), "--sample-rate", "-5"], "Error: --sample-rate must be between 8000 and 192000 Hz"),
            ([preset, "-o", s.path("o.wav"), "--quality", "-1"], "Error: --quality must be between 0 and 1"),
            ([preset, "-o", s.path("o.wav"), "--sample-rate", "99999999999999999999999"], "Error: The value '99999999999999999999999' is invalid"),
            ([preset, "-o", s.path("o.wav"), "--bogus"], "Error: Unknown option '--bogus'"),
            ([preset, "-o"], "Error: Missing value for '-o <output>'"),
            (["waveform", preset, "--width", "-1"], "Error: --width must be at least 1, not -1"),
            ([preset, "-o", s.path("o.mp3"), "--bitrate", "128", "--quality", "0.5"], "Error: --bitrate and --quality cannot be given together; give one"),
            ([preset, "-o", s.path("o.mp3"), "--bitrate", "100"],
             "Error: cannot write '\(s.path("o.mp3"))': an MP3 at 48000 Hz has no bitrate of 100 kbit/s (it takes 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)"),
            ([preset, "-o", s.path("o.mp3"), "--bitrate", "9999"], "Error: --bitrate must be between 6 and 512 kbit/s"),
            ([preset, "-o", s.path("o.opus"), "--bitrate", "8"], "Error: cannot write '\(s.path("o.opus"))': Ogg Opus takes 12 to 512 kbit/s for 2 channels (6 to 256 each), not 8"),
            ([preset, "-o", s.path("o.ogg"), "--bitrate", "128"], "Error: cannot write '\(s.path("o.ogg"))': Ogg Vorbis takes a quality, not a bitrate"),
        ] {
            let r = try CLI.run(arguments)
            #expect(r.status != 0, "\(arguments)")
            #expect(r.stderr.hasPrefix(expected) && r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
        }
        #expect(s.contents == ["p.json"])
    }

    @Test func quietMeansNoWarnings() throws {
        let s = try TemporaryFolder()
        _ = try s.wav("short.wav", rate: 8000, channels: 1, frames: 8000) { i, _ in Float(i % 80) / 100 }
        let preset = try s.write("p.json", #"{ "duration": 2, "tracks": [ { "file": "short.wav", "loop": { "crossfade": 0.8 } } ] }"#)
        let loud = try CLI.run([preset, "-o", s.path("a.wav")])
        #expect(loud.stderr.hasPrefix("warning: ") && loud.stderr.contains("longer than half the 1.0 s loop"))
        let quiet = try CLI.run([preset, "-o", s.path("b.wav"), "-q"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet.stderr)")
    }

    /// `info` describes every file it can and reports each one it cannot.
    @Test func infoReportsEveryFile() throws {
        let s = try TemporaryFolder()
        let good = try s.wav("good.wav", rate: 8000, channels: 1, frames: 800) { _, _ in 0.1 }
        let text = try s.write("notes.txt", "not audio\n")
        let r = try CLI.run(["info", s.path("missing.wav"), good, text, good])
        #expect(r.status == 1)
        #expect(r.stdout.components(separatedBy: "file      \(good)").count == 3)
        #expect(r.stderr.split(separator: "\n").count == 2 && r.stderr.contains("missing.wav") && r.stderr.contains("notes.txt"), "\(r.stderr)")
    }

    /// A web page saved as .mp3, and a track that uses it: one line of error each, with the real cause, and
    /// none of the MP3 decoder library's own notes ("Note: Illegal Audio-MPEG-Header ...").
    @Test func aWebPageNamedMP3IsOneLineWithItsCause() throws {
        let s = try TemporaryFolder()
        let page = try s.write("waves.mp3", "<!DOCTYPE html><html><body>404 Not Found</body></html>\n")
        let info = try CLI.run(["info", page])
        #expect(info.status == 1)
        #expect(info.stderr == "Error: cannot open '\(page)': not an audio format mixrender can read (avformat_open_input)\n")
        let preset = try s.write("p.json", #"{ "duration": 5, "tracks": [ { "file": "waves.mp3" } ] }"#)
        let render = try CLI.run([preset, "-o", s.path("out.ogg")])
        #expect(render.status != 0)
        #expect(render.stderr.split(separator: "\n").count == 1 && render.stderr.contains("tracks[0].file"), "\(render.stderr)")
    }

    /// A destination name as long as a file system allows still works: the hidden temporary name is shortened.
    @Test func theLongestFileNameWorks() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": 1, "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        let name = String(repeating: "n", count: 251) + ".wav"
        let r = try CLI.run([preset, "-o", s.path(name), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(s.contents == [name, "p.json"])
    }

    /// The preview is at most 1000 columns wide, whatever COLUMNS says.
    @Test func anAbsurdTerminalWidthIsCapped() throws {
        let s = try TemporaryFolder()
        let wav = try s.wav("w.wav", rate: 8000, channels: 1, frames: 8000) { i, _ in Float(i % 80) / 100 }
        let r = try CLI.run(["waveform", wav], environment: ["COLUMNS": "100000000"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").allSatisfy { $0.unicodeScalars.count <= 1000 + 40 })
    }

    /// A 50 ms sound looped with the default 1 s crossfade: the seam can be at most half the loop, and a seam
    /// that long fades the sound's attack in at every repetition (8 dB low here). The seam is shortened to
    /// keep the loop at the file's level, and a warning says so.
    @Test func aShortLoopKeepsItsLevel() throws {
        let s = try TemporaryFolder()
        var state: UInt64 = 7
        let drip = try s.wav("drip.wav", rate: 48_000, frames: 2400) { i, _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return 0.6 * Float(Double(state >> 11) / Double(1 << 53) - 0.5) * Float(exp(-Double(i) / 300))
        }
        let preset = try s.write("p.json", """
            { "duration": 3, "output": { "channels": 1, "bitDepth": "float" }, "tracks": [ { "file": "drip.wav", "loop": true } ] }
            """)
        let r = try CLI.run([preset, "-o", s.path("out.wav")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("tracks[0].loop.crossfade: 1.0 s is longer than half the 0.05 s loop; using 0.0"), "\(r.stderr)")
        #expect(r.stderr.contains("since a 0.025 s seam would play it"), "\(r.stderr)")
        let source = try readAll(try AudioFile.open(path: drip))
        let out = try readAll(try AudioFile.open(path: s.path("out.wav")))
        // The repetitions after the first (frame 2400 on) are within the 0.5 dB the seam is chosen for.
        let change = dB(rms(out[2400..<(2400 + 2400 * 50)])) - dB(rms(source[...]))
        #expect(abs(change) < 0.5, "\(change) dB")
    }

    /// A thousand one-shots of one sound render (their file decoded once and shared: see PipelineTests
    /// `aFileOnManyTracksIsPreparedOnceAndShared`); past the documented 4096 tracks or playlist files, a preset
    /// is refused with the limit.
    @Test func manyTracksCostWhatSoundsAndHaveALimit() throws {
        let s = try TemporaryFolder()
        _ = try s.wav("tick.wav", rate: 44_100, frames: 44_100) { i, _ in Float(sin(Double(i) * 0.07)) * 0.5 }
        let track = #"{ "file": "tick.wav", "gainDb": -60 }"#
        let many = try s.write("many.json", #"{ "duration": 2, "tracks": ["# + Array(repeating: track, count: 1000).joined(separator: ",") + "] }")
        let r = try CLI.run([many, "-o", s.path("many.wav"), "-q"])
        #expect(r.status == 0, "\(r.stderr)")

        let tooMany = try s.write("too.json", #"{ "duration": 2, "tracks": ["# + Array(repeating: track, count: 4097).joined(separator: ",") + "] }")
        let refused = try CLI.run([tooMany, "-o", s.path("too.wav")])
        #expect(refused.status == 1 && refused.stderr == "Error: \(tooMany): tracks: 4097 tracks; a preset has at most 4096\n", "\(refused.stderr)")
        let files = Array(repeating: #""tick.wav""#, count: 4097).joined(separator: ",")
        let longList = try s.write("list.json", #"{ "duration": 2, "tracks": [ { "playlist": { "files": ["# + files + "] } } ] }")
        let list = try CLI.run([longList, "-o", s.path("list.wav")])
        #expect(list.status == 1 && list.stderr.contains("tracks[0].playlist.files: 4097 files; a playlist lists at most 4096"), "\(list.stderr)")
    }
}

/// `-o` given again: several files from one render (issue 56).
@Suite struct SeveralOutputsCLITests {
    static let preset = #"{ "duration": 2, "output": { "sampleRate": 16000 }, "tracks": [ { "tone": { "frequencyHz": 330 }, "volume": 0.4 } ] }"#

    @Test func severalFilesFromOneRender() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let run = try CLI.run([preset, "-o", "a.flac", "-o", "a.ogg", "-o", "a.m4a", "--report", "r.json"], in: s.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(s.contents == ["a.flac", "a.m4a", "a.ogg", "p.json", "r.json"])
        #expect(run.stdout.hasPrefix("wrote     a.flac\n"), "\(run.stdout)")
        #expect(run.stdout.contains("also      a.ogg: ") && run.stdout.contains("also      a.m4a: "), "\(run.stdout)")
        for name in ["a.flac", "a.ogg", "a.m4a"] { #expect(try AudioFileInfo.read(path: s.path(name)).frameCount == 2 * 16000, "\(name)") }
        let report = try readJSONObject(s.path("r.json"))
        let outputs = try #require(report["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["path"] as? String } == ["a.flac", "a.ogg", "a.m4a"])
        let schema = try ReportCLITests.schema()
        let problems = ReportCLITests.check(report, against: schema, root: schema)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test(arguments: [
        (["-o", "a.flac", "-o", "-", "--format", "ogg"], "-o -"),
        (["-o", "a.flac", "-o", "b.ogg", "--format", "ogg"], "--format"),
        (["-o", "a.flac", "-o", "a.flac"], "a.flac"),
        (["-o", "a.flac", "-o", "b.xyz"], "b.xyz"),
    ])
    func badOutputListsWriteNothing(arguments: [String], fragment: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let run = try CLI.run([preset] + arguments, in: s.url)
        #expect(run.status != 0 && run.stderr.contains(fragment), "\(run.stderr)")
        #expect(s.contents == ["p.json"])
    }
}
