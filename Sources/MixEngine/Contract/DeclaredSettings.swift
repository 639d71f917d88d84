import MixDSP

/// The settings of one part of a preset, declared once: a kind of source's (`"rain": {...}`, `DeclaredSourceKind`), or
/// one of the preset's own objects (`output`, `master`, a track's own keys, `voice`, speech settings:
/// `PresetSettings.swift`, `SessionSettings.swift`). For each setting its key, what it takes (a range, a list of
/// choices), whether the preset must give it, and one line saying what it is; its default is the owner's own (the
/// `defaults` value, made by the owner's `init` with its default arguments). Both the reader (`read`) and the
/// owner's part of `docs/preset.schema.json` (`schema`, `PresetSchema`) come from this declaration, so neither
/// restates a key, a range or a default.
///
/// The settings are an object of keys (`"rain": {"intensity": 0.6}`), or one value (`"file": "rain.ogg"`,
/// `init(value:defaults:)`).
///
/// A value of a description, the default owner and the settings' closures; allocates only those. Made when
/// asked for (a computed `static var settings` of the owner), on the reading or generating thread; not `Sendable`
/// (its closures are not), and never kept.
struct DeclaredSettings<Owner> {
    /// One line for the schema: what the owner is (nil for settings that are one value).
    let description: String?
    /// The owner as a preset that gives no optional setting gets it (a required setting's value here is never used).
    let defaults: Owner
    let settings: [DeclaredSetting<Owner>]
    /// Keys of which a preset gives exactly one (a `speech` track's `text` or `ssml`); nil when there are none.
    var exactlyOne: ExactlyOne? = nil
    /// Checks what spans several settings, after all are read (a setting that does not apply to another's
    /// choice), and works out what follows from several (an isochronic pulse's edges from its duty); nil when
    /// nothing does.
    var finish: ((JSONObjectCursor, inout Owner) throws -> Void)? = nil
    /// Whether the settings are an object of keys; false: one value, read by the one setting in `settings`.
    let isObject: Bool

    /// Keys of which exactly one must be given, and what to say when none is or several are (at the object's path).
    struct ExactlyOne {
        let keys: [String]
        let missing: String
        let several: String
    }

    /// Settings that are an object of keys.
    init(description: String, defaults: Owner, settings: [DeclaredSetting<Owner>], exactlyOne: ExactlyOne? = nil,
         finish: ((JSONObjectCursor, inout Owner) throws -> Void)? = nil) {
        self.description = description; self.defaults = defaults; self.settings = settings
        self.exactlyOne = exactlyOne; self.finish = finish; self.isObject = true
    }

    /// Settings that are one value (`"file": "rain.ogg"`), read by `setting` at the owner's own key.
    init(value setting: DeclaredSetting<Owner>, defaults: Owner) {
        self.description = nil; self.defaults = defaults; self.settings = [setting]; self.isObject = false
    }

    /// The keys of the settings object, in the order messages and the schema list them; nil for one value.
    var keys: [String]? { isObject ? settings.flatMap(\.keys) : nil }

    /// Reads the settings at `cursor`. An object: unknown keys are refused, the required settings read first (a
    /// missing one is an error naming what it wants), then the keys of which exactly one is given are checked,
    /// then the others read, each over the defaults, and `finish` called.
    func read(_ cursor: JSONCursor, reader: any SourceReader) throws -> Owner {
        try read(cursor, over: defaults, reader: reader)
    }

    /// Reads the settings at `cursor` over `start` instead of the defaults (a nested object's current value).
    func read(_ cursor: JSONCursor, over start: Owner, reader: any SourceReader) throws -> Owner {
        var owner = start
        guard isObject else {
            if case .value(let read) = settings[0].reading { try read(cursor, &owner, reader) }
            return owner
        }
        return try read(try cursor.object(allowing: keys ?? []), over: owner, reader: reader)
    }

    /// Reads the settings from `object`, opened by the caller with these keys among others (a track's own keys
    /// beside its source's), over `start`.
    func read(_ object: JSONObjectCursor, over start: Owner, reader: any SourceReader) throws -> Owner {
        var owner = start
        for setting in settings {
            if case .value(let read) = setting.reading, let hint = setting.requiredHint {
                try read(try object.required(setting.keys[0], hint: hint), &owner, reader)
            }
        }
        if let exactlyOne {
            let given = exactlyOne.keys.filter(object.has)
            guard given.count == 1 else { throw object.cursor.error(given.isEmpty ? exactlyOne.missing : exactlyOne.several) }
        }
        for setting in settings where setting.requiredHint == nil {
            switch setting.reading {
            case .value(let read): if let value = object[setting.keys[0]] { try read(value, &owner, reader) }
            case .members(let read): try read(object, &owner, reader)
            }
        }
        try finish?(object, &owner)
        return owner
    }

    /// The owner's schema (a kind's `$defs` entry): an object of exactly these settings, or the one value's schema.
    var schema: SchemaValue { schema(template: nil) }

    /// The schema, the settings kept in the template (`DeclaredSetting.inTemplate`) taken from `template`'s properties.
    func schema(template: SchemaValue?) -> SchemaValue {
        let properties = settings.flatMap { setting in
            guard setting.isInTemplate else { return setting.properties(defaults) }
            return setting.keys.compactMap { key in template?["properties"]?[key].map { SchemaValue.Member(key, $0) } }
        }
        guard isObject else { return properties[0].value }
        let required = settings.filter { $0.requiredHint != nil }.map { SchemaValue.string($0.keys[0]) }
        return .object([
            "description": description.map { .string($0) },
            "type": .string("object"),
            "additionalProperties": .bool(false),
            "required": required.isEmpty ? nil : .array(required),
            "oneOf": exactlyOne.map { .array($0.keys.map { .object(["required": .array([.string($0)])]) }) },
            "properties": .object(properties),
        ])
    }
}

/// One declared setting (`DeclaredSettings`): its key (a few keys for a group read together), how it is read into
/// its owner (a kind, the output, ...), and its schema. Made by the constructors below (`number`, `seed`, `choice`,
/// `path`, `files`, ...), which say each fact once; `custom` takes a reader and a schema of its own for a shape none
/// of them covers.
///
/// A value of a few strings and closures; allocates only those. Made on the reading or generating thread.
struct DeclaredSetting<Owner> {
    /// The keys it reads: one, or a group's (the speech settings beside a text).
    let keys: [String]
    /// What to say when it is missing, if the preset must give it (a setting of one key only).
    let requiredHint: String?
    /// Its schema, one property per key, given the owner's defaults (the `default` it shows); none when the
    /// schema keeps it from its template (`isInTemplate`).
    let properties: (Owner) -> [SchemaValue.Member]
    /// Whether its schema is the one `docs/preset.schema.json` already holds (`inTemplate`): a shape the file
    /// says better than code would (the output's tags).
    var isInTemplate = false
    let reading: Reading

    /// How it is read: one value, when its key is given (or required); or a group, from the whole settings
    /// object, always.
    enum Reading {
        case value((JSONCursor, inout Owner, any SourceReader) throws -> Void)
        case members((JSONObjectCursor, inout Owner, any SourceReader) throws -> Void)
    }

    /// A setting of one key: `read` reads the value at its cursor into the owner; the reader resolves paths and
    /// reads the shared shapes.
    init(key: String, requiredHint: String?, schema: @escaping (Owner) -> SchemaValue,
         read: @escaping (JSONCursor, inout Owner, any SourceReader) throws -> Void) {
        keys = [key]
        self.requiredHint = requiredHint
        properties = { [SchemaValue.Member(key, schema($0))] }
        reading = .value(read)
    }

    /// A number in `range` (inclusive), defaulting to the owner's own.
    static func number(_ key: String, _ path: WritableKeyPath<Owner, Double>, in range: ClosedRange<Double>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "type": .string("number"), "minimum": .number(range.lowerBound),
                     "maximum": .number(range.upperBound), "default": .number(defaults[keyPath: path])])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.number(in: range) })
    }

    /// A number in `range` that may be left out (nil: the owner works out its own from other settings).
    static func number(_ key: String, _ path: WritableKeyPath<Owner, Double?>, in range: ClosedRange<Double>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in
            .object(["description": .string(description), "type": .string("number"), "minimum": .number(range.lowerBound),
                     "maximum": .number(range.upperBound)])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.number(in: range) })
    }

    /// A number above 0 up to `maximum` that the preset must give.
    static func positiveNumber(_ key: String, _ path: WritableKeyPath<Owner, Double>, upTo maximum: Double, required hint: String,
                               _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: hint, schema: { _ in
            .object(["description": .string(description), "type": .string("number"), "exclusiveMinimum": .number(0),
                     "maximum": .number(maximum)])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.positiveNumber(upTo: maximum) })
    }

    /// A seed: a whole number from 0 to 2^53, defaulting to the owner's own.
    static func seed(_ path: WritableKeyPath<Owner, UInt64>, _ description: String) -> Self {
        DeclaredSetting(key: "seed", requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "type": .string("integer"), "minimum": .number(0),
                     "maximum": .number(GeneratorLevels.maximumSeed), "default": .number(Double(defaults[keyPath: path]))])
        }, read: { cursor, owner, _ in owner[keyPath: path] = UInt64(try cursor.integer(in: 0...GeneratorLevels.maximumSeed)) })
    }

    /// The seed of a random layout (`events`, `resequence`): a whole number from 0 to 2^53 - 1; nil, when left
    /// out, for one made from the track's JSON path (`RandomSettings.defaultSeed`).
    static func layoutSeed(_ path: WritableKeyPath<Owner, UInt64?>) -> Self {
        DeclaredSetting(key: "seed", requiredHint: nil, schema: { _ in RandomSettings.seedSchema },
                    read: { cursor, owner, _ in owner[keyPath: path] = try cursor.seed() })
    }

    /// One of an enumeration's names (its raw values, in declaration order); `what` names it in messages
    /// (`unknown waveform 'saw'`). Required when `hint` is given, else defaulting to the owner's own.
    static func choice<Value: RawRepresentable & CaseIterable>(_ key: String, _ path: WritableKeyPath<Owner, Value>, what: String,
                                                              required hint: String? = nil, _ description: String? = nil) -> Self
    where Value.RawValue == String {
        DeclaredSetting(key: key, requiredHint: hint, schema: { defaults in
            .object(["description": description.map { .string($0) },
                     "enum": .array(Value.allCases.map { .string($0.rawValue) }),
                     "default": hint == nil ? .string(defaults[keyPath: path].rawValue) : nil])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.choice(what, Value.allCases.map { ($0.rawValue, $0) }) })
    }

    /// `true` or `false`, defaulting to the owner's own.
    static func flag(_ key: String, _ path: WritableKeyPath<Owner, Bool>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "type": .string("boolean"), "default": .bool(defaults[keyPath: path])])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.bool() })
    }

    /// An audio file's path, resolved against the preset's folder (`PresetReader.path`).
    static func path(_ key: String, _ path: WritableKeyPath<Owner, String>, required hint: String? = nil, _ description: String? = nil) -> Self {
        DeclaredSetting(key: key, requiredHint: hint, schema: { _ in
            .object(["description": description.map { .string($0) }, "$ref": .string("#/$defs/path")])
        }, read: { cursor, owner, reader in owner[keyPath: path] = try reader.path(cursor) })
    }

    /// A list of 1 to `maximum` audio files' paths, which the preset must give. `none` is the message for an
    /// empty list; `most` says the limit: `"\(count) files; \(most) \(maximum)"`.
    static func files(_ key: String, _ path: WritableKeyPath<Owner, [String]>, atMost maximum: Int, required hint: String,
                      none: String, most: String, _ description: String? = nil) -> Self {
        DeclaredSetting(key: key, requiredHint: hint, schema: { _ in
            .object(["description": description.map { .string($0) }, "type": .string("array"), "minItems": .number(1),
                     "maxItems": .number(Double(maximum)), "items": .object(["$ref": .string("#/$defs/path")])])
        }, read: { cursor, owner, reader in
            let files = try cursor.array()
            guard !files.isEmpty else { throw cursor.error(none) }
            guard files.count <= maximum else { throw cursor.error("\(files.count) files; \(most) \(maximum)") }
            owner[keyPath: path] = try files.map { try reader.path($0) }
        })
    }

    /// A crossfade (`"8s"` or `{"duration": "8s", "curve": "equalGain"}`; curve equalPower unless given),
    /// defaulting to the owner's own.
    static func crossfade(_ key: String, _ path: WritableKeyPath<Owner, FadeSpec>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            let fade = defaults[keyPath: path]
            return .object(["description": .string(description), "$ref": .string("#/$defs/crossfade"),
                            "default": .object(["duration": .number(fade.seconds), "curve": .string(fade.curve.rawValue)])])
        }, read: { cursor, owner, reader in
            owner[keyPath: path] = try cursor.fade(defaultCurve: FadeSpec.defaultCrossfadeCurve, isCrossfade: true)
        })
    }

    /// A time or `[shortest, longest]`, each within `bounds` (`JSONCursor.timeRange`); required when `hint` is
    /// given, else defaulting to the owner's own.
    static func timeRange(_ key: String, _ path: WritableKeyPath<Owner, ClosedRange<Double>>, in bounds: ClosedRange<Double>,
                          required hint: String? = nil, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: hint, schema: { defaults in
            .object(["description": .string(description), "$ref": .string("#/$defs/timeRange"),
                     "default": hint == nil ? rangeValue(defaults[keyPath: path]) : nil])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.timeRange(in: bounds) })
    }

    /// A time range that may be left out (nil: the owner's own choice, such as all of a file).
    static func timeRange(_ key: String, _ path: WritableKeyPath<Owner, ClosedRange<Double>?>, in bounds: ClosedRange<Double>,
                          _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in
            .object(["description": .string(description), "$ref": .string("#/$defs/timeRange")])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.timeRange(in: bounds) })
    }

    /// A number or `[low, high]`, each within `bounds` (`JSONCursor.numberRange`), defaulting to the owner's own.
    static func numberRange(_ key: String, _ path: WritableKeyPath<Owner, ClosedRange<Double>>, in bounds: ClosedRange<Double>,
                            _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            let number = SchemaValue.object(["type": .string("number"), "minimum": .number(bounds.lowerBound), "maximum": .number(bounds.upperBound)])
            return .object(["description": .string(description),
                            "oneOf": .array([number, .object(["type": .string("array"), "minItems": .number(2), "maxItems": .number(2), "items": number])]),
                            "default": rangeValue(defaults[keyPath: path])])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.numberRange(in: bounds) })
    }

    /// `x` for `x...x`, else `[low, high]`: a range as the preset writes it.
    private static func rangeValue(_ range: ClosedRange<Double>) -> SchemaValue {
        range.lowerBound == range.upperBound ? .number(range.lowerBound)
                                             : .array([.number(range.lowerBound), .number(range.upperBound)])
    }

    /// A number within a limit the caller's overrides share (`NumberLimit`: an output's quality, a loudness target);
    /// required when `hint` is given, else defaulting to the owner's own.
    static func number(_ key: String, _ path: WritableKeyPath<Owner, Double>, _ limit: NumberLimit, required hint: String? = nil,
                       _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: hint, schema: { defaults in
            .object([SchemaValue.Member("description", .string(description))] + limit.schema
                    + (hint == nil ? [SchemaValue.Member("default", .number(defaults[keyPath: path]))] : []))
        }, read: { cursor, owner, _ in owner[keyPath: path] = try limit.read(cursor) })
    }

    /// A whole number within a limit (`NumberLimit`: an output's sample rate, which the caller's overrides share;
    /// espeak-ng's rate), defaulting to the owner's own.
    static func number(_ key: String, _ path: WritableKeyPath<Owner, Int>, _ limit: NumberLimit, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            .object([SchemaValue.Member("description", .string(description))] + limit.schema
                    + [SchemaValue.Member("default", .number(Double(defaults[keyPath: path])))])
        }, read: { cursor, owner, _ in owner[keyPath: path] = Int(try limit.read(cursor)) })
    }

    /// A whole number within a limit the caller's overrides share, that may be left out (an output's bitrate).
    static func number(_ key: String, _ path: WritableKeyPath<Owner, Int?>, _ limit: NumberLimit, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in
            .object([SchemaValue.Member("description", .string(description))] + limit.schema)
        }, read: { cursor, owner, _ in owner[keyPath: path] = Int(try limit.read(cursor)) })
    }

    /// A time of 0 or more (`JSONCursor.time`), defaulting to the owner's own.
    static func time(_ key: String, _ path: WritableKeyPath<Owner, Double>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "$ref": .string("#/$defs/time"), "default": .number(defaults[keyPath: path])])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.time(allowingZero: true) })
    }

    /// A curve's name (not `equalGain`, which only crossfades take), defaulting to the owner's own.
    static func curve(_ key: String, _ path: WritableKeyPath<Owner, Curve>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { defaults in
            .object(["description": .string(description), "$ref": .string("#/$defs/curve"), "default": .string(defaults[keyPath: path].rawValue)])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.curve(allowingEqualGain: false) })
    }

    /// A fade (`"5s"`, `5` or `{"duration": "5s", "curve": "sCurve"}`) that may be left out (nil: none).
    static func fade(_ key: String, _ path: WritableKeyPath<Owner, FadeSpec?>, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in
            .object(["description": .string(description), "$ref": .string("#/$defs/fade")])
        }, read: { cursor, owner, _ in owner[keyPath: path] = try cursor.fade() })
    }

    /// An object of settings of its own (the master's limiter), declared by `settings`, read over the owner's own.
    static func object<Value>(_ key: String, _ path: WritableKeyPath<Owner, Value>, _ settings: DeclaredSettings<Value>) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in settings.schema }, read: { cursor, owner, reader in
            owner[keyPath: path] = try settings.read(cursor, over: owner[keyPath: path], reader: reader)
        })
    }

    /// An object of settings of its own that may be left out (nil: none), read over its declared defaults.
    static func object<Value>(_ key: String, _ path: WritableKeyPath<Owner, Value?>, _ settings: DeclaredSettings<Value>) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in settings.schema }, read: { cursor, owner, reader in
            owner[keyPath: path] = try settings.read(cursor, reader: reader)
        })
    }

    /// A number within a limit the caller's overrides share, that may be left out (a voice's loudness instead of its level).
    static func number(_ key: String, _ path: WritableKeyPath<Owner, Double?>, _ limit: NumberLimit, _ description: String) -> Self {
        DeclaredSetting(key: key, requiredHint: nil, schema: { _ in
            .object([SchemaValue.Member("description", .string(description))] + limit.schema)
        }, read: { cursor, owner, _ in owner[keyPath: path] = try limit.read(cursor) })
    }

    /// A shape read by `read` whose schema is kept in `docs/preset.schema.json` as it is written there.
    static func inTemplate(_ key: String, read: @escaping (JSONCursor, inout Owner, any SourceReader) throws -> Void) -> Self {
        var setting = DeclaredSetting(key: key, requiredHint: nil, schema: { _ in .null }, read: read)
        setting.isInTemplate = true
        return setting
    }

    /// A shape of the owner's own: `read` reads it, `schema` says it (given the defaults).
    static func custom(_ key: String, required hint: String? = nil, schema: @escaping (Owner) -> SchemaValue,
                       read: @escaping (JSONCursor, inout Owner, any SourceReader) throws -> Void) -> Self {
        DeclaredSetting(key: key, requiredHint: hint, schema: schema, read: read)
    }

    /// Keys read together from the settings object (the speech settings beside a `speech` track's text), whichever
    /// of them are given: `read` reads them from the object, `properties` says them.
    static func group(_ keys: [String], properties: @escaping (Owner) -> [SchemaValue.Member],
                      read: @escaping (JSONObjectCursor, inout Owner, any SourceReader) throws -> Void) -> Self {
        DeclaredSetting(keys: keys, requiredHint: nil, properties: properties, reading: .members(read))
    }

    private init(keys: [String], requiredHint: String?, properties: @escaping (Owner) -> [SchemaValue.Member], reading: Reading) {
        self.keys = keys; self.requiredHint = requiredHint; self.properties = properties; self.reading = reading
    }
}
