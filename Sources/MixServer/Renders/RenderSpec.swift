import MixRender

/// A render as asked for: the preset (inline) and what a render of it may change (format, output settings,
/// overrides). It is what a job stores (`NewJob.request`, as JSON) and what a worker on any server reads back to
/// render it, so it holds no path: its sounds are named as the server knows them (`sha256:<hex>`, `folder/path`).
struct RenderSpec: Sendable, Equatable {
    var preset: JSONValue
    var name: String
    var format: OutputFileFormat
    var overrides: RenderOverrides

    /// The spec as the JSON document a job stores: the members in a fixed order, absent settings left out.
    var document: JSONValue {
        typealias Member = JSONValue.Member
        let given = overrides
        var settings: [Member] = [], overrides: [Member] = []
        if let rate = given.sampleRate { settings.append(Member("sampleRate", .number(Double(rate)))) }
        if let quality = given.quality { settings.append(Member("quality", .number(quality))) }
        if let bitrate = given.bitrateKbps { settings.append(Member("bitrateKbps", .number(Double(bitrate)))) }
        if let seconds = given.durationSeconds { overrides.append(Member("durationSeconds", .number(seconds))) }
        if let seconds = given.startSeconds { overrides.append(Member("startSeconds", .number(seconds))) }
        if let seconds = given.endSeconds { overrides.append(Member("endSeconds", .number(seconds))) }
        if let target = given.loudnessTarget { overrides.append(Member("loudness", .number(target))) }
        if let ceiling = given.truePeakDb { overrides.append(Member("truePeakDb", .number(ceiling))) }
        if given.loopable { overrides.append(Member("loopable", .bool(true))) }
        return .object(JSONObject([Member("preset", preset), Member("name", .string(name)),
                                   Member("format", .string(format.fileExtension)),
                                   Member("settings", .object(JSONObject(settings))),
                                   Member("overrides", .object(JSONObject(overrides)))]))
    }

    /// The spec a job stored (`document`), read back. The server wrote it, but a database is read as untrusted:
    /// anything missing or of the wrong type is an error naming it.
    init(document: JSONValue) throws(RenderRequestError) {
        guard case .object(let root) = document, let preset = root["preset"], case .object = preset else {
            throw RenderRequestError(jsonPath: "preset", reason: "the stored request has no preset object")
        }
        self.preset = preset
        if case .string(let name)? = root["name"] { self.name = name } else { self.name = "preset" }
        guard case .string(let format)? = root["format"], let chosen = OutputFileFormat.named(format) else {
            throw RenderRequestError(jsonPath: "format", reason: "the stored request has no known format")
        }
        self.format = chosen
        overrides = try RenderSpec.overrides(settings: root["settings"], overrides: root["overrides"])
    }

    init(preset: JSONValue, name: String, format: OutputFileFormat, overrides: RenderOverrides) {
        self.preset = preset
        self.name = name
        self.format = format
        self.overrides = overrides
    }

    /// `settings` and `overrides` (objects of numbers, as the API's `OutputSettings` and `Overrides`) as the
    /// engine's `RenderOverrides`; whether the values can work is the engine's to say when it plans the render.
    static func overrides(settings: JSONValue?, overrides: JSONValue?) throws(RenderRequestError) -> RenderOverrides {
        var result = RenderOverrides()
        let settings = try object(settings, at: "settings"), given = try object(overrides, at: "overrides")
        result.sampleRate = try integer(settings["sampleRate"], at: "settings.sampleRate")
        result.quality = try number(settings["quality"], at: "settings.quality")
        result.bitrateKbps = try integer(settings["bitrateKbps"], at: "settings.bitrateKbps")
        result.durationSeconds = try number(given["durationSeconds"], at: "overrides.durationSeconds")
        result.startSeconds = try number(given["startSeconds"], at: "overrides.startSeconds")
        result.endSeconds = try number(given["endSeconds"], at: "overrides.endSeconds")
        result.loudnessTarget = try number(given["loudness"], at: "overrides.loudness")
        result.truePeakDb = try number(given["truePeakDb"], at: "overrides.truePeakDb")
        switch given["loopable"] {
        case nil, .null?: break
        case .bool(let loopable)?: result.loopable = loopable
        default: throw RenderRequestError(jsonPath: "overrides.loopable", reason: "must be true or false")
        }
        return result
    }

    private static func object(_ value: JSONValue?, at path: String) throws(RenderRequestError) -> JSONObject {
        switch value {
        case nil, .null?: return JSONObject()
        case .object(let object)?: return object
        default: throw RenderRequestError(jsonPath: path, reason: "must be an object")
        }
    }

    private static func number(_ value: JSONValue?, at path: String) throws(RenderRequestError) -> Double? {
        switch value {
        case nil, .null?: return nil
        case .number(let n)? where n.isFinite: return n
        default: throw RenderRequestError(jsonPath: path, reason: "must be a number")
        }
    }

    private static func integer(_ value: JSONValue?, at path: String) throws(RenderRequestError) -> Int? {
        guard let n = try number(value, at: path) else { return nil }
        guard n == n.rounded(), abs(n) < 1e15 else {
            throw RenderRequestError(jsonPath: path, reason: "must be a whole number")
        }
        return Int(n)
    }
}

/// A request that cannot be read as a render: where (`jsonPath` in the request body) and why.
struct RenderRequestError: Error, Sendable, Equatable {
    var jsonPath: String
    var reason: String
}
