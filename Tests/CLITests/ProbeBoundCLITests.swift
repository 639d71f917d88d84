import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// A 1 GB sparse file named as audio (all zeros, no audio in it) fails at once with one clear line in `info`,
/// `loudness` and `waveform`: FFmpeg's probe is bounded (`ReadBound`), where it once read the whole file into
/// memory (2 GiB, 7-16 s) before "has no audio stream" (issue 21). No timing is asserted; the figures are in the
/// issue's report.
@Suite struct ProbeBoundCLITests {
    @Test(arguments: ["mp3", "m4a"])
    func aSparseGigabyteFileFailsClearly(_ ext: String) throws {
        let s = try TemporaryFolder()
        let path = s.path("hostile.\(ext)")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)   // sparse: no disk used
        try handle.close()
        for arguments in [["info", path], ["loudness", path], ["waveform", path, "-o", s.path("w.png")]] {
            let run = try CLI.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: cannot open '\(path)': "), "\(arguments): \(run.stderr)")
            if ext == "mp3" {
                #expect(run.stderr.contains("FFmpeg read 32 MiB and more without finding audio in it"), "\(arguments): \(run.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: s.path("w.png")))
    }
}
