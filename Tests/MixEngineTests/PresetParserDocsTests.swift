import Foundation
import MixDSP
import MixIO
@testable import MixEngine
import Testing

/// docs/presets.md and docs/preset.schema.json must stay true to the parser.
@Suite struct PresetParserDocsTests {
    /// The repository's docs folder, found from this file's location (Tests/MixEngineTests/ -> ../../docs).
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs")

    static func reference() throws -> String {
        try String(contentsOf: docs.appendingPathComponent("presets.md"), encoding: .utf8)
    }

    /// The contents of every ```json fence (complete presets; fragments use ```jsonc), with its line number.
    static func jsonBlocks(in markdown: String) -> [(line: Int, text: String)] {
        var blocks: [(Int, String)] = []
        var current: (line: Int, lines: [String])?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed == "```" {
                    blocks.append((block.line, block.lines.joined(separator: "\n")))
                    current = nil
                } else {
                    block.lines.append(String(line))
                    current = block
                }
            } else if trimmed == "```json" {
                current = (index + 1, [])
            }
        }
        return blocks
    }

    @Test func everyCompletePresetInTheReferenceParses() throws {
        let blocks = Self.jsonBlocks(in: try Self.reference())
        #expect(blocks.count >= 10, "found only \(blocks.count) ```json blocks in docs/presets.md")
        for block in blocks {
            do {
                _ = try PresetLoader.parse(Data(block.text.utf8), file: "docs/presets.md:\(block.line)", baseDirectory: "presets")
            } catch {
                Issue.record("the preset at docs/presets.md line \(block.line) does not parse: \(error)")
            }
        }
    }

    /// Every registered kind of source has its doc section in its folder (`SourceKinds/<Kind>/README.md`)
    /// with at least one complete preset using it, which parses; and the reference's table of kinds links it.
    @Test func everyKindOfSourceIsDocumentedBesideItsCode() throws {
        let kindsFolder = Self.docs.deletingLastPathComponent().appendingPathComponent("Sources/MixEngine/SourceKinds")
        let folders = try FileManager.default.contentsOfDirectory(atPath: kindsFolder.path)
        let reference = try Self.reference()
        for kind in SourceKinds.all {
            let documented = try folders.compactMap { folder -> String? in
                let readme = kindsFolder.appendingPathComponent(folder).appendingPathComponent("README.md")
                guard let text = try? String(contentsOf: readme, encoding: .utf8), text.hasPrefix("# `\(kind.key)`") else { return nil }
                let blocks = Self.jsonBlocks(in: text)
                #expect(blocks.contains { $0.text.contains("\"\(kind.key)\"") }, "\(folder)/README.md has no example using '\(kind.key)'")
                for block in blocks {
                    _ = try PresetLoader.parse(Data(block.text.utf8), file: "\(folder)/README.md:\(block.line)", baseDirectory: "presets")
                }
                #expect(reference.contains("| `\(kind.key)` |") && reference.contains("SourceKinds/\(folder)/README.md"),
                        "docs/presets.md's table of sources does not link \(folder)/README.md")
                return folder
            }
            #expect(documented.count == 1, "kind '\(kind.key)' needs exactly one README.md starting '# `\(kind.key)`'")
        }
    }

    @Test func theExamplePresetsLoad() throws {
        let folder = Self.docs.deletingLastPathComponent().appendingPathComponent("presets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(!names.isEmpty, "no presets in \(folder.path)")
        for name in names {
            let path = folder.appendingPathComponent(name).path
            #expect(throws: Never.self, "presets/\(name)") {
                let preset = try PresetLoader.load(path: path)
                for track in preset.tracks {
                    if let file = track.source.kind as? FileKind { #expect(file.path.hasPrefix(folder.path + "/")) }
                }
            }
        }
    }

    /// A mix's full example uses every key a mix has: a session's keys are shown in docs/sessions.md's (see
    /// `theFullSessionExampleUsesEveryVoiceFeature`), and each kind of source in its own README.
    @Test func theFullExampleUsesEveryTrackFeature() throws {
        let blocks = Self.jsonBlocks(in: try Self.reference())
        let full = try #require(blocks.max { $0.text.count < $1.text.count })
        // `bitrate` excludes `quality`, `loopable` a master fade and `volume` a track's `gainDb`, which the full example
        // shows; each has its own example or row.
        let elsewhere = Set(Self.sessionRootKeys + ["during", "duck", "bitrate", "loopable", "volume"] + SourceKinds.keys.filter { !["file", "generator", "playlist", "tone"].contains($0) })
        for key in PresetReader.Keys.root + PresetReader.Keys.output + PresetReader.Keys.loudness + PresetReader.Keys.master + PresetReader.Keys.limiter
            + PresetReader.Keys.track + PresetReader.Keys.tags + PresetReader.Keys.envelopePoint + ["crossfade", "seed", "files"]
            where !elsewhere.contains(key) {
            #expect(full.text.contains("\"\(key)\""), "the full example in docs/presets.md lacks '\(key)'")
        }
    }

    static let sessionRootKeys = ["voice", "bed", "sections", "ending"]

    static func sessions() throws -> String {
        try String(contentsOf: docs.appendingPathComponent("sessions.md"), encoding: .utf8)
    }

    @Test func everySessionExampleParses() throws {
        let blocks = Self.jsonBlocks(in: try Self.sessions())
        #expect(blocks.count >= 2)
        for block in blocks {
            #expect(throws: Never.self, "docs/sessions.md line \(block.line)") {
                _ = try PresetLoader.parse(Data(block.text.utf8), file: "docs/sessions.md:\(block.line)", baseDirectory: "presets")
            }
        }
    }

    @Test func theFullSessionExampleUsesEveryVoiceFeature() throws {
        let blocks = Self.jsonBlocks(in: try Self.sessions())
        let full = try #require(blocks.max { $0.text.count < $1.text.count })
        let keys = Self.sessionRootKeys + PresetReader.SessionKeys.voice + PresetReader.SessionKeys.speech
            + PresetReader.SessionKeys.ducking + PresetReader.SessionKeys.section + PresetReader.SessionKeys.segment
            + ["type", "hold", "fadeOut", "during", "duck", "schedule", "edge"]
        for key in keys {
            #expect(full.text.contains("\"\(key)\""), "the full session in docs/sessions.md lacks '\(key)'")
        }
    }

    /// The error lines the reference shows are what the parser says.
    @Test(arguments: [
        (#"{"duration": "8h", "tracks": [{"file": "a.ogg"}, {"file": "b.ogg", "fadeIn": {"duration": 5, "curve": "cubic"}}]}"#,
         "presets/night.json: tracks[1].fadeIn.curve: unknown curve 'cubic'; expected one of linear, equalPower, sCurve, logarithmic, exponential"),
        (#"{"duration": "8h", "tracks": [{"file": "a.ogg", "gian": -6}]}"#,
         "presets/night.json: tracks[0]: unknown key 'gian' (did you mean 'gainDb' or 'volume'?); expected one of name, file, generator, playlist, tone, sweep, speech, binaural, isochronic, breathing, chime, rain, wind, surf, fire, crickets, events, resequence, gainDb, volume, loudness, pan, start, end, during, loop, fadeIn, fadeOut, envelope, duck, drift"),
        (#"{"tracks": [{"file": "a.ogg"}]}"#,
         #"presets/night.json: missing required key 'duration' (the length of the render, e.g. "8h")"#),
        ("{\n  \"duration\": \"8h\",\n  \"tracks\": [1, 2,, 3]\n}",
         "presets/night.json: malformed JSON: invalid value at line 3, column 19 (near ', 3]')"),
        (#"{"duration": "8h", "tracks": [{"file": "a.ogg"}, {"file": "b.ogg"}, {"generator": {"type": "pink"}, "loop": true}]}"#,
         "presets/night.json: tracks[2].loop: generators are endless and cannot loop; 'loop' is for 'file' and 'playlist' tracks"),
        (#"{"duration": "8h", "master": {"fadeIn": "5h", "fadeOut": "4h"}, "tracks": [{"file": "a.ogg"}]}"#,
         "presets/night.json: master: fadeIn (5h) and fadeOut (4h) together are longer than the render (8h)"),
        (#"{"duration": "8h", "tracks": [{"file": "a.ogg", "envelope": [{"time": 0, "gainDb": 0}, {"time": "2h", "gainDb": -6}, {"time": "1h", "gainDb": -9}]}]}"#,
         "presets/night.json: tracks[0].envelope[2].time: 1h is not after the previous point's time (2h); envelope times must increase"),
        (#"{"duration": "8h", "output": {"channels": 3}, "tracks": [{"file": "a.ogg"}]}"#,
         "presets/night.json: output.channels: unsupported channel count 3; expected 1 (mono) or 2 (stereo)"),
        (#"{"duration": "8h", "tracks": [{"file": "a.ogg", "gainDb": "-6"}]}"#,
         "presets/night.json: tracks[0].gainDb: expected a number, got the string '-6'"),
        (#"{"duration": "8hours", "tracks": [{"file": "a.ogg"}]}"#,
         #"presets/night.json: duration: invalid time '8hours'; write seconds (90, 2.5) or a string such as "90s", "45m", "8h", "500ms", "1h30m", "12:30", "1:30:00""#),
    ])
    func documentedErrorsAreReal(json: String, line: String) throws {
        #expect(try Self.reference().contains(line + "\n"), "docs/presets.md does not show: \(line)")
        #expect(throws: Error.self) {
            do {
                _ = try PresetLoader.parse(Data(json.utf8), file: "presets/night.json", baseDirectory: "presets")
            } catch {
                #expect("\(error)" == line)
                throw error
            }
        }
    }

    // MARK: - Schema

    static func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: docs.appendingPathComponent("preset.schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The object at a path of keys and array indices.
    static func node(_ root: Any, _ path: [Any]) -> [String: Any]? {
        var current: Any? = root
        for step in path {
            if let key = step as? String { current = (current as? [String: Any])?[key] }
            if let index = step as? Int { current = (current as? [Any]).flatMap { index < $0.count ? $0[index] : nil } }
        }
        return current as? [String: Any]
    }

    @Test func schemaObjectsAllowExactlyTheParsersKeys() throws {
        let schema = try Self.schema()
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let objects: [(path: [Any], keys: [String])] = [
            ([], PresetReader.Keys.root),
            (["$defs", "output"], PresetReader.Keys.output),
            (["$defs", "chapter"], PresetReader.Keys.chapter),
            (["$defs", "output", "properties", "loudness"], PresetReader.Keys.loudness),
            (["$defs", "master"], PresetReader.Keys.master),
            (["$defs", "master", "properties", "limiter"], PresetReader.Keys.limiter),
            (["$defs", "fade", "oneOf", 1], PresetReader.Keys.fade),
            (["$defs", "crossfade", "oneOf", 1], PresetReader.Keys.fade),
            (["$defs", "seamCrossfade", "oneOf", 1], PresetReader.Keys.fade),
            (["$defs", "track"], PresetReader.Keys.track),
        ] + SourceKinds.all.compactMap { kind in kind.settingsKeys.map { (["$defs", kind.key], $0) } } + [
            (["$defs", "track", "properties", "loop", "oneOf", 1], PresetReader.Keys.loop),
            (["$defs", "envelopePoint"], PresetReader.Keys.envelopePoint),
            (["$defs", "track", "properties", "drift", "oneOf", 1], DriftSpec.keys),
        ]
        for (path, keys) in objects {
            let object = try #require(Self.node(schema, path), "no schema object at \(path)")
            let properties = try #require(object["properties"] as? [String: Any], "no properties at \(path)")
            #expect(Set(properties.keys) == Set(keys), "schema at \(path)")
            #expect(object["additionalProperties"] as? Bool == false, "schema at \(path) must forbid other keys")
        }
    }

    /// `output.tags` takes any key: the schema names the known ones, allows others of the reader's form, and
    /// states the reader's limits.
    @Test func schemaTagsFollowTheReader() throws {
        let tags = try #require(Self.node(try Self.schema(), ["$defs", "output", "properties", "tags"]))
        let properties = try #require(tags["properties"] as? [String: Any])
        #expect(Set(properties.keys) == Set(PresetReader.Keys.tags))
        #expect((tags["additionalProperties"] as? [String: Any])?["$ref"] as? String == "#/$defs/tagValue")
        #expect(tags["maxProperties"] as? Int == TagFields.maximumFields)
        let pattern = try #require((tags["propertyNames"] as? [String: Any])?["pattern"] as? String)
        #expect(pattern == "^[ -<>-}]{1,\(TagFields.maximumKeyLength)}$")
        let value = try #require(Self.node(try Self.schema(), ["$defs", "tagValue", "oneOf", 1]))
        #expect(value["maxItems"] as? Int == TagFields.maximumValues)
        #expect((value["items"] as? [String: Any])?["maxLength"] as? Int == TagFields.maximumValueBytes)
        let chapters = try #require(Self.node(try Self.schema(), ["properties", "chapters"]))
        #expect(chapters["maxItems"] as? Int == ChapterMark.maximumCount)
    }

    @Test func schemaNamesTheParsersCurves() throws {
        let defs = try #require(try Self.schema()["$defs"] as? [String: Any])
        let curves = try #require((defs["curve"] as? [String: Any])?["enum"] as? [String])
        let crossfadeCurves = try #require((defs["crossfadeCurve"] as? [String: Any])?["enum"] as? [String])
        #expect(curves == Curve.allCases.map(\.rawValue))
        #expect(crossfadeCurves == Curve.allCases.map(\.rawValue) + ["equalGain"])
    }
}
