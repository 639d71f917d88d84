import DSPTestSupport
import Foundation
import Glibc
import MixIO
import TestSupport
import Testing

/// Every write path fails loudly when its bytes cannot be written (a full device, a full file system, a closed
/// pipe), in words for a person and with nothing claimed written; standard output that cannot be written fails
/// every command; every integer format of one render holds the same samples (issue 21).
@Suite struct WritePathCLITests {
    static let preset = #"{ "name": "Writes", "duration": 20, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -10 }, { "tone": { "frequencyHz": 330 }, "gainDb": -6 } ] }"#

    /// Runs mixrender with standard output into `/dev/full`; returns its standard error and status.
    static func runToFullDevice(_ arguments: [String]) throws -> (stderr: String, status: Int32) {
        let p = Process()
        p.executableURL = try CLI.executable
        p.arguments = arguments
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        p.standardOutput = full
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (String(decoding: e, as: UTF8.self), p.terminationStatus)
    }

    /// `-o - > /dev/full` in every format that streams: exit 1, one line saying the device is full, no summary.
    @Test(arguments: ["mp3", "ogg", "opus", "flac"])
    func aStreamToAFullDeviceFails(_ format: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let run = try Self.runToFullDevice([preset, "-o", "-", "--format", format])
        #expect(run.status == 1)
        // An MP3 stream's warning about its missing LAME header may come first; the error is the last line.
        #expect(run.stderr.hasSuffix("\nError: cannot write 'standard output': no space left on the device (write)\n")
                || run.stderr == "Error: cannot write 'standard output': no space left on the device (write)\n", "\(run.stderr)")
        #expect(!run.stderr.contains("wrote"), "\(run.stderr)")
    }

    /// `-o - | head -c 1000` in every format that streams: exit 1, the reader went away, no summary.
    @Test(arguments: ["mp3", "ogg", "opus", "flac"])
    func aStreamWhoseReaderLeavesFails(_ format: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let run = try StreamCLITests.runToPipe([preset, "-o", "-", "--format", format, "-q"], closingEarly: true)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: cannot write 'standard output': the program reading it stopped (the pipe was closed)"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1 && !run.stderr.contains("wrote"), "\(run.stderr)")
    }

    /// Whether this process may mount a tmpfs (root, in a namespace that allows it): the full file system test
    /// needs one.
    static let canMount: Bool = {
        guard getuid() == 0, let s = try? TemporaryFolder() else { return false }
        defer { umount(s.path("m")) }
        try? FileManager.default.createDirectory(atPath: s.path("m"), withIntermediateDirectories: true)
        return mount("tmpfs", s.path("m"), "tmpfs", 0, "size=64k") == 0
    }()

    /// Two minutes to a 1 MiB file system, every format: exit 1, "no space left on the device", and no file
    /// left behind (the MP3 writer once said "wrote 2:00.000" over a file holding 1:07).
    @Test(.enabled(if: canMount), arguments: ["mp3", "ogg", "opus", "flac", "wav", "aiff", "caf", "m4a"])
    func aRenderToAFullFileSystemFails(_ format: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset.replacingOccurrences(of: #""duration": 20"#, with: #""duration": 120"#))
        let folder = s.path("full")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #require(mount("tmpfs", folder, "tmpfs", 0, "size=1m") == 0)
        defer { umount(folder) }
        let run = try CLI.run([preset, "-o", folder + "/out." + format, "-q"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("Error: cannot write '\(folder)/out.\(format)': no space left on the device"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// The audio fits but its tags do not: TagLib ignores failed writes, and a 48-second Ogg whose 192 KB of tags
    /// met a full 1 MiB file system was left 44 seconds long with exit 0. Room is reserved before tagging, so it
    /// fails with one line and leaves nothing.
    @Test(.enabled(if: canMount))
    func tagsThatDoNotFitOnTheDiskFail() throws {
        let s = try TemporaryFolder()
        let tags = Array(repeating: "\"" + String(repeating: "m", count: 16_000) + "\"", count: 12).joined(separator: ",")
        let preset = try s.write("p.json", #"{ "name": "T", "duration": 48, "output": { "tags": { "mood": [\#(tags)] } }, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -10 } ] }"#)
        let folder = s.path("full")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #require(mount("tmpfs", folder, "tmpfs", 0, "size=1m") == 0)
        defer { umount(folder) }
        let run = try CLI.run([preset, "-o", folder + "/t.ogg", "-q"])
        #expect(run.status == 1)
        #expect(run.stderr == "Error: cannot write '\(folder)/t.ogg': cannot write its tags, chapters and ReplayGain: no space left on the device (fallocate)\n", "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// `key`, `info`, `loudness --json` (and any command) with standard output into `/dev/full`: exit 1, one line.
    @Test func aCommandWhoseOutputCannotBeWrittenFails() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let audio = s.path("a.flac")
        #expect(try CLI.run([preset, "-o", audio, "-q"]).status == 0)
        for arguments in [["key", preset], ["info", audio], ["loudness", "--json", audio], ["loudness", audio], ["validate", preset]] {
            let run = try Self.runToFullDevice(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == "Error: cannot write 'standard output': no space left on the device\n", "\(arguments): \(run.stderr)")
        }
    }

    /// One render in every integer format at 16 and 24 bits (WAV, AIFF, FLAC, ALAC in CAF) decodes to the same
    /// integers, sample for sample: libsndfile's FLAC path rounded where its PCM path truncated, 1 LSB apart in
    /// about half the samples, so parts in different lossless formats did not join to the full render. CAF at
    /// 24 bits is mono (24-bit ALAC in stereo is refused).
    @Test(arguments: [(16, 2), (24, 1)])
    func everyIntegerFormatHoldsTheSameSamples(_ bits: Int, _ channels: Int) throws {
        let s = try TemporaryFolder()
        let json = #"{ "name": "Same", "duration": 3, "output": { "bitDepth": \#(bits), "channels": \#(channels) }, "tracks": [ { "generator": { "type": "pink", "seed": 5 }, "gainDb": -4 }, { "tone": { "frequencyHz": 441 }, "gainDb": -9 } ] }"#
        let preset = try s.write("p.json", json)
        var decoded: [String: [Int32]] = [:]
        for format in ["wav", "aiff", "flac", "caf"] {
            let path = s.path("out.\(format)")
            let run = try CLI.run([preset, "-o", path, "-q"])
            try #require(run.status == 0, "\(format): \(run.stderr)")
            let reader = try SoundFileReader(path: path)
            #expect(reader.storedSampleFormat == (bits == 16 ? .pcm16 : .pcm24), "\(format)")
            #expect(reader.channelCount == channels)
            var samples = [Int32](repeating: 0, count: 144_000 * channels + channels)
            let frames = try samples.withUnsafeMutableBufferPointer { try reader.readIntegers(into: $0.baseAddress!, frames: 144_001) }
            #expect(frames == 144_000, "\(format)")
            decoded[format] = Array(samples.prefix(frames * channels))
        }
        let wav = try #require(decoded["wav"])
        #expect(wav.contains { $0 != 0 })
        for (format, samples) in decoded where format != "wav" {
            let differing = zip(wav, samples).filter { $0 != $1 }.count
            #expect(samples.count == wav.count && differing == 0, "\(format): \(differing) of \(wav.count) samples differ from the WAV")
        }
    }
}
