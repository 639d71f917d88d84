import Foundation
@testable import MixEngine
import Testing

/// A length given by the caller (`--duration`: an app's sleep timer, a batch of previews) fits the fades to it
/// (issue 28): the master's in proportion to the preset's own length, a track's just enough to fit what is left,
/// each with one warning naming the fades; a track that starts after a shorter length is left out (the plan warns that
/// it will not sound). A preset that contradicts itself stays an error.
@Suite struct FadeFittingTests {
    static let night = #"""
        { "duration": "1h", "master": { "fadeIn": "20s", "fadeOut": { "duration": "20m", "curve": "exponential" } },
          "tracks": [ { "generator": { "type": "pink" } },
                      { "generator": { "type": "brown" }, "start": "1m", "fadeIn": "2m" } ] }
        """#

    static func load(_ json: String, duration: Double?) throws -> Preset {
        try PresetLoader.parse(Array(json.utf8), file: "night.json", baseDirectory: ".",
                               overrides: RenderOverrides(durationSeconds: duration))
    }

    @Test func masterFadesKeepTheProgrammesShapeAndTrackFadesFillWhatIsLeft() throws {
        let preset = try Self.load(Self.night, duration: 120)
        let tolerance = 1e-9
        #expect(abs(preset.master.fadeIn!.seconds - 20.0 * 120 / 3600) < tolerance)
        #expect(abs(preset.master.fadeOut!.seconds - 1200.0 * 120 / 3600) < tolerance)
        #expect(preset.master.fadeOut!.curve == .exponential)
        #expect(abs(preset.tracks[1].fadeIn!.seconds - 60) < tolerance)
        #expect(preset.warnings == [
            "night.json: master.fadeIn and master.fadeOut (20s and 20m) do not fit the render: shortened in proportion to the 2m asked for instead of 1h, to 0.667s and 40s",
            "night.json: tracks[1].fadeIn (2m) does not fit the render: shortened to the 1m left at the length asked for, to 1m",
        ])
    }

    /// Fades that fit the length asked for are kept as written, without a warning; so is every fade without an override.
    @Test func fadesThatFitAreKept() throws {
        for duration in [nil, 1500.0, 7200.0] {
            let preset = try Self.load(Self.night, duration: duration)
            #expect(preset.master.fadeIn!.seconds == 20 && preset.master.fadeOut!.seconds == 1200, "\(String(describing: duration))")
            #expect(preset.tracks[1].fadeIn!.seconds == 120)
            #expect(preset.warnings.isEmpty, "\(preset.warnings)")
        }
    }

    /// A track starting at or after a shorter length given by the caller is left out, with a warning, fades and all
    /// (its own preset says when it starts, which a sleep timer cannot know); the tracks before it play as written.
    @Test func aTrackStartingAfterAShorterLengthIsLeftOut() throws {
        let preset = try Self.load(Self.night, duration: 45)
        #expect(preset.tracks.count == 2 && preset.tracks[1].fadeIn!.seconds == 120, "read as written; the plan leaves it out")
        let job = try RenderJob(preset: try JSONValue.parse(Array(Self.night.utf8)), name: "night.json",
                                overrides: RenderOverrides(durationSeconds: 45))
        #expect(job.plan.tracks.count == 1)
        #expect(job.plan.warnings.contains { $0.contains("tracks[1]") && $0.contains("starts at or after the end of the render; it will not sound") },
                "\(job.plan.warnings)")
        // Without an override, the same start is the preset contradicting its own duration.
        let own = #"{ "duration": "1m", "tracks": [ { "generator": { "type": "pink" } }, { "generator": { "type": "brown" }, "start": "1m" } ] }"#
        #expect(throws: EngineError.self) { try Self.load(own, duration: nil) }
        #expect(try Self.load(own, duration: 30).tracks.count == 2)
    }

    @Test func aPresetThatContradictsItselfIsStillAnError() throws {
        let json = #"{ "duration": "10m", "master": { "fadeOut": "20m" }, "tracks": [ { "generator": { "type": "pink" } } ] }"#
        for duration in [nil, 60.0, 3600.0] {
            #expect(throws: EngineError.self) { try Self.load(json, duration: duration) }
        }
        do {
            _ = try Self.load(json, duration: 60)
        } catch {
            #expect("\(error)".contains("master.fadeOut: 20m is longer than the preset's duration (10m)"), "\(error)")
        }
    }
}
