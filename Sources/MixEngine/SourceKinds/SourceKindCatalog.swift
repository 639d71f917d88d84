import MixIO

/// What `mixrender kinds` lists: every kind of source a track may play, in the registry's order
/// (`SourceKinds.all`), with each of its settings' key, what it takes, its default and its one line, all read from
/// the schema the kind declares (`DeclaredSettings`), the same declaration the preset reader reads with and
/// `docs/preset.schema.json` is written from, so the listing cannot say what the reader does not do.
///
/// A value of strings and schema values; made when asked for. `Sendable`, safe to share.
public struct SourceKindCatalog: Sendable {
    /// One kind: the track key that selects it, its line, and its settings.
    public struct Kind: Sendable {
        /// The track key (`rain`, `file`, `generator`).
        public let key: String
        /// What it is, in one line.
        public let description: String
        /// Whether it plays for as long as the track lasts (a generator), rather than for a length of its own.
        public let isEndless: Bool
        /// Whether a track of this kind may `loop`.
        public let canLoop: Bool
        /// Its settings, in the order the kind declares them; one nameless setting for a kind that is one value
        /// (`"file": "rain.ogg"`).
        public let settings: [Setting]
        /// Whether the kind is one value rather than an object of settings.
        public var isValue: Bool { settings.count == 1 && settings[0].key == nil }
    }

    /// One setting: its key (nil for a kind that is one value), whether a preset must give it, its schema.
    public struct Setting: Sendable {
        public let key: String?
        public let isRequired: Bool
        /// The setting's part of the schema (`type`, `minimum`, `maximum`, `enum`, `default`, `description`, ...).
        public let schema: JSONValue

        /// The setting's line (the schema's `description`), or empty.
        public var description: String { schema["description"]?.stringValue ?? "" }

        /// What it takes, in words: `0 to 1`, `white, pink or brown`, `a time`, `true or false`.
        public var takes: String { SourceKindCatalog.takes(schema) }

        /// Its default as JSON would write it (`0.5`, `"equalPower"`), or nil when it has none.
        public var defaultText: String? {
            guard let value = schema["default"] else { return nil }
            return value.document(.compact).trimmingSuffix("\n")
        }
    }

    public let kinds: [Kind]

    /// Every registered kind.
    public init() {
        kinds = SourceKinds.all.map { kind in
            let schema = kind.schema
            var required = Set<String>()
            if case .array(let keys)? = schema["required"] { required = Set(keys.compactMap(\.stringValue)) }
            let settings: [Setting]
            if kind.settingsKeys == nil {
                settings = [Setting(key: nil, isRequired: true, schema: schema)]
            } else {
                // A speech track's voice, pace, ... are the session's speech settings, referred to key by key.
                let speech = SpeechSettings.settings.schema["properties"]
                settings = (schema["properties"]?.members ?? []).map {
                    let shared = $0.value["$ref"]?.stringValue?.hasPrefix("#/$defs/speechSettings/") == true ? speech?[$0.key] : nil
                    return Setting(key: $0.key, isRequired: required.contains($0.key), schema: shared ?? $0.value)
                }
            }
            return Kind(key: kind.key, description: schema["description"]?.stringValue ?? "", isEndless: kind.isEndless,
                        canLoop: kind.canLoop, settings: settings)
        }
    }

    /// The kind selected by `key`, or nil.
    public func kind(_ key: String) -> Kind? { kinds.first { $0.key == key } }

    /// The listing for a person: per kind, a line with its key and description, then one indented line per
    /// setting: `  intensity  0 to 1, default 0.5: 0 (a few drops ...) to 1 (a downpour ...).`
    public func text(_ chosen: [Kind]? = nil) -> String {
        var lines: [String] = []
        for kind in chosen ?? kinds {
            var traits: [String] = []
            if kind.isEndless { traits.append("endless") }
            if kind.canLoop { traits.append("may loop") }
            lines.append("\(kind.key): \(kind.description)" + (traits.isEmpty ? "" : " (\(traits.joined(separator: ", ")))"))
            let width = kind.settings.map { ($0.key ?? "").count }.max() ?? 0
            for setting in kind.settings {
                var what = setting.takes
                if setting.isRequired && setting.key != nil { what += ", required" }
                if let value = setting.defaultText { what += ", default \(value)" }
                let name = setting.key.map { $0.padding(toLength: width, withPad: " ", startingAt: 0) } ?? "(value)"
                let line = setting.description.isEmpty || setting.key == nil ? what : "\(what): \(setting.description)"
                lines.append("  \(name)  \(line)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The listing for a program: `{"kinds": [{"key", "description", "endless", "loops", "value" | "settings"}]}`,
    /// each setting its schema with its key and whether it is required first.
    public func json(_ chosen: [Kind]? = nil) -> String {
        let values: [JSONValue] = (chosen ?? kinds).map { kind in
            var members = [JSONValue.Member("key", .string(kind.key)),
                           JSONValue.Member("description", .string(kind.description)),
                           JSONValue.Member("endless", .bool(kind.isEndless)),
                           JSONValue.Member("loops", .bool(kind.canLoop))]
            if kind.isValue {
                members.append(JSONValue.Member("value", kind.settings[0].schema))
            } else {
                members.append(JSONValue.Member("settings", .array(kind.settings.map { setting in
                    .object([JSONValue.Member("key", .string(setting.key ?? "")),
                             JSONValue.Member("required", .bool(setting.isRequired))]
                            + setting.schema.members)
                })))
            }
            return .object(members)
        }
        return JSONValue.object([JSONValue.Member("kinds", .array(values))]).document(.readable)
    }

    /// What a schema takes, in words.
    static func takes(_ schema: JSONValue) -> String {
        if case .array(let choices)? = schema["enum"] {
            let words = choices.map { $0.stringValue ?? $0.document(.compact).trimmingSuffix("\n") }
            return words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : words.first ?? ""
        }
        if case .string(let reference)? = schema["$ref"] {
            let name = reference.split(separator: "/").last.map(String.init) ?? reference
            return referenceWords[name] ?? "a \(name)"
        }
        if case .array(let alternatives)? = schema["oneOf"] ?? schema["anyOf"] {
            return alternatives.map(takes).joined(separator: ", or ")
        }
        switch schema["type"]?.stringValue {
        case "number"?, "integer"?:
            func number(_ key: String) -> Double? { if case .number(let n)? = schema[key] { return n } else { return nil } }
            let kind = schema["type"]?.stringValue == "integer" ? "a whole number" : "a number"
            let high = number("maximum").flatMap { $0 < 9e15 ? $0 : nil }   // a seed's 2^53 is no limit to a person
            if let low = number("minimum"), let high { return "\(JSONValue.format(low)) to \(JSONValue.format(high))" }
            var bounds: [String] = []
            if let low = number("minimum") { bounds.append("from \(JSONValue.format(low))") }
            if let above = number("exclusiveMinimum") { bounds.append("above \(JSONValue.format(above))") }
            if let high { bounds.append("up to \(JSONValue.format(high))") }
            return bounds.isEmpty ? kind : "\(kind) " + bounds.joined(separator: ", ")
        case "boolean"?: return "true or false"
        case "string"?: return "text"
        case "array"?:
            let item = schema["items"].map(takes) ?? "values"
            switch (schema["minItems"], schema["maxItems"]) {
            case (.number(let low)?, .number(let high)?) where low == high: return "a list of \(JSONValue.format(low)) (\(item))"
            default: return "a list (\(item))"
            }
        case "object"?: return "an object"
        default: return "a value"
        }
    }

    /// The schema's shared shapes (`$defs`), in words.
    static let referenceWords = [
        "path": "a file path",
        "time": "a time (90, \"90s\", \"45m\", \"1:30:00\")",
        "positiveTime": "a time above 0",
        "timeRange": "a time, or [shortest, longest]",
        "curve": "a curve (linear, equalPower, sCurve, logarithmic or exponential)",
        "crossfadeCurve": "a crossfade curve",
        "fade": "a fade (a time, or {\"duration\", \"curve\"})",
        "crossfade": "a crossfade",
        "seamCrossfade": "a seam crossfade",
        "timelinePoint": "a point of the timeline",
    ]
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
