import Foundation
import MixDSP
@testable import MixEngine
import DSPTestSupport
import Testing
import TestSupport

/// The `sweep` kind end to end (preset -> plan -> render): the kind issue 55 added to show that a kind is its folder
/// and one registry line.
@Suite struct SweepKindTests {
    static func preset(_ sweep: String, rate: Int = 48000, seconds: Double = 4, extra: String = "") -> String {
        """
        { "duration": \(seconds), "output": { "sampleRate": \(rate), "channels": 2, "bitDepth": "float" },
          "tracks": [ { "sweep": \(sweep)\(extra) } ] }
        """
    }

    static func render(_ json: String, blockFrames: Int = 4096, range: Range<Int64>? = nil) throws -> CaptureEncoder {
        let folder = try TemporaryFolder()
        return try renderToMemory(try folder.preset(json), blockFrames: blockFrames, range: range).0
    }

    @Test func itGlidesFromTheTracksStartAndHoldsAtMinus18dBFSRMS() throws {
        // 400 -> 100 Hz over 2 s from a track starting at 1 s: 400 Hz just after 1 s, 200 Hz at 2 s, 100 Hz from 3 s.
        let capture = try Self.render(Self.preset(#"{"fromHz": 400, "toHz": 100, "over": "2s"}"#, seconds: 5, extra: #", "start": "1s""#))
        let x = capture.channels[0]
        #expect(capture.channels[1] == x)
        #expect(x[..<48_000].allSatisfy { $0 == 0 })
        for (second, expected) in [(1.05, 400 * pow(0.25, 0.025)), (2.0, 200.0), (4.0, 100.0)] {
            let centre = Int(second * 48_000)
            let measured = zeroCrossingFrequency(x, (centre - 1200)..<(centre + 1200), rate: 48_000)
            #expect(abs(measured / expected - 1) < 0.01, "at \(second) s: \(measured) Hz, expected \(expected)")
        }
        // Held at 100 Hz for the last 2 s: whole cycles, -18 dBFS RMS.
        #expect(abs(dB(rms(x[144_000...])) - (-18)) < 0.01)
    }

    @Test func aWindowIsTheSliceOfTheWholeRenderAndBlocksDoNotMatter() throws {
        let json = Self.preset(#"{"fromHz": 55, "toHz": 880, "over": "3s"}"#, seconds: 5, extra: #", "fadeIn": "0.2s""#)
        let whole = try Self.render(json)
        for range: Range<Int64> in [100_001..<150_003, 140_000..<150_000, 230_000..<240_000] {
            let part = try Self.render(json, range: range)
            #expect(Array(whole.channels[0][Int(range.lowerBound)..<Int(range.upperBound)]) == part.channels[0], "\(range)")
        }
        #expect(try Self.render(json, blockFrames: 1001).channels == whole.channels)
    }

    @Test func badSweepsNameTheirPath() throws {
        #expect(jobError(Self.preset(#"{"fromHz": 100, "toHz": 5000, "over": 1}"#, rate: 8000))
            .hasSuffix("tracks[0].sweep.toHz: 5000 Hz is not below half the output rate (4000 Hz at 8000 Hz)"))
        #expect(jobError(Self.preset(#"{"fromHz": 0, "toHz": 50, "over": 1}"#)).hasSuffix("tracks[0].sweep.fromHz: must be greater than 0"))
        #expect(jobError(Self.preset(#"{"fromHz": 100, "toHz": 50}"#)).contains("tracks[0].sweep: missing required key 'over'"))
        #expect(jobError(Self.preset(#"{"fromHz": 100, "toHz": 50, "over": 0}"#)).contains("tracks[0].sweep.over: must be longer than 0"))
        #expect(jobError(Self.preset(#"{"fromHz": 100, "toHz": 50, "over": "1s"}"#, extra: #", "loop": true"#))
            .hasSuffix("tracks[0].loop: generators are endless and cannot loop; 'loop' is for 'file' and 'playlist' tracks"))
        #expect(jobError(Self.preset(#"{"fromHz": 100, "toHz": 50, "over": "1s", "to": 3}"#)).contains("tracks[0].sweep: unknown key 'to'"))
    }
}
