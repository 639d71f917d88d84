import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `output.loopable`: a file that plays on repeat without a seam, in every format: its decoded length is the
/// render's, and its wrap-around (last frame to first) steps no more than the material does anywhere.
@Suite struct LoopableCLITests {
    /// A tone over quiet noise, 10.013 s long (not a whole number of the tone's periods, so a plain render
    /// jumps where it wraps around), with a 2 s loop crossfade.
    static func preset(_ folder: TemporaryFolder, loopable: String = #""2s""#, gainDb: Double = 0, extra: String = "",
                       name: String = "loop.json") throws -> String {
        try folder.write(name, """
            { "duration": 10.013, "output": { "loopable": \(loopable) }\(extra),
              "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": \(gainDb) },
                          { "generator": { "type": "pink", "seed": 3 }, "gainDb": -40 } ] }
            """)
    }

    /// The largest step between consecutive frames of `samples` (interleaved), and the step from the last
    /// frame to the first, over all channels.
    static func steps(_ samples: [Float], channels: Int) -> (largest: Float, wrap: Float) {
        let frames = samples.count / channels
        var largest: Float = 0, wrap: Float = 0
        for c in 0..<channels {
            for i in 1..<frames { largest = max(largest, abs(samples[i * channels + c] - samples[(i - 1) * channels + c])) }
            wrap = max(wrap, abs(samples[c] - samples[(frames - 1) * channels + c]))
        }
        return (largest, wrap)
    }

    static func decode(_ path: String) throws -> (samples: [Float], channels: Int) {
        let reader = try AudioFile.open(path: path)
        return (try readAll(reader), reader.channelCount)
    }

    @Test(arguments: ["wav", "flac", "aiff", "caf", "ogg", "opus", "mp3", "m4a"])
    func theWrapAroundIsSeamlessInEveryFormat(_ format: String) throws {
        let s = try TemporaryFolder()
        let preset = try Self.preset(s)
        let output = s.path("loop.\(format)")
        let r = try CLI.run([preset, "-o", output, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let (samples, channels) = try Self.decode(output)
        // The decoded length is exactly the render's: 10.013 s at 48 kHz.
        #expect(samples.count / channels == 480_624)
        let (largest, wrap) = Self.steps(samples, channels: channels)
        #expect(wrap <= largest, "\(format): wrap-around step \(wrap), largest step within \(largest)")
    }

    /// The check above would catch a seam: the same mix rendered plainly jumps where it wraps around.
    @Test func aPlainRenderOfTheSameMixHasASeam() throws {
        let s = try TemporaryFolder()
        let preset = try Self.preset(s, loopable: "false")
        #expect(try CLI.run([preset, "-o", s.path("plain.wav"), "-q"]).status == 0)
        let (samples, channels) = try Self.decode(s.path("plain.wav"))
        let (largest, wrap) = Self.steps(samples, channels: channels)
        #expect(wrap > 5 * largest, "wrap-around step \(wrap), largest step within \(largest)")
    }

    /// A loud burst of noise 0.15 s before the end: the limiter turns the mix down and is still recovering when
    /// the file ends. The limiter is warmed up on the frames before the end, so the file's start is turned down
    /// as its repeat will be; a limiter starting afresh would leave a step in level at the wrap-around.
    @Test func theLimiterIsInStepAcrossTheWrapAround() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("hot.json", #"""
            { "duration": 10.013, "output": { "loopable": "2s" },
              "tracks": [ { "tone": { "frequencyHz": 440 }, "gainDb": 12 },
                          { "generator": { "type": "white", "seed": 5 }, "gainDb": 24, "loop": false,
                            "start": 9.85, "end": 9.863, "fadeIn": 0.001, "fadeOut": 0.001 } ] }
            """#)
        let r = try CLI.run([preset, "-o", s.path("hot.wav")])
        #expect(r.status == 0 && r.stdout.contains("reduced up to"), "\(r.stdout) \(r.stderr)")
        let (samples, channels) = try Self.decode(s.path("hot.wav"))
        // The tone's level over the last and the first 5 ms (two periods of 440 Hz): the limiter still holds
        // it 4 dB down at the end, and the start must be as far down (a fresh limiter would leave it whole).
        let window = 240 * channels
        let end = peak(samples.suffix(window)), start = peak(samples.prefix(window)), middle = peak(samples[(200_000 * channels)...].prefix(window))
        #expect(dB(Double(middle / end)) > 3, "the limiter is recovering at the end: \(end) against \(middle)")
        #expect(abs(dB(Double(start / end))) < 0.5, "start \(start), end \(end)")
        // And no sample passes the ceiling (-1 dBFS), at the start either.
        #expect(samples.allSatisfy { abs($0) <= 0.8913 + 1e-4 }, "peak \(peak(samples))")
    }

    @Test func whatCannotLoopIsRefused() throws {
        let s = try TemporaryFolder()
        let cases: [(preset: String, extra: [String], expected: String)] = [
            (try Self.preset(s, extra: #", "master": { "fadeOut": "2s" }"#, name: "a.json"), [],
             "output.loopable: a loopable render cannot have a master fade (master.fadeOut): the file would fade where it wraps around to its start; leave the fade to the player's timer"),
            (try Self.preset(s, loopable: #""6s""#, name: "b.json"), [],
             "output.loopable: a 6s crossfade needs a render at least twice as long (12s); the render is 10.013s"),
            (try Self.preset(s, loopable: #""90s""#, name: "c.json"), [], "output.loopable: the loop's crossfade must be between 0.05 and 60 s, not 90.0 s"),
            (try Self.preset(s, name: "d.json"), ["--start", "1"], "Error: --start cannot take part of a loopable render (output.loopable): its start holds its end"),
        ]
        for (preset, extra, expected) in cases {
            let r = try CLI.run([preset, "-o", s.path("out.wav")] + extra)
            #expect(r.status == 1 && r.stderr.contains(expected) && r.stderr.split(separator: "\n").count == 1, "\(expected): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: s.path("out.wav")))
        }
    }

    /// `--loopable` turns a plain preset into a loop with the default 5 s equalPower crossfade; the preset's
    /// master fades (a sleep timer), which a loop cannot have, are left out with a warning.
    @Test func theCommandLineFlagLoops() throws {
        let s = try TemporaryFolder()
        let preset = try Self.preset(s, loopable: "false", extra: #", "master": { "fadeIn": "1s", "fadeOut": "3s" }"#)
        let r = try CLI.run([preset, "-o", s.path("flag.wav"), "--loopable"])
        #expect(r.status == 0)
        #expect(r.stderr == "warning: \(preset): master.fadeIn, master.fadeOut: left out, since this render was made loopable on the command line: a loop fades nowhere (the player's timer does)\n", "\(r.stderr)")
        let (samples, channels) = try Self.decode(s.path("flag.wav"))
        #expect(samples.count / channels == 480_624)
        let (largest, wrap) = Self.steps(samples, channels: channels)
        #expect(wrap <= largest)
    }
}
