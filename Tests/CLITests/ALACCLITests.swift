import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// 24-bit ALAC in more than one channel is refused before anything is written (libsndfile 1.2.0's encoder
/// corrupts loud stereo audio there: `SoundFileIntegerTests`); 16-bit stereo and 24-bit mono are written. Two
/// processes writing ALAC at once each keep their own scratch file (`ALACScratchFolder`).
@Suite struct ALACCLITests {
    /// libsndfile names its ALAC scratch file from the clock's second: before each encoder had a folder of its own,
    /// two renders started together shared one, and one of them wrote a CAF that did not decode (4 pairs in 6 of
    /// these). Four pairs of renders of different lengths, each pair started at once: every CAF holds exactly the
    /// samples of the same render to WAV, and nothing is left beside them or in the `TMPDIR` they were given.
    @Test func twoProcessesWritingALACAtOnceEachWriteTheirOwnFile() throws {
        let s = try TemporaryFolder()
        let scratch = try TemporaryFolder()
        let preset = try s.preset("""
            { "duration": 12, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -6 } ] }
            """)
        let lengths = ["6", "9"]
        var expected: [String: [Float]] = [:]
        for length in lengths {
            let r = try CLI.run([preset, "-o", s.path("\(length).wav"), "--duration", length, "--quiet"])
            try #require(r.status == 0, "\(r.stderr)")
            expected[length] = try readAll(try AudioFile.open(path: s.path("\(length).wav")))
        }
        let scratchPath = scratch.url.path
        for round in 0..<4 {
            let results = Locked([String: CLI.Result]())
            let outputs = lengths.map { s.path("\(round)-\($0).caf") }
            DispatchQueue.concurrentPerform(iterations: lengths.count) { i in
                let length = lengths[i]
                let r = try? CLI.run([preset, "-o", outputs[i], "--duration", length, "--quiet"],
                                     environment: ["TMPDIR": scratchPath])
                if let r { results.withLock { $0[length] = r } }
            }
            for length in lengths {
                let r = try #require(results.withLock { $0[length] })
                #expect(r.status == 0, "round \(round), \(length) s: \(r.stderr)")
                let samples = try readAll(try AudioFile.open(path: s.path("\(round)-\(length).caf")))
                let same = samples == expected[length]   // not in the expectation, which would print every sample
                #expect(same, "round \(round): the \(length) s CAF holds \(samples.count) samples, not the WAV's \(expected[length]?.count ?? 0)")
            }
        }
        #expect(s.contents.allSatisfy { $0.hasSuffix(".wav") || $0.hasSuffix(".caf") || $0 == "preset.json" }, "\(s.contents)")
        #expect(scratch.contents.isEmpty, "\(scratch.contents)")
    }

    /// libsndfile's ALAC encoder writes past its buffer once a write to its scratch file fails (a render crashed
    /// with signal 11 on a full file system): a render to CAF whose temporary folder has less room than the audio
    /// uncompressed is refused with one line naming the folder, and writes nothing; one with room is written.
    @Test(.enabled(if: WritePathCLITests.canMount))
    func aTemporaryFolderWithoutRoomForTheScratchFileIsRefused() throws {
        let s = try TemporaryFolder()
        let preset = try s.preset("""
            { "duration": 30, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -6 } ] }
            """)
        let small = s.path("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try #require(mount("tmpfs", small, "tmpfs", 0, "size=2m") == 0)
        defer { umount(small) }
        let refused = try CLI.run([preset, "-o", s.path("out.caf"), "-q"], environment: ["TMPDIR": small])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("Error: cannot create '\(s.path("out.caf"))': the temporary folder '\(small)' has 2 MiB free"),
                "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!s.contents.contains("out.caf"))
        let written = try CLI.run([preset, "-o", s.path("short.caf"), "--duration", "3", "-q"], environment: ["TMPDIR": small])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try readAll(try AudioFile.open(path: s.path("short.caf"))).count == 3 * 48_000 * 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty)
    }

    /// A temporary folder that does not exist is said as such, in one line naming it and the file; nothing is
    /// written (libsndfile itself would have put its scratch file in the current folder).
    @Test func aTemporaryFolderThatDoesNotExistIsSaid() throws {
        let s = try TemporaryFolder()
        let preset = try s.preset("""
            { "duration": 2, "tracks": [ { "generator": { "type": "pink", "seed": 3 } } ] }
            """)
        let missing = s.path("missing")
        let r = try CLI.run([preset, "-o", s.path("out.caf"), "-q"], environment: ["TMPDIR": missing])
        #expect(r.status == 1)
        #expect(r.stderr == "Error: cannot create '\(s.path("out.caf"))': the ALAC encoder's scratch folder cannot be made in "
                + "the temporary folder '\(missing)' (No such file or directory); set TMPDIR to a folder you can write (mkdtemp)\n",
                "\(r.stderr)")
        #expect(s.contents == ["preset.json"])
    }

    @Test func twentyFourBitStereoALACIsRefusedAndTheOthersAreWritten() throws {
        let s = try TemporaryFolder()
        func preset(channels: Int, bits: Int) throws -> String {
            try s.write("p\(channels)\(bits).json", """
                { "duration": 1, "output": { "channels": \(channels), "bitDepth": \(bits) },
                  "tracks": [ { "generator": { "type": "white", "seed": 1 }, "gainDb": 6 } ] }
                """)
        }
        let refused = try CLI.run([try preset(channels: 2, bits: 24), "-o", s.path("loud.caf")])
        #expect(refused.status != 0)
        #expect(refused.stderr.hasPrefix("Error: cannot write '\(s.path("loud.caf"))': 24-bit ALAC in more than one channel is refused"), "\(refused.stderr)")
        #expect(!s.contents.contains("loud.caf"))
        for (channels, bits) in [(2, 16), (1, 24)] {
            let r = try CLI.run([try preset(channels: channels, bits: bits), "-o", s.path("ok\(channels)\(bits).caf"), "--quiet"])
            #expect(r.status == 0, "\(channels) ch, \(bits) bit: \(r.stderr)")
            let reader = try AudioFile.open(path: s.path("ok\(channels)\(bits).caf"))
            #expect(try readAll(reader).count == 48_000 * channels)
        }
    }
}
