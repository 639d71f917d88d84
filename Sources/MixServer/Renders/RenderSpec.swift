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
    let overrides: RenderOverrides
    /// How soon the job renders among the queued ones (the request's `priority`, interactive when absent).
    let priority: JobPriority
    /// The request as a job stores it: the generated type's JSON (its name filled in, its webhook left out, which is
    /// the owner's, and its priority, which is the job's), keys sorted, made once here.
    let storedRequest: String

    /// The longest `name` a request may give (openapi.yaml's maxLength, in Unicode scalars as JSON Schema counts).
    static let longestName = 200

    /// The API's request as the service's render. Refuses a name past the document's `maxLength` (which the generated
    /// code does not check) or with control characters, naming `name`.
    init(request given: Components.Schemas.RenderRequest) throws(ServiceError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            preset = try JSONValue.parse([UInt8](try encoder.encode(given.preset)))
        } catch {
            throw .malformed(jsonPath: "preset", reason: "cannot be read as JSON: \(error)")
        }
        if let name = given.name {
            if name.unicodeScalars.count > Self.longestName {
                throw .malformed(jsonPath: "name", reason: "has \(name.unicodeScalars.count) characters; a name has at most \(Self.longestName)")
            }
            if !Self.isFitName(name) {
                throw .invalid(jsonPath: "name", reason: "a name cannot hold control characters")
            }
        }
        name = given.name ?? Self.ownName(of: preset) ?? "preset"
        formats = try Self.formats(format: given.format, outputs: given.outputs)
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
        var kept = given
        kept.name = name
        kept.webhook = nil
        kept.priority = nil   // the job's, not the render's: two requests for one render may differ in it
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            storedRequest = String(decoding: try encoder.encode(kept), as: UTF8.self)
        } catch {
            throw .internalFault("the request cannot be stored: \(error)")
        }
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
        try self.init(request: request)
    }

    /// The most files one render may write (openapi.yaml's `maxItems`).
    static let mostOutputs = 8

    /// The request's formats: its `outputs`, each once, or its `format` (m4a when neither is given); never both. What
    /// the document itself forbids (`minItems`, `maxItems`, `uniqueItems`) is malformed (400), before the rule the
    /// document cannot say, `format` and `outputs` together (422).
    static func formats(format: Components.Schemas.Format?, outputs: [Components.Schemas.Format]?) throws(ServiceError) -> [OutputFileFormat] {
        guard let outputs else { return [format.flatMap { OutputFileFormat.named($0.rawValue) } ?? .m4a] }
        guard !outputs.isEmpty else { throw .malformed(jsonPath: "outputs", reason: "is empty; name one format or more") }
        guard outputs.count <= mostOutputs else {
            throw .malformed(jsonPath: "outputs", reason: "names \(outputs.count) formats; a render writes at most \(mostOutputs)")
        }
        var formats: [OutputFileFormat] = []
        for (index, output) in outputs.enumerated() {
            guard let format = OutputFileFormat.named(output.rawValue) else {
                throw .malformed(jsonPath: "outputs[\(index)]", reason: "'\(output.rawValue)' is not a format this server writes")
            }
            if formats.contains(format) {
                throw .malformed(jsonPath: "outputs[\(index)]", reason: "names \(output.rawValue) a second time; each format is written once")
            }
            formats.append(format)
        }
        if format != nil { throw .invalid(jsonPath: "outputs", reason: "cannot be given with format; give the formats in outputs alone") }
        return formats
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
