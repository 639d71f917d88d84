import Foundation
import MixRender
import OpenAPIRuntime

/// A render as asked for, read from the API's request (`Components.Schemas.RenderRequest`, generated from
/// openapi.yaml) by the one mapping, `init(request:)`: the preset as the engine's JSON value, the name, the format
/// and what a render of it may change (`RenderOverrides`).
///
/// A job stores the request itself (`storedRequest`: the generated type as JSON, without its webhook, which is the
/// owner's), and a worker on any server reads it back with the same type and the same mapping
/// (`init(storedRequest:)`). It holds no path: its sounds are named as the server knows them (`sha256:<hex>`,
/// `folder/path`).
struct RenderSpec: Sendable {
    let preset: JSONValue
    let name: String
    /// The first output's format: the render's `format`, its `/audio`.
    var format: OutputFileFormat { formats[0] }
    /// Every file the render writes from one mix (the request's `outputs`, or its one `format`), each format once.
    let formats: [OutputFileFormat]
    /// Each output's own quality or bitrate (nil: the request's `settings`), in the order of `formats`.
    let encodings: [OutputEncoding?]
    /// Where the request named its formats: `outputs[N]` for each, or `format` for its one.
    var formatPaths: [String] { usesOutputs ? formats.indices.map { "outputs[\($0)]" } : ["format"] }
    /// Whether the request gave `outputs` (rather than `format`).
    let usesOutputs: Bool
    let overrides: RenderOverrides
    /// How soon the job renders among the queued ones (the request's `priority`, interactive when absent).
    let priority: JobPriority
    /// Whether the render is also written as HLS while it runs (the request's `stream`): part of the render, and of its id.
    let stream: Bool
    /// Where the requesting token wants the files uploaded (the request's `deliveries`): the owner's, not the job's.
    let uploads: [UploadDestination]
    /// The request as a job stores it: the generated type's JSON (its name filled in, its webhook left out, which is
    /// the owner's, and its priority, which is the job's), keys sorted, made once here.
    let storedRequest: String

    /// The longest `name` a request may give (openapi.yaml's maxLength, in Unicode scalars as JSON Schema counts).
    static let longestName = 200

    /// The API's request as the service's render: first what the document forbids (`checkShape`, 400s naming where),
    /// then the server's rules (422s), a name with control characters among them.
    init(request: Components.Schemas.RenderRequest) throws(ServiceError) {
        // What the document forbids (400s) before any rule of the server's (422s).
        try Self.checkShape(request)
        try self.init(checkedRequest: request)
    }

    /// `request`, whose shape `checkShape` has passed (`RenderService.spec(for:)`, which fills a template between), as
    /// the service's render: the server's rules (422s).
    init(checkedRequest request: Components.Schemas.RenderRequest) throws(ServiceError) {
        let given = request
        guard let inline = given.preset else {
            // The document allows a request without one (a template's stands in): the rule is the server's, a 422.
            throw .invalid(jsonPath: "preset", reason: "give a preset, or a template and its variables")
        }
        preset = try Self.jsonValue(inline, jsonPath: "preset")
        if let name = given.name {
            if !Self.isFitName(name) {
                throw .invalid(jsonPath: "name", reason: "a name cannot hold control characters")
            }
        }
        name = given.name ?? Self.ownName(of: preset) ?? "preset"
        (formats, encodings) = try Self.formats(format: given.format, outputs: given.outputs)
        usesOutputs = given.outputs != nil
        var overrides = RenderOverrides()
        overrides.sampleRate = given.settings?.sampleRate
        overrides.quality = given.settings?.quality
        overrides.bitrateKbps = given.settings?.bitrateKbps
        overrides.durationSeconds = given.overrides?.durationSeconds
        overrides.startSeconds = given.overrides?.startSeconds
        overrides.endSeconds = given.overrides?.endSeconds
        overrides.loudnessTarget = given.overrides?.loudness
        overrides.truePeakDb = given.overrides?.truePeakDb
        overrides.loopable = given.overrides?.loopable ?? false
        self.overrides = overrides
        priority = given.priority == .background ? .background : .interactive
        stream = given.stream ?? false
        uploads = try Self.uploads(given.deliveries, formats: formats)
        var kept = given
        kept.name = name
        kept.webhook = nil
        kept.deliveries = nil
        kept.priority = nil   // the job's, not the render's: two requests for one render may differ in it
        kept.stream = stream ? true : nil   // false and absent are one render
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            storedRequest = String(decoding: try encoder.encode(kept), as: UTF8.self)
        } catch {
            throw .internalFault("the request cannot be stored: \(error)")
        }
    }

    /// Whether a job's stored request asked for a stream: what a queued job's status needs of it, without the preset's
    /// values (a request the server did not store reads as no stream).
    static func streams(storedRequest text: String) -> Bool {
        struct Flag: Decodable { var stream: Bool? }
        guard let flag = try? JSONDecoder().decode(Flag.self, from: Data(text.utf8)) else { return false }
        return flag.stream ?? false
    }

    /// A job's stored request, read back as the API reads a request. The server wrote it, but a database is read as
    /// untrusted: what does not decode is an internal fault naming where.
    init(storedRequest text: String) throws(ServiceError) {
        let request: Components.Schemas.RenderRequest
        do {
            request = try JSONDecoder().decode(Components.Schemas.RenderRequest.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            let where_ = DecodingProblem.problem(error, body: Array(text.utf8), decoding: Components.Schemas.RenderRequest.self)
            throw .internalFault("the stored request cannot be read: \(where_.detail)")
        } catch {
            throw .internalFault("the stored request cannot be read: \(error)")
        }
        // A stored request is always a filled one: its template, if it had one, became its preset.
        guard request.preset != nil else { throw .internalFault("the stored request cannot be read: it has no preset") }
        try self.init(request: request)
    }

    /// A JSON object of the request (the preset, a template, its variables) as the engine's value.
    static func jsonValue(_ object: OpenAPIObjectContainer, jsonPath: String) throws(ServiceError) -> JSONValue {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try JSONValue.parse([UInt8](try encoder.encode(object)))
        } catch {
            throw .malformed(jsonPath: jsonPath, reason: "cannot be read as JSON: \(error)")
        }
    }

    /// What the document forbids of `request` that the generated code does not check (a name's length, the outputs'
    /// and the deliveries' limits): each a 400 naming where, found before any rule the document cannot say (a preset
    /// and a template together, a delivery of a file the render does not write), which are 422s.
    static func checkShape(_ request: Components.Schemas.RenderRequest) throws(ServiceError) {
        if let name = request.name, name.unicodeScalars.count > longestName {
            throw .malformed(jsonPath: "name", reason: "has \(name.unicodeScalars.count) characters; a name has at most \(longestName)")
        }
        if let template = request.template {
            guard PresetTemplate.isTemplateName(template.name) else {
                throw .malformed(jsonPath: "template.name", reason: "a template's name is 1 to 64 lowercase letters, digits and '-'")
            }
            guard (1...1_000_000).contains(template.version) else {
                throw .malformed(jsonPath: "template.version", reason: "a version is a whole number from 1 to 1000000")
            }
        }
        if let variables = request.variables, variables.value.count > 64 {
            throw .malformed(jsonPath: "variables", reason: "has \(variables.value.count) members; a request gives at most 64")
        }
        try checkOutputs(request.outputs)
        try checkDeliveries(request.deliveries)
    }

    /// What the document forbids of `outputs` (`minItems`, `maxItems`, `uniqueItems`, a format the server does not
    /// write): 400s, each naming the item.
    private static func checkOutputs(_ outputs: [Components.Schemas.RenderRequest.outputsPayloadPayload]?) throws(ServiceError) {
        guard let outputs else { return }
        guard !outputs.isEmpty else { throw .malformed(jsonPath: "outputs", reason: "is empty; name one format or more") }
        guard outputs.count <= mostOutputs else {
            throw .malformed(jsonPath: "outputs", reason: "names \(outputs.count) formats; a render writes at most \(mostOutputs)")
        }
        for (index, output) in outputs.enumerated() {
            let named = output.format
            guard OutputFileFormat.named(named.rawValue) != nil else {
                throw .malformed(jsonPath: "outputs[\(index)]", reason: "'\(named.rawValue)' is not a format this server writes")
            }
            if outputs[..<index].contains(output) {
                throw .malformed(jsonPath: "outputs[\(index)]", reason: "names \(named.rawValue) a second time; each format is written once")
            }
        }
    }

    /// What the document forbids of `deliveries` (`minItems`, `maxItems`, `uniqueItems`, a URL's, a header's and the
    /// headers' bounds): 400s, each naming the item.
    private static func checkDeliveries(_ given: [Components.Schemas.Delivery]?) throws(ServiceError) {
        guard let given else { return }
        guard !given.isEmpty else { throw .malformed(jsonPath: "deliveries", reason: "is empty; give one delivery or more, or leave it out") }
        guard given.count <= mostUploads else {
            throw .malformed(jsonPath: "deliveries", reason: "has \(given.count) deliveries; a request gives at most \(mostUploads)")
        }
        for (index, upload) in given.enumerated() {
            let path = "deliveries[\(index)]"
            guard upload.url.utf8.count <= HostAllowList.maximumURLLength else {
                throw .malformed(jsonPath: path + ".url", reason: "is longer than \(HostAllowList.maximumURLLength) bytes")
            }
            let pairs = upload.headers?.additionalProperties ?? [:]
            guard pairs.count <= 20 else { throw .malformed(jsonPath: path + ".headers", reason: "has \(pairs.count) headers; at most 20") }
            for (name, value) in pairs.sorted(by: { $0.key < $1.key }) where value.utf8.count > 4096 {
                throw .malformed(jsonPath: path + ".headers." + (isToken(name) ? name : "(name)"), reason: "is longer than 4096 bytes")
            }
            if given[..<index].contains(upload) { throw .malformed(jsonPath: path, reason: "is the same delivery as one before it") }
        }
    }

    /// The most files one render may write (openapi.yaml's `maxItems`).
    static let mostOutputs = 8

    /// The request's formats: its `outputs`, each once, or its `format` (m4a when neither is given); never both. The
    /// rules the document cannot say (422s); what it forbids `checkShape` has refused (400s) before.
    static func formats(format: Components.Schemas.Format?, outputs: [Components.Schemas.RenderRequest.outputsPayloadPayload]?)
        throws(ServiceError) -> (formats: [OutputFileFormat], encodings: [OutputEncoding?]) {
        guard let outputs else { return ([format.flatMap { OutputFileFormat.named($0.rawValue) } ?? .m4a], [nil]) }
        var formats: [OutputFileFormat] = []
        var encodings: [OutputEncoding?] = []
        for (index, output) in outputs.enumerated() {
            let named: Components.Schemas.Format
            var encoding: OutputEncoding? = nil
            switch output {
            case .Format(let value): named = value
            case .OutputChoice(let choice):
                named = choice.format
                let chosen = OutputEncoding(quality: choice.quality, bitrateKbps: choice.bitrateKbps,
                                            sampleRate: choice.sampleRate, channelCount: choice.channels, loudnessLUFS: choice.loudness)
                if chosen != OutputEncoding() {
                    if let refusal = chosen.refusal { throw .invalid(jsonPath: "outputs[\(index)]", reason: refusal) }
                    encoding = chosen
                }
            }
            guard let format = OutputFileFormat.named(named.rawValue) else {
                throw .malformed(jsonPath: "outputs[\(index)]", reason: "'\(named.rawValue)' is not a format this server writes")
            }
            if formats.contains(format) {
                // A format named twice in two spellings ("caf" and {"format": "caf"}); the same item twice is a 400.
                throw .invalid(jsonPath: "outputs[\(index)]", reason: "names \(named.rawValue) a second time; each format is written once")
            }
            formats.append(format)
            encodings.append(encoding)
        }
        if format != nil { throw .invalid(jsonPath: "outputs", reason: "cannot be given with format; give the formats in outputs alone") }
        return (formats, encodings)
    }

    /// The most uploads one request may ask for (openapi.yaml's `maxItems`).
    static let mostUploads = 8

    /// Headers an upload may not set: the connection's own, and what the server sets from the file.
    static let refusedUploadHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "expect",
        "proxy-authorization", "proxy-connection", "user-agent",
    ]

    /// The request's uploads, checked by the rules the document cannot say (422s; `checkShape` has refused what it
    /// forbids): each names a file the render writes (its first when it names none), each header
    /// a field name (RFC 9110's token, not one the connection or the server sets) and a value without control
    /// characters, and none twice. Whether the host is allowed is the service's to say (`RenderService.submit`).
    static func uploads(_ given: [Components.Schemas.Delivery]?, formats: [OutputFileFormat]) throws(ServiceError) -> [UploadDestination] {
        guard let given else { return [] }
        var uploads: [UploadDestination] = []
        for (index, upload) in given.enumerated() {
            let path = "deliveries[\(index)]"
            let format: OutputFileFormat
            if let output = upload.output {
                guard let named = OutputFileFormat.named(output.rawValue), formats.contains(named) else {
                    throw .invalid(jsonPath: path + ".output", reason: "the render writes no \(output.rawValue) file; it writes \(formats.map(\.fileExtension).joined(separator: ", "))")
                }
                format = named
            } else {
                format = formats[0]
            }
            let pairs = upload.headers?.additionalProperties ?? [:]
            var headers: [String: String] = [:]
            for (name, value) in pairs.sorted(by: { $0.key < $1.key }) {
                let headerPath = path + ".headers." + (isToken(name) ? name : "(name)")
                guard isToken(name) else {
                    throw .invalid(jsonPath: path + ".headers", reason: "'\(String(name.unicodeScalars.prefix(40)).debugDescription.dropFirst().dropLast())' is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
                }
                let lower = name.lowercased()
                if refusedUploadHeaders.contains(lower) || (lower == "content-md5" && upload.contentMD5 != false) {
                    throw .invalid(jsonPath: headerPath, reason: "is set by the server, not by a request")
                }
                guard headers[lower] == nil else { throw .invalid(jsonPath: headerPath, reason: "is given twice (header names ignore case)") }
                guard !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7f }) else {
                    throw .invalid(jsonPath: headerPath, reason: "a header value cannot hold control characters (a line break would end the header)")
                }
                headers[lower] = value
            }
            let destination = UploadDestination(output: format.fileExtension, url: upload.url,
                                                method: upload.method?.rawValue ?? "PUT", headers: headers,
                                                contentMD5: upload.contentMD5 ?? true)
            if uploads.contains(destination) {
                // Two spellings of one delivery (the same item twice is a 400).
                throw .invalid(jsonPath: path, reason: "is the same delivery as one before it (method, headers and MD5 as given or as defaulted)")
            }
            uploads.append(destination)
        }
        return uploads
    }

    /// Whether `name` is an HTTP field name (RFC 9110's `token`).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 256 && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    static func isFitName(_ name: String) -> Bool {
        !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The preset's own `name`, when it has one that would do as the request's: what the report and the page's
    /// download call a render the request did not name.
    static func ownName(of preset: JSONValue) -> String? {
        guard case .string(let name)? = preset["name"], !name.trimmingCharacters(in: .whitespaces).isEmpty,
              name.unicodeScalars.count <= longestName, isFitName(name) else { return nil }
        return name
    }
}

extension Components.Schemas.RenderRequest.outputsPayloadPayload {
    /// The format an `outputs` item names, in either spelling.
    var format: Components.Schemas.Format {
        switch self {
        case .Format(let format): format
        case .OutputChoice(let choice): choice.format
        }
    }
}
