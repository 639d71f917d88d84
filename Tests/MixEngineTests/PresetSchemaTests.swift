import Foundation
@testable import MixEngine
import Testing

/// docs/preset.schema.json is generated: the kinds' parts from their declarations (`PresetSchema`), the rest kept
/// from the file itself. `MIXRENDER_WRITE_SCHEMA=1` rewrites it (`scripts/schema.sh`), and that run fails.
@Suite struct PresetSchemaTests {
    /// The schema, kept once: a resource of MixServer, which the render server serves (`GET /v1/schema`, the page).
    static let file = PresetParserDocsTests.docs.deletingLastPathComponent()
        .appendingPathComponent("Sources/MixServer/Page/preset.schema.json")
    /// Where the documentation names it: a symbolic link to `file` (SwiftPM copies a resource that is a link as a
    /// link, which a bundle cannot follow, so the file is the resource and the link is the docs').
    static let documented = PresetParserDocsTests.docs.appendingPathComponent("preset.schema.json")

    @Test func theSchemaIsGeneratedFromTheKinds() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        let generated = try PresetSchema.generate(from: text)
        if ProcessInfo.processInfo.environment["MIXRENDER_WRITE_SCHEMA"] == "1" {
            try generated.write(to: Self.file, atomically: true, encoding: .utf8)
            Issue.record("wrote \(Self.file.path); run the tests again without MIXRENDER_WRITE_SCHEMA")
            return
        }
        #expect(generated == text, "the preset schema is not what the kinds declare: run scripts/schema.sh")
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: Self.documented.path)
        #expect(link == "../Sources/MixServer/Page/preset.schema.json", "docs/preset.schema.json is not the link to the one schema")
    }

    /// The kinds' parts come from the kinds, not from the file: a template without any of them (no kind's `$defs`,
    /// no kind's track property, an empty `oneOf` and `if`) gives the same document.
    @Test func theKindsPartsComeFromTheKindsNotTheFile() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        let keys = Set(SourceKinds.keys)
        let root = try SchemaValue.parse(text)
        var defs = try #require(root["$defs"]).removing { keys.contains($0) }
        let track = try #require(defs["track"])
        let properties = try #require(track["properties"]).removing { keys.contains($0) }
        defs = defs.setting("track", to: track.setting("properties", to: properties).setting("oneOf", to: .array([]))
                                                .setting("if", to: .object([])))
        let bare = root.setting("$defs", to: defs).text
        #expect(bare != text)
        #expect(try PresetSchema.generate(from: bare) == text)
    }

    /// A declared kind's defaults and ranges are the reader's: the schema's `default` is what a preset that leaves
    /// the setting out gets, and the bounds are where the reader stops.
    @Test func aDeclaredSettingsDefaultIsWhatTheReaderGives() throws {
        let rain = try #require(SourceKindRegistry.standard.kind(forKey: "rain"))
        let intensity = try #require(rain.schema["properties"]?["intensity"])
        #expect(intensity["default"] == .number(0.5))
        #expect(intensity["maximum"] == .number(1))
        let preset = try PresetParserTests.parse(PresetParserTests.preset(tracks: #"{"rain": {}}, {"rain": {"intensity": 1}}"#))
        #expect(preset.tracks[0].source == .rain(RainKind(intensity: 0.5)))
        #expect(preset.tracks[1].source == .rain(RainKind(intensity: 1)))
        PresetParserTests.expectError(PresetParserTests.preset(tracks: #"{"rain": {"intensity": 1.01}}"#), path: "tracks[0].rain.intensity", "out of range")
    }

    /// The chime's sound is read first and sets the defaults its pitch and length then override.
    @Test func aChimesDefaultsFollowItsSound() throws {
        typealias P = PresetParserTests
        let preset = try P.parse(P.preset(tracks: #"{"chime": {"sound": "rise"}}, {"chime": {"pitchHz": 500, "sound": "rise"}}, {"chime": {"sound": "bell", "length": "20s"}}"#))
        #expect(preset.tracks.map(\.source) == [.chime(ChimeKind(sound: .rise)), .chime(ChimeKind(sound: .rise, pitchHz: 500)), .chime(ChimeKind(sound: .bell, seconds: 20))])
        #expect(preset.tracks[0].source == .chime(ChimeKind(sound: .rise, pitchHz: 330, seconds: 4)))
        P.expectError(P.preset(tracks: #"{"chime": {"pitchHz": 500}}"#), path: "tracks[0].chime", "missing required key 'sound' (\"bell\" or \"rise\")")
        P.expectError(P.preset(tracks: #"{"chime": {"sound": "gong"}}"#), path: "tracks[0].chime.sound", "unknown chime 'gong'; expected one of bell, rise")
        P.expectError(P.preset(tracks: #"{"chime": {"sound": "bell", "length": "2m"}}"#), path: "tracks[0].chime.length", "longer than 1m")
    }

    @Test func theSchemaWriterKeepsOrderAndReadsBackItsOwnText() throws {
        let value = SchemaValue.object(["b": .number(0.5), "a": .array([.string("é \"q\"\n"), .bool(true), .null]),
                                        "c": .object([]), "d": .array([]), "e": .number(9_007_199_254_740_992)])
        #expect(value.text == "{\n  \"b\": 0.5,\n  \"a\": [\n    \"é \\\"q\\\"\\n\",\n    true,\n    null\n  ],\n  \"c\": {},\n  \"d\": [],\n  \"e\": 9007199254740992\n}\n")
        #expect(try SchemaValue.parse(value.text) == value)
        #expect(throws: SchemaValue.SyntaxError.self) { try SchemaValue.parse("{\"a\": }") }
    }
}
