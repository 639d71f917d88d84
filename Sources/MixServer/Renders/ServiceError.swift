import MixRender

/// Why the service could not do what was asked: the domain's errors, with no HTTP in them. The service, the runner,
/// the stores and the handlers throw these; `HTTPProblem.init(_:)` is the one place that turns each into a status
/// and a problem document (docs/serve.md lists them). Each carries one line worded as the command line words it.
enum ServiceError: Error, Sendable, Equatable {
    /// The request cannot be read as one (a body that is not JSON, a name too long, a hash that is not one): where,
    /// when one member is at fault, and why.
    case malformed(jsonPath: String?, reason: String)
    /// The request reads but asks for what cannot be (a preset's error, a limit of this server passed): where in
    /// the request (`preset.tracks[2].gainDb`) and why.
    case invalid(jsonPath: String, reason: String)
    /// More bytes than the server takes (a body, an upload).
    case tooLarge(String)
    /// No such render, sound or file for this caller.
    case notFound(String)
    /// Asked of a render that has not succeeded (yet).
    case notReady(String)
    /// A stored render whose inputs (its sounds, this mixrender) changed since it was submitted.
    case inputsChanged(String)
    /// The caller has as many renders waiting as it may, or the queue is full: try again after `retryAfter` seconds.
    case busy(String, retryAfter: Int)
    /// The server cannot now (its job store does not answer, its disk is full): try again after `retryAfter` seconds.
    case unavailable(String, retryAfter: Int)
    /// No token, or one the server does not know.
    case unauthorized(String)
    /// A token the server knows, asking what it may not (a token limited to templates asking for a preset).
    case forbidden(String)
    /// What the request would change cannot change (a published template's version).
    case conflict(String)
    /// The render ran and failed on the server's side (its time limit, its disk).
    case renderFailed(String)
    /// A fault of the server's own.
    case internalFault(String)

    /// A malformed request with no single member at fault.
    static func malformed(_ reason: String) -> ServiceError { .malformed(jsonPath: nil, reason: reason) }

    /// The one line: what a log, a failed job and the problem document's `detail` say.
    var detail: String {
        switch self {
        case .malformed(let jsonPath?, let reason), .invalid(let jsonPath, let reason):
            jsonPath.isEmpty ? reason : "\(jsonPath): \(reason)"
        case .malformed(nil, let reason): reason
        case .tooLarge(let detail), .notFound(let detail), .notReady(let detail), .inputsChanged(let detail),
             .busy(let detail, _), .unavailable(let detail, _), .unauthorized(let detail), .forbidden(let detail),
             .conflict(let detail), .renderFailed(let detail),
             .internalFault(let detail):
            detail
        }
    }
}

extension ServiceError: CustomStringConvertible {
    var description: String { detail }
}

extension ServiceError {
    /// An engine error about a request's render, placed in the request: a preset error at `preset.` + its path, a
    /// setting at the request member that gave it, a file by the name the request used (never the server's path:
    /// `nameOf` turns a path back into the name, and any other path is left out); a result that cannot be written is
    /// the server's fault, not the request's.
    init(_ error: EngineError, nameOf: (String) -> String?) {
        switch error {
        case .preset(let preset):
            if let bed = nameOf(preset.file) {
                // A fault inside a bed the preset names (a preset file of the server's): the request's `bed` is where it
                // is, and the bed's own path says where in it.
                let inner = preset.jsonPath.isEmpty ? "" : preset.jsonPath + ": "
                self = .invalid(jsonPath: "preset.bed", reason: "in the bed '\(bed)': " + inner + Self.hidingPaths(preset.message, nameOf: nameOf))
                return
            }
            let path = preset.jsonPath.isEmpty ? "preset" : "preset." + preset.jsonPath
            self = .invalid(jsonPath: path, reason: Self.hidingPaths(preset.message, nameOf: nameOf))
        case .setting(let setting, let reason):
            self = .invalid(jsonPath: Self.requestPath(of: setting), reason: reason.words(naming: Self.requestPath(of:)))
        case .input(let path, let reason), .part(let path, let reason):
            let name = nameOf(path) ?? "a sound"
            self = .invalid(jsonPath: "preset", reason: "cannot read '\(name)': " + Self.hidingPaths("\(reason)", nameOf: nameOf))
        case .output(_, let reason):
            // Writing the result is the server's part (its disk), not the request's.
            self = .renderFailed("the server could not write the result: " + Self.hidingPaths("\(reason)", nameOf: nameOf))
        }
    }

    /// The request member that gives `setting` (`overrides.durationSeconds` for `.duration`).
    static func requestPath(of setting: EngineSetting) -> String {
        switch setting {
        case .duration: return "overrides.durationSeconds"
        case .start: return "overrides.startSeconds"
        case .end: return "overrides.endSeconds"
        case .loudness: return "overrides.loudness"
        case .truePeak: return "overrides.truePeakDb"
        case .sampleRate: return "settings.sampleRate"
        case .quality: return "settings.quality"
        case .bitrate: return "settings.bitrateKbps"
        case .format, .output: return "format"
        default: return setting.rawValue
        }
    }

    /// `text` with every quoted path the server resolved replaced by the name the request gave it.
    static func hidingPaths(_ text: String, nameOf: (String) -> String?) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "'") {
            result += rest[..<open]
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "'") else { result += rest[open...]; return result }
            let quoted = String(rest[after..<close])
            result += "'" + (quoted.hasPrefix("/") ? (nameOf(quoted) ?? "a file") : quoted) + "'"
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
