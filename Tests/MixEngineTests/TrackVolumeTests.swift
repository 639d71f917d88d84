import Foundation
import MixDSP
@testable import MixEngine
import Testing

/// A track's `volume` (issue 28): an app slider's linear 0-1 amplitude, read into the track's gain, one of
/// `gainDb`, `volume` and `loudness`; near misses name both ways of setting a level.
@Suite struct TrackVolumeTests {
    static func preset(_ track: String) throws -> Preset {
        try PresetLoader.parse(Array(#"{ "duration": 1, "tracks": [ { "tone": { "frequencyHz": 440 }, \#(track) } ] }"#.utf8),
                               file: "p.json", baseDirectory: ".")
    }

    static func message(_ track: String) -> String {
        do { _ = try preset(track); return "" } catch { return "\(error)" }
    }

    @Test(arguments: [(1.0, 0.0), (0.5, -6.0206), (0.1, -20.0), (0.001, -60.0)])
    func volumeIsALinearAmplitude(_ volume: Double, _ decibels: Double) throws {
        let gain = try Self.preset(#""volume": \#(volume)"#).tracks[0].gainDb
        #expect(abs(gain - decibels) < 1e-4, "volume \(volume): \(gain) dB")
        #expect(abs(MixDSP.gain(fromDecibels: gain) - volume) < 1e-12)
    }

    @Test func volumeZeroSilencesTheTrack() throws {
        let gain = try Self.preset(#""volume": 0"#).tracks[0].gainDb
        #expect(gain == -.infinity && MixDSP.gain(fromDecibels: gain) == 0)
    }

    @Test func oneWayOfSettingTheLevel() {
        #expect(Self.message(#""volume": 0.5, "gainDb": -3"#).contains("tracks[0].volume: a track sets its level by one of 'gainDb', 'volume' and 'loudness'; it gives both 'gainDb' and 'volume'"))
        #expect(Self.message(#""volume": 0.5, "loudness": -30"#).contains("it gives both 'volume' and 'loudness'"))
        #expect(Self.message(#""volume": 1.5"#).contains("tracks[0].volume: 1.5 is out of range; expected 0...1"))
        #expect(Self.message(#""volume": -0.1"#).contains("tracks[0].volume"))
    }

    @Test(arguments: ["gain", "vol", "volum", "level", "amplitude", "Volume_"])
    func nearMissesNameBoth(_ key: String) {
        let message = Self.message(#""\#(key)": 0.5"#)
        #expect(message.contains("tracks[0]: unknown key '\(key)' (did you mean 'gainDb' or 'volume'?)"), "\(message)")
    }

    /// Where only one of them is a key (the master has no volume), only it is named.
    @Test func theMasterHasGainOnly() {
        do {
            _ = try PresetLoader.parse(Array(#"{ "duration": 1, "master": { "gain": -3 }, "tracks": [ { "tone": { "frequencyHz": 440 } } ] }"#.utf8),
                                       file: "p.json", baseDirectory: ".")
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("master: unknown key 'gain' (did you mean 'gainDb'?)"), "\(error)")
        }
    }
}
