import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// The `surf`, `fire` and `crickets` kinds end to end: preset -> plan -> render.
@Suite struct AmbienceKindsTests {
    static func preset(_ source: String, rate: Int = 48000, seconds: Double = 6, extra: String = "") -> String {
        """
        { "duration": \(seconds), "output": { "sampleRate": \(rate), "channels": 2, "bitDepth": "float" },
          "tracks": [ { \(source), "gainDb": -6\(extra) } ] }
        """
    }

    static func render(_ json: String, range: Range<Int64>? = nil) throws -> CaptureEncoder {
        let folder = try TemporaryFolder()
        return try renderToMemory(try folder.preset(json), range: range).0
    }

    static func kind(_ json: String) throws -> any SourceKind {
        try PresetLoader.parse(Data(json.utf8), file: "test.json", baseDirectory: ".").tracks[0].source.kind
    }

    @Test func emptySettingsTakeTheDefaults() throws {
        #expect(try Self.kind(Self.preset(#""surf": {}"#)) as? SurfKind == SurfKind(intensity: 0.6, periodSeconds: 3, seed: 1))
        #expect(try Self.kind(Self.preset(#""fire": {}"#)) as? FireKind == FireKind(intensity: 0.5, seed: 1))
        #expect(try Self.kind(Self.preset(#""crickets": {}"#)) as? CricketsKind == CricketsKind(intensity: 0.4, temperatureC: 22, seed: 1))
        #expect(try Self.kind(Self.preset(#""surf": {"intensity": 0.7, "periodSeconds": 12, "seed": 2}"#)) as? SurfKind
                == SurfKind(intensity: 0.7, periodSeconds: 12, seed: 2))
    }

    /// A partial render (the Renderer's `range`) is the slice of the full render: within 1e-6 for surf and fire
    /// (their filters start 0.1 s before the range), exactly for crickets (stateless). The track starts at 1 s.
    @Test(arguments: [(#""surf": {"intensity": 0.8, "periodSeconds": 6, "seed": 3}"#, Float(1e-6)),
                      (#""fire": {"intensity": 0.5, "seed": 4}"#, Float(1e-6)),
                      (#""crickets": {"intensity": 1, "temperatureC": 30, "seed": 5}"#, Float(0))])
    func aPartialRenderIsTheSliceOfTheFullRender(source: String, tolerance: Float) throws {
        let json = Self.preset(source, extra: #", "start": "1s""#)
        let full = try Self.render(json)
        #expect(full.channels[0][..<48_000].allSatisfy { $0 == 0 })
        #expect(dB(rms(full.channels[0][48_000...])) > -60, "\(source) sounds")   // fire is the quietest: -42 dBFS at 0.5
        for range: Range<Int64> in [48_000..<96_000, 100_001..<200_003, 239_000..<288_000] {
            let part = try Self.render(json, range: range)
            for c in 0..<2 {
                let slice = full.channels[c][Int(range.lowerBound)..<Int(range.upperBound)]
                let d = zip(slice, part.channels[c]).map { abs($0 - $1) }.max() ?? .infinity
                #expect(part.channels[c].count == slice.count && d <= tolerance, "\(source) \(range): differs by \(d)")
            }
        }
    }

    @Test func badSettingsNameTheirPath() throws {
        #expect(jobError(Self.preset(#""surf": {"periodSeconds": 20}"#)).hasSuffix("tracks[0].surf.periodSeconds: 20 is out of range; expected 2...14"))
        #expect(jobError(Self.preset(#""surf": {"intensity": 1.5}"#)).hasSuffix("tracks[0].surf.intensity: 1.5 is out of range; expected 0...1"))
        #expect(jobError(Self.preset(#""fire": {"seed": -1}"#)).contains("tracks[0].fire.seed:"))
        #expect(jobError(Self.preset(#""fire": {"crackle": 1}"#)).contains("tracks[0].fire: unknown key 'crackle'"))
        #expect(jobError(Self.preset(#""crickets": {"temperatureC": 40}"#)).hasSuffix("tracks[0].crickets.temperatureC: 40 is out of range; expected 10...35"))
        #expect(jobError(Self.preset(#""crickets": {}"#, rate: 8000))
            .hasSuffix("tracks[0].crickets: crickets sing at 3.8 to 4.8 kHz and need an output rate of at least 16000 Hz, not 8000 Hz"))
        #expect(jobError(Self.preset(#""surf": {}"#, extra: #", "loop": true"#))
            .hasSuffix("tracks[0].loop: generators are endless and cannot loop; 'loop' is for 'file' and 'playlist' tracks"))
        for json in [Self.preset(#""surf": {}"#), Self.preset(#""fire": {}"#), Self.preset(#""crickets": {}"#)] {
            #expect(!jobError(json.replacingOccurrences(of: "{}", with: "{\"seed\": 1e300}")).contains("\n"))
        }
    }
}
