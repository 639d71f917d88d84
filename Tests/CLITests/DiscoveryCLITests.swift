import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// What a newcomer finds without reading the source (issue 28): `mixrender kinds` lists every kind of source with
/// its settings, as the preset reader takes them, and `mixrender presets` what ships.
@Suite struct DiscoveryCLITests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// `kinds --json` names the kinds and settings the schema does (both come from the kinds' declarations; the
    /// schema is what editors check presets against), and every setting says what it is.
    @Test func kindsListsEveryKindAndSettingTheSchemaHas() throws {
        let run = try CLI.run(["kinds", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let kinds = try #require(try Self.object(run.stdout)["kinds"] as? [[String: Any]])
        let schema = try Self.object(String(contentsOf: Self.repository.appendingPathComponent("docs/preset.schema.json"), encoding: .utf8))
        let defs = try #require(schema["$defs"] as? [String: Any])
        let track = try #require((defs["track"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let schemaKinds = track.compactMap { ($0["required"] as? [String])?.first }
        #expect(kinds.compactMap { $0["key"] as? String } == schemaKinds)
        for kind in kinds {
            let key = try #require(kind["key"] as? String)
            #expect(!((kind["description"] as? String) ?? "").isEmpty, "\(key) has no description")
            guard let settings = kind["settings"] as? [[String: Any]] else {
                #expect(kind["value"] != nil, "\(key) has neither settings nor a value")
                continue
            }
            let properties = try #require((defs[key] as? [String: Any])?["properties"] as? [String: Any], "\(key)")
            #expect(Set(settings.compactMap { $0["key"] as? String }) == Set(properties.keys), "\(key)")
            let required = Set(((defs[key] as? [String: Any])?["required"] as? [String]) ?? [])
            for setting in settings {
                let name = "\(key).\(setting["key"] as? String ?? "?")"
                #expect(!((setting["description"] as? String) ?? "").isEmpty, "\(name) has no description")
                #expect((setting["required"] as? Bool) == required.contains(setting["key"] as? String ?? ""), "\(name)")
            }
        }
    }

    /// The text: a line per kind, then one per setting with what it takes and its default.
    @Test func kindsAsTextSaysWhatEachSettingTakes() throws {
        let run = try CLI.run(["kinds", "rain", "generator"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { String($0) }
        #expect(lines.first?.hasPrefix("rain: Endless procedural rain") == true, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("  intensity ") && $0.contains("0 to 1, default 0.5: ") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("generator: ") }, "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("  type ") && $0.contains("white, pink or brown, required") }, "\(run.stdout)")
        #expect(!run.stdout.contains("wind:"), "only the kinds asked for: \(run.stdout)")
    }

    @Test func anUnknownKindIsNamedWithTheOneMeant() throws {
        let run = try CLI.run(["kinds", "rian"])
        #expect(run.status != 0)
        #expect(run.stderr.hasPrefix("Error: unknown kind 'rian'; did you mean 'rain'? the kinds are file, generator, "), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// From the project's folder, `presets` lists every preset that ships, each read as a render reads it.
    @Test func presetsListsWhatShips() throws {
        let run = try CLI.run(["presets", "--json"], in: Self.repository)
        #expect(run.status == 0, "\(run.stderr)")
        let listed = try #require(try Self.object(run.stdout)["presets"] as? [[String: Any]])
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("presets").path)
            .filter { $0.hasSuffix(".json") }.sorted().map { "presets/" + $0 }
        #expect(listed.compactMap { $0["path"] as? String } == shipped)
        for preset in listed {
            #expect(preset["error"] == nil, "\(preset)")
            #expect(["mix", "session"].contains(preset["kind"] as? String), "\(preset)")
            #expect(!((preset["tracks"] as? [Any]) ?? []).isEmpty, "\(preset)")
        }
        let night = try #require(listed.first { $0["path"] as? String == "presets/night.json" })
        #expect(night["kind"] as? String == "mix" && night["duration"] as? Double == 3600 && night["name"] as? String == "Night outdoors")
        let hypnosis = try #require(listed.first { $0["path"] as? String == "presets/sleep-hypnosis.json" })
        #expect(hypnosis["kind"] as? String == "session" && (hypnosis["sections"] as? Int ?? 0) > 0)

        let text = try CLI.run(["presets"], in: Self.repository)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.split(separator: "\n").count == shipped.count)
        #expect(text.stdout.contains("presets/night.json") && text.stdout.contains("Night outdoors") && text.stdout.contains("mix, 1h, 48000 Hz stereo: rain, wind"), "\(text.stdout)")
    }

    /// A folder with a preset that does not read: the others are listed, it is listed with its error, the command fails.
    @Test func aPresetThatDoesNotReadIsListedWithItsError() throws {
        let s = try TemporaryFolder()
        _ = try s.write("a.json", #"{ "duration": 10, "tracks": [ { "tone": { "frequencyHz": 440 } } ] }"#)
        _ = try s.write("b.json", #"{ "duration": 10, "tracks": [ { "tone": { "frequencyHz": 440, "wave": "sine" } } ] }"#)
        _ = try s.write("notes.txt", "not a preset")
        let run = try CLI.run(["presets", "."], in: s.url)
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map { String($0) }
        #expect(lines.count == 2, "\(run.stdout)")
        #expect(lines.first?.hasPrefix("./a.json") == true && lines.first?.contains("mix, 10s") == true, "\(run.stdout)")
        #expect(lines.last?.hasPrefix("./b.json") == true && lines.last?.contains("invalid: ") == true && lines.last?.contains("wave") == true, "\(run.stdout)")
        let missing = try CLI.run(["presets", "nowhere"], in: s.url)
        #expect(missing.status != 0 && missing.stderr == "Error: nowhere: no such preset file or folder\n", "\(missing.stderr)")
    }
}
