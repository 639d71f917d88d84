/// A JSON value whose objects keep their members in order: what `docs/preset.schema.json` is made of, so that
/// the generated schema reads in the order it is declared (a kind's settings in its own order) and the same
/// declarations always give the same bytes. (`JSONValue`, which reads presets, keeps objects as dictionaries.)
///
/// A value of nested arrays; allocates only those. `Sendable`, safe to share.
public indirect enum SchemaValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SchemaValue])
    /// Members in order; keys are unique.
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: SchemaValue
        public init(_ key: String, _ value: SchemaValue) { self.key = key; self.value = value }
    }

    /// An object from `(key, value)` pairs in order, leaving out the nil values.
    static func object(_ members: KeyValuePairs<String, SchemaValue?>) -> SchemaValue {
        .object(members.compactMap { key, value in value.map { Member(key, $0) } })
    }

    /// The member `key` of an object, or nil.
    subscript(key: String) -> SchemaValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The object's members, or none.
    var members: [Member] {
        if case .object(let members) = self { return members }
        return []
    }

    /// The object with member `key` set to `value`: in place if it is there, else appended (after `after`, when
    /// that member is there). A non-object is returned unchanged.
    func setting(_ key: String, to value: SchemaValue, after: String? = nil) -> SchemaValue {
        guard case .object(var members) = self else { return self }
        if let i = members.firstIndex(where: { $0.key == key }) {
            members[i].value = value
        } else if let after, let i = members.firstIndex(where: { $0.key == after }) {
            members.insert(Member(key, value), at: i + 1)
        } else {
            members.append(Member(key, value))
        }
        return .object(members)
    }

    /// The object without the members whose keys `drop` accepts.
    func removing(where drop: (String) -> Bool) -> SchemaValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { !drop($0.key) })
    }
}

extension SchemaValue {
    /// The object with `extra` appended to its `properties` (made if missing).
    func addingProperties(_ extra: [Member]) -> SchemaValue {
        setting("properties", to: .object((self["properties"]?.members ?? []) + extra))
    }

    /// The speech settings that sit beside a kind's own keys (a `speech` track's text, breathing cues' words), as
    /// references to the session's `$defs/speechSettings`, one per key the reader takes (`SessionKeys.speech`).
    static var speechSettingsReferences: [Member] {
        PresetReader.SessionKeys.speech.map { Member($0, .object(["$ref": .string("#/$defs/speechSettings/properties/\($0)")])) }
    }
}
