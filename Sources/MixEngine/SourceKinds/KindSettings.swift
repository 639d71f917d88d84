/// A kind's settings, declared once: for each setting its key, what it takes (a range, a list of choices),
/// whether the preset must give it, and one line saying what it is; its default is the kind's own (the
/// `defaults` value, made by the kind's `init` with its default arguments). Both the reader (`read`) and the
/// kind's part of `docs/preset.schema.json` (`schema`) come from this declaration, so neither restates a key,
/// a range or a default.
///
/// A value of a description, the default kind and the settings' closures; allocates only those. Made when
/// asked for (a computed `static var` of the kind), on the reading or generating thread.
struct KindSettings<Kind: SourceKind> {
    /// One line for the schema: what the kind sounds like.
    let description: String
    /// The kind as a preset that gives no optional setting gets it (a required setting's value here is never used).
    let defaults: Kind
    let settings: [KindSetting<Kind>]
    /// Checks what spans several settings, after all are read (a setting that does not apply to another's
    /// choice); nil when nothing does.
    var check: ((JSONObjectCursor, Kind) throws -> Void)? = nil

    /// The keys of the settings object, in the order messages and the schema list them.
    var keys: [String] { settings.map(\.key) }

    /// Reads the settings object at `cursor`: unknown keys are refused, the required settings read first (a
    /// missing one is an error naming what it wants), then the others, each over the defaults.
    func read(_ cursor: JSONCursor, reader: PresetReader) throws -> Kind {
        let object = try cursor.object(allowing: keys)
        var kind = defaults
        for setting in settings.filter({ $0.requiredHint != nil }) + settings.filter({ $0.requiredHint == nil }) {
            if let hint = setting.requiredHint {
                try setting.read(try object.required(setting.key, hint: hint), &kind, reader)
            } else if let value = object[setting.key] {
                try setting.read(value, &kind, reader)
            }
        }
        try check?(object, kind)
        return kind
    }

    /// The kind's `$defs` entry: an object of exactly these settings.
    var schema: SchemaValue {
        let required = settings.filter { $0.requiredHint != nil }.map { SchemaValue.string($0.key) }
        return .object([
            "description": .string(description),
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "required": required.isEmpty ? nil : .array(required),
            "properties": .object(settings.map { SchemaValue.Member($0.key, $0.schema(defaults)) }),
        ])
    }
}

/// One setting of a kind: its key, how it is read into the kind, and its schema. Made by the constructors
/// below (`number`, `seed`, `choice`, ...), which say each fact once; `custom` takes a reader and a schema of
/// its own for a shape none of them covers.
struct KindSetting<Kind> {
    let key: String
    /// What to say when it is missing, if the preset must give it.
    let requiredHint: String?
    /// Its schema, given the kind's defaults (the `default` it shows).
    let schema: (Kind) -> SchemaValue
    /// Reads the value at `cursor` into the kind; the reader resolves paths and reads the shared shapes.
    let read: (JSONCursor, inout Kind, PresetReader) throws -> Void

    /// A number in `range` (inclusive), defaulting to the kind's own.
    static func number(_ key: String, _ path: WritableKeyPath<Kind, Double>, in range: ClosedRange<Double>, _ description: String) -> Self {
        KindSetting(key: key, requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "type": .string("number"), "minimum": .number(range.lowerBound),
                     "maximum": .number(range.upperBound), "default": .number(defaults[keyPath: path])])
        }, read: { cursor, kind, _ in kind[keyPath: path] = try cursor.number(in: range) })
    }

    /// A number in `range` that may be left out (nil: the kind works out its own from other settings).
    static func number(_ key: String, _ path: WritableKeyPath<Kind, Double?>, in range: ClosedRange<Double>, _ description: String) -> Self {
        KindSetting(key: key, requiredHint: nil, schema: { _ in
            .object(["description": .string(description), "type": .string("number"), "minimum": .number(range.lowerBound),
                     "maximum": .number(range.upperBound)])
        }, read: { cursor, kind, _ in kind[keyPath: path] = try cursor.number(in: range) })
    }

    /// A number above 0 up to `maximum` that the preset must give.
    static func positiveNumber(_ key: String, _ path: WritableKeyPath<Kind, Double>, upTo maximum: Double, required hint: String,
                               _ description: String) -> Self {
        KindSetting(key: key, requiredHint: hint, schema: { _ in
            .object(["description": .string(description), "type": .string("number"), "exclusiveMinimum": .number(0),
                     "maximum": .number(maximum)])
        }, read: { cursor, kind, _ in kind[keyPath: path] = try cursor.positiveNumber(upTo: maximum) })
    }

    /// A seed: a whole number from 0 to 2^53, defaulting to the kind's own.
    static func seed(_ path: WritableKeyPath<Kind, UInt64>, _ description: String) -> Self {
        KindSetting(key: "seed", requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "type": .string("integer"), "minimum": .number(0),
                     "maximum": .number(GeneratorLevels.maximumSeed), "default": .number(Double(defaults[keyPath: path]))])
        }, read: { cursor, kind, _ in kind[keyPath: path] = UInt64(try cursor.integer(in: 0...GeneratorLevels.maximumSeed)) })
    }

    /// One of an enumeration's names (its raw values, in declaration order); `what` names it in messages
    /// (`unknown waveform 'saw'`). Required when `hint` is given, else defaulting to the kind's own.
    static func choice<Value: RawRepresentable & CaseIterable>(_ key: String, _ path: WritableKeyPath<Kind, Value>, what: String,
                                                              required hint: String? = nil, _ description: String? = nil) -> Self
    where Value.RawValue == String {
        KindSetting(key: key, requiredHint: hint, schema: { defaults in
            .object(["description": description.map { .string($0) },
                     "enum": .array(Value.allCases.map { .string($0.rawValue) }),
                     "default": hint == nil ? .string(defaults[keyPath: path].rawValue) : nil])
        }, read: { cursor, kind, _ in kind[keyPath: path] = try cursor.choice(what, Value.allCases.map { ($0.rawValue, $0) }) })
    }

    /// A shape of the kind's own: `read` reads it, `schema` says it (given the defaults).
    static func custom(_ key: String, required hint: String? = nil, schema: @escaping (Kind) -> SchemaValue,
                       read: @escaping (JSONCursor, inout Kind, PresetReader) throws -> Void) -> Self {
        KindSetting(key: key, requiredHint: hint, schema: schema, read: read)
    }
}

/// A kind whose settings are declared (`KindSettings`): its reader, its keys and its schema come from the
/// declaration.
protocol DeclaredSourceKind: ReadableSourceKind {
    static var settings: KindSettings<Self> { get }
}

extension DeclaredSourceKind {
    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> Self { try settings.read(cursor, reader: reader) }
    static var settingsKeys: [String]? { settings.keys }
    static var schema: SchemaValue { settings.schema }
}
