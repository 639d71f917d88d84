import DSPTestSupport
import Foundation
import MixDSP
@testable import MixEngine
import Testing
import TestSupport

/// The `rain` and `wind` kinds end to end: read with defaults and JSON-path errors, planned, rendered; a
/// partial render is the slice of the full one, bit for bit.
@Suite struct RainWindKindTests {
    typealias P = PresetParserTests

    @Test func readsSettingsWithDefaults() throws {
        let preset = try P.parse(P.preset(tracks: #"{"rain": {}}, {"rain": {"intensity": 0.6, "seed": 4, "brightness": 0.2, "dropsPerSecond": 30}}, {"wind": {"intensity": 0.9, "gustiness": 0.1, "whistle": 0, "seed": 3}}"#))
        #expect(preset.tracks[0].source == .rain())
        #expect(preset.tracks[1].source == .rain(RainKind(intensity: 0.6, brightness: 0.2, dropsPerSecond: 30, seed: 4)))
        #expect(preset.tracks[2].source == .wind(WindKind(intensity: 0.9, gustiness: 0.1, whistle: 0, seed: 3)))
    }

    @Test func badSettingsNameTheirJSONPath() {
        P.expectError(P.preset(tracks: #"{"rain": {"intensity": 1.5}}"#), path: "tracks[0].rain.intensity", "out of range")
        P.expectError(P.preset(tracks: #"{"rain": {"dropsPerSecond": 1e9}}"#), path: "tracks[0].rain.dropsPerSecond", "out of range")
        P.expectError(P.preset(tracks: #"{"rain": {"seed": -1}}"#), path: "tracks[0].rain.seed", "out of range")
        P.expectError(P.preset(tracks: #"{"wind": {"gustiness": "high"}}"#), path: "tracks[0].wind.gustiness", "expected a number")
        P.expectError(P.preset(tracks: #"{"wind": {"whistle": -0.1}}"#), path: "tracks[0].wind.whistle", "out of range")
        P.expectError(P.preset(tracks: #"{"wind": {"gust": 1}}"#), path: "tracks[0].wind", "gust")
        P.expectError(P.preset(tracks: #"{"wind": {}, "loop": true}"#), path: "tracks[0].loop", "cannot loop")
    }

    static let preset = """
        { "duration": 40, "output": { "sampleRate": 16000, "channels": 2, "bitDepth": "float" },
          "tracks": [ { "rain": { "intensity": 0.7, "seed": 9 }, "gainDb": -3 },
                      { "wind": { "intensity": 0.9, "seed": 5 }, "start": 2, "gainDb": -6 } ] }
        """

    /// A partial render (a range starting inside the first epoch's successor's warm-up, 16 s epochs at
    /// 16 kHz) equals the slice of the full render, and the same preset renders the same audio twice.
    @Test func partialRenderIsTheSliceOfTheFullRender() throws {
        let folder = try TemporaryFolder()
        let path = try folder.preset(Self.preset)
        let (full, _, _) = try renderToMemory(path)
        let (again, _, _) = try renderToMemory(path, blockFrames: 1000)
        #expect(full.channels == again.channels)
        #expect(dB(rms(full.channels[0])) > -40, "\(dB(rms(full.channels[0]))) dBFS")
        for range in [Int64(15.5 * 16000)..<Int64(33 * 16000), Int64(16000 * 16)..<Int64(16000 * 16 + 5000)] {
            let (part, _, _) = try renderToMemory(path, range: range)
            for c in 0..<2 {
                #expect(part.channels[c] == Array(full.channels[c][Int(range.lowerBound)..<Int(range.upperBound)]), "\(range), channel \(c)")
            }
        }
    }
}
