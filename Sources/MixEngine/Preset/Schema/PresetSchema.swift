import MixIO

/// `docs/preset.schema.json`, the JSON schema editors check presets against, generated from the same declarations
/// the preset reader reads with (`DeclaredSettings`): every kind's part from the kinds themselves (`SourceKinds.all`:
/// each kind's `$defs` entry, the track's property for each kind's key, that a track has exactly one of them, and
/// that the kinds that cannot loop refuse `loop`); the track's own keys (`TrackSpec.settings`); and the `$defs` of
/// `output`, `master`, `voice` and `speechSettings` (`OutputSpec.settings`, `MasterSpec.settings`, `NarrationSpec.settings`,
/// `SpeechSettings.settings`, with the ranges the caller's overrides share, `NumberLimit`). The file is its own
/// template: the rest (the root, the shared shapes such as `time` and `fade`, sections, segments, the ending, and the settings a
/// declaration leaves there, `DeclaredSetting.inTemplate`: the output's tags and bit depth, a track's loudness, during,
/// loop, envelope and drift) is kept from it. A test keeps the file equal to what it generates
/// (`scripts/schema.sh` rewrites it).
///
/// No state: any thread may call it. `generate` allocates the document.
public enum PresetSchema {
    /// `template` (a schema document) with every kind's part made from the kinds' declarations; the rest
    /// of it is kept as it is, member order included. The kinds' `$defs` come last, in the registry's order.
    public static func generate(from template: String) throws -> String {
        let root = try SchemaValue.parse(template)
        let kinds = SourceKinds.all
        let keys = Set(kinds.map { $0.key })
        var defs = root["$defs"] ?? .object([])
        var track = defs["track"] ?? .object([])
        defs = defs.removing { keys.contains($0) }
        for kind in kinds where kind.settingsKeys != nil { defs = defs.setting(kind.key, to: kind.schema) }

        track = track.setting("oneOf", to: .array(kinds.map { required($0.key) }))
        track = track.setting("if", to: .object(["anyOf": .array(kinds.filter { !$0.canLoop }.map { required($0.key) })]))
        var properties = (track["properties"] ?? .object([])).removing { keys.contains($0) }
        var previous = "name"
        for kind in kinds {
            let property: SchemaValue = kind.settingsKeys == nil ? kind.schema : .object(["$ref": .string("#/$defs/\(kind.key)")])
            properties = properties.setting(kind.key, to: property, after: previous)
            previous = kind.key
        }
        // The track's own keys from their declaration, in place (after the kinds' in a template without them).
        for member in TrackSpec.settings.schema(template: track)["properties"]?.members ?? [] {
            properties = properties.setting(member.key, to: member.value)
        }
        defs = defs.setting("track", to: track.setting("properties", to: properties))
        // The preset's own declared objects, in place; what their declarations keep in the template is kept.
        defs = defs.setting("output", to: OutputSpec.settings.schema(template: defs["output"]))
        defs = defs.setting("master", to: MasterSpec.settings.schema(template: defs["master"]))
        defs = defs.setting("voice", to: NarrationSpec.settings.schema(template: defs["voice"]))
        defs = defs.setting("speechSettings", to: SpeechSettings.settings.schema(template: defs["speechSettings"]))
        return root.setting("$defs", to: defs).text
    }

    /// `{"required": [key]}`
    private static func required(_ key: String) -> SchemaValue { .object(["required": .array([.string(key)])]) }
}
