import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Renders longer than a format can describe are refused before anything is rendered, naming the reason and what
/// to use instead (docs/formats.md, "Length limits"); nothing is rendered, so these tests take no time (issue 21).
@Suite struct SizeLimitsCLITests {
    /// 8 hours of 24-bit stereo at 48 kHz is 7.72 GiB: AIFF's 32-bit chunk sizes cannot describe it.
    @Test func anAIFFPastFourGiBIsRefused() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "name": "Eight", "duration": "8h", "output": { "bitDepth": 24 }, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -10 } ] }"#)
        let out = s.path("night.aiff")
        let run = try CLI.run([preset, "-o", out])
        #expect(run.status == 1)
        #expect(run.stderr == "Error: cannot write '\(out)': AIFF cannot hold this render: its chunk sizes have 32 bits, so its audio must stay under 4 GiB, and 8:00:00 of 2 channels at 48000 Hz at 24 bits is 7.72 GiB; use .wav (RF64 past 4 GiB), .caf or .flac, or render it in parts (--start, --end)\n", "\(run.stderr)")
        #expect(s.contents == ["p.json"])
        // A part of it is an AIFF of its own length, and renders.
        let part = try CLI.run([preset, "-o", s.path("part.aiff"), "--start", "0", "--end", "1s", "-q"])
        #expect(part.status == 0, "\(part.stderr)")
    }

    /// The check is on the size, not the duration: 6 hours of 16-bit stereo at 48 kHz (3.86 GiB) is taken, 6 hours
    /// at 24 bits (5.79 GiB) is not; the limit's edge, to the frame. Checked on the settings, without rendering 4 GB.
    @Test func theAIFFLimitIsOnTheSize() {
        var settings = OutputSettings(format: .aiff, sampleRate: 48_000, channelCount: 2, sampleFormat: .pcm16)
        settings.expectedFrameCount = 6 * 3600 * 48_000
        #expect(SoundFileWriter.validate(settings: settings) == nil)
        settings.sampleFormat = .pcm24
        #expect(SoundFileWriter.validate(settings: settings)?.hasPrefix("AIFF cannot hold this render") == true)
        settings.expectedFrameCount = SoundFileWriter.aiffDataLimit / 6
        #expect(SoundFileWriter.validate(settings: settings) == nil)
        settings.expectedFrameCount! += 1
        #expect(SoundFileWriter.validate(settings: settings) != nil)
    }

    /// 100 hours at 192 kHz is 69,120,000,000 frames, past FLAC's 36-bit count.
    @Test func aFLACPastItsFrameCountIsRefused() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "name": "Long", "duration": "100h", "output": { "sampleRate": 192000 }, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -10 } ] }"#)
        let out = s.path("long.flac")
        let run = try CLI.run([preset, "-o", out])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: cannot write '\(out)': FLAC cannot hold this render: its header counts at most 68719476735 frames (36 bits)"), "\(run.stderr)")
        #expect(s.contents == ["p.json"])
    }
}
