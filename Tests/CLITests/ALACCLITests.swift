import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// 24-bit ALAC in more than one channel is refused before anything is written (libsndfile 1.2.0's encoder
/// corrupts loud stereo audio there: `SoundFileIntegerTests`); 16-bit stereo and 24-bit mono are written.
@Suite struct ALACCLITests {
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
