import MixRender

/// Why a request was refused, as the API answers it (RFC 9457 problem details): the status, a title, one line of
/// detail worded as the command line words it, and where in the request (`preset.tracks[2].gainDb`) when the
/// fault is in the request.
struct RenderProblem: Error, Sendable, Equatable {
    var status: Int
    var title: String
    var detail: String
    /// Where in the request body, when the fault is there.
    var jsonPath: String?
    /// Why, without the path.
    var reason: String?
    /// Seconds to wait before trying again (429).
    var retryAfter: Int?

    static func badRequest(_ detail: String, jsonPath: String? = nil) -> RenderProblem {
        RenderProblem(status: 400, title: "Bad request", detail: detail, jsonPath: jsonPath)
    }

    static func notFound(_ what: String) -> RenderProblem {
        RenderProblem(status: 404, title: "Not found", detail: what)
    }

    static func notReady(_ detail: String) -> RenderProblem {
        RenderProblem(status: 409, title: "Not ready", detail: detail)
    }

    static func tooLarge(_ detail: String) -> RenderProblem {
        RenderProblem(status: 413, title: "Content too large", detail: detail)
    }

    static func unprocessable(jsonPath: String, reason: String) -> RenderProblem {
        RenderProblem(status: 422, title: "Invalid render request",
                      detail: jsonPath.isEmpty ? reason : "\(jsonPath): \(reason)", jsonPath: jsonPath, reason: reason)
    }

    static func tooMany(_ detail: String, retryAfter: Int) -> RenderProblem {
        RenderProblem(status: 429, title: "Too many requests", detail: detail, retryAfter: retryAfter)
    }

    static func internalError(_ detail: String) -> RenderProblem {
        RenderProblem(status: 500, title: "Internal error", detail: detail)
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

    /// The problem as the API's JSON body.
    var document: JSONValue {
        var members: [JSONValue.Member] = [
            .init("type", .string("about:blank")), .init("title", .string(title)), .init("status", .number(Double(status))),
            .init("detail", .string(detail)),
        ]
        if let jsonPath { members.append(.init("jsonPath", .string(jsonPath))) }
        if let reason { members.append(.init("reason", .string(reason))) }
        return .object(JSONObject(members))
    }
}

extension RenderProblem {
    /// An engine error about a request's render, placed in the request: a preset error at `preset.` + its path, a
    /// setting at the request member that gave it, a file by the name the request used (never the server's path:
    /// `nameOf` turns a path back into the name, and any other path is left out); a result that cannot be written is
    /// the server's fault (500), not the request's.
    init(_ error: EngineError, nameOf: (String) -> String?) {
        switch error {
        case .preset(let preset):
            let path = preset.jsonPath.isEmpty ? "preset" : "preset." + preset.jsonPath
            self = .unprocessable(jsonPath: path, reason: RenderProblem.hidingPaths(preset.message, nameOf: nameOf))
        case .setting(let setting, let reason):
            let path = RenderProblem.requestPath(of: setting)
            self = .unprocessable(jsonPath: path, reason: reason.words(naming: RenderProblem.requestPath(of:)))
        case .input(let path, let reason), .part(let path, let reason):
            let name = nameOf(path) ?? "a sound"
            self = .unprocessable(jsonPath: "preset",
                                  reason: "cannot read '\(name)': " + RenderProblem.hidingPaths("\(reason)", nameOf: nameOf))
        case .output(_, let reason):
            // Writing the result is the server's part (its disk), not the request's.
            self = RenderProblem(status: 500, title: "Render failed",
                                 detail: "the server could not write the result: " + RenderProblem.hidingPaths("\(reason)", nameOf: nameOf))
        }
    }
}

extension RenderProblem: CustomStringConvertible {
    /// The one line of detail: what `mixrender serve` prints when a start-up fault stops it.
    var description: String { detail }
}
