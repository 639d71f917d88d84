import Foundation
import MixRender

/// A request the generated code could not decode, as a 400 problem naming where (`settings.sampleRate`) and why.
///
/// Foundation's decoder names the path of most faults but not of a number that does not fit its member (`44100.5`
/// or `1e30` where the document says integer), nor of a syntax error: it says only that the data is not valid
/// JSON. For those the body is read again: a syntax error is the project's JSON parser's (line and column), and a
/// number that does not fit is found by decoding the body again with such numbers set to 0.
enum DecodingProblem {
    static func problem(_ error: DecodingError, body: [UInt8]?, decoding type: (any Decodable.Type)?) -> HTTPProblem {
        switch error {
        case .typeMismatch(_, let context):
            return located(context.codingPath, context.debugDescription)
        case .valueNotFound(_, let context):
            return located(context.codingPath, "must not be null (\(context.debugDescription))")
        case .keyNotFound(let key, let context):
            return located(context.codingPath + [key], "is required")
        case .dataCorrupted(let context) where context.debugDescription.hasPrefix("Additional properties are disabled"):
            return located(context.codingPath, "is not a member this request has (openapi.yaml)")
        case .dataCorrupted(let context) where unknownValue(context.debugDescription) != nil:
            let (value, values) = unknownValue(context.debugDescription)!
            return located(context.codingPath, "'\(PrintableText.escaped(value))' is not one this API takes; expected one of \(values.joined(separator: ", "))")
        case .dataCorrupted(let context):
            guard let body else { return located(context.codingPath, context.debugDescription) }
            let value: JSONValue
            do { value = try JSONValue.parse(body) } catch {
                return HTTPProblem(.malformed("the body is not JSON: \(error)"))
            }
            guard context.codingPath.isEmpty, let type else { return located(context.codingPath, context.debugDescription) }
            if let (path, number) = misfitNumber(in: value, decoding: type) {
                let reason = number == number.rounded(.towardZero)
                    ? "\(JSONValue.number(number).json(.compact)) is beyond the whole numbers this API takes (64 bits)"
                    : "must be a whole number, not \(JSONValue.number(number).json(.compact))"
                return HTTPProblem(.malformed(jsonPath: path, reason: reason))
            }
            return located([], context.debugDescription)
        @unknown default:
            return HTTPProblem(.malformed("the request does not fit the API (openapi.yaml): \(error)"))
        }
    }

    /// The values each enumeration of the document takes, by the name the generated type has (the one Foundation's
    /// message names): `format`'s, so that "aac" is answered with the formats, not "Cannot initialize Format from
    /// invalid String value aac".
    static let enumerations: [String: [String]] = [
        "Format": Components.Schemas.Format.allCases.map(\.rawValue),
        "Priority": Components.Schemas.Priority.allCases.map(\.rawValue),
    ]

    /// The value and the values it could have been, when `description` is Foundation's message for a string that is
    /// none of an enumeration's (`Cannot initialize Format from invalid String value aac`) of a type known here.
    static func unknownValue(_ description: String) -> (value: String, values: [String])? {
        let prefix = "Cannot initialize ", middle = " from invalid String value "
        guard description.hasPrefix(prefix), let range = description.range(of: middle) else { return nil }
        let type = String(description[description.index(description.startIndex, offsetBy: prefix.count)..<range.lowerBound])
        guard let values = enumerations[type] else { return nil }
        return (String(description[range.upperBound...]), values)
    }

    /// The first key that appears twice in one object of the body, as a 400 at its path (`format`,
    /// `preset.tracks[0].gainDb`): Foundation's decoder would take one of the two silently, and a gateway that
    /// checked the request with another parser may have seen the other (I-JSON, RFC 7493, 2.3). Nil when the body
    /// has no duplicate key, or is not JSON (the decoder says so).
    static func duplicateKey(in body: [UInt8]) -> HTTPProblem? {
        do {
            _ = try JSONValue.parse(body)
            return nil
        } catch let error as JSONSyntaxError {
            guard let key = error.duplicateKey else { return nil }
            let path = error.jsonPath.isEmpty ? key : error.jsonPath + "." + key
            let reason = "appears twice in one object; each key may appear once (I-JSON, RFC 7493)"
            return HTTPProblem(.malformed(jsonPath: path, reason: reason))
        } catch {
            return nil
        }
    }

    /// The first member of the request (not inside its free-form `preset` or `variables`) that is JSON null, with its path: the
    /// document allows null nowhere there, but the generated decoder reads a null member as an absent one.
    static func nullMember(in body: [UInt8]) -> String? {
        guard case .object(let root)? = try? JSONValue.parse(body) else { return nil }
        func firstNull(_ value: JSONValue, path: String) -> String? {
            switch value {
            case .null: return path
            case .array(let elements):
                for (index, element) in elements.enumerated() {
                    if let found = firstNull(element, path: "\(path)[\(index)]") { return found }
                }
            case .object(let object):
                for member in object.members {
                    if let found = firstNull(member.value, path: "\(path).\(member.key)") { return found }
                }
            default: break
            }
            return nil
        }
        for member in root.members {
            // `"preset": null` is a null the document forbids; what a preset holds is the preset's to judge, and a
            // template's variables the template's (a 422 naming one).
            if member.value == .null { return member.key }
            if member.key == "preset" || member.key == "variables" { continue }
            if let found = firstNull(member.value, path: member.key) { return found }
        }
        return nil
    }

    private static func located(_ codingPath: [any CodingKey], _ reason: String) -> HTTPProblem {
        let path = codingPath.reduce(into: "") { path, key in
            if let index = key.intValue { path += "[\(index)]" } else { path += path.isEmpty ? key.stringValue : "." + key.stringValue }
        }
        guard !path.isEmpty else { return HTTPProblem(.malformed("the request does not fit the API (openapi.yaml): \(reason)")) }
        return HTTPProblem(.malformed(jsonPath: path, reason: reason))
    }

    /// The first number in `value` (in document order) that is not a 64-bit whole number and that `type` fails
    /// to decode without a path for, with its JSON path; nil when setting every such number to 0 does not help.
    /// Found by bisection: a few decodes, however many numbers the body holds.
    static func misfitNumber(in value: JSONValue, decoding type: any Decodable.Type) -> (path: String, number: Double)? {
        var suspects: [(path: String, number: Double)] = []
        collectSuspects(value, path: "", into: &suspects)
        // failsKeeping(k): the first k suspects kept, the rest set to 0, decoding still fails for a number.
        func failsKeeping(_ kept: Int) -> Bool {
            var index = 0
            let body = Data(zeroingSuspects(value, keeping: kept, index: &index).json(.compact).utf8)
            do {
                _ = try JSONDecoder().decode(type, from: body)
                return false
            } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
                return true
            } catch {
                return false
            }
        }
        guard !suspects.isEmpty, !failsKeeping(0), failsKeeping(suspects.count) else { return nil }
        // Find the least k for which failsKeeping(k) holds: the k-th suspect is a misfit.
        var low = 0, high = suspects.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if failsKeeping(middle) { high = middle } else { low = middle }
        }
        return suspects[high - 1]
    }

    private static func isWhole64(_ number: Double) -> Bool {
        number == number.rounded(.towardZero) && number >= -9.223372036854775808e18 && number < 9.223372036854775808e18
    }

    private static func collectSuspects(_ value: JSONValue, path: String, into suspects: inout [(path: String, number: Double)]) {
        switch value {
        case .number(let number) where !isWhole64(number): suspects.append((path, number))
        case .array(let elements):
            for (index, element) in elements.enumerated() { collectSuspects(element, path: "\(path)[\(index)]", into: &suspects) }
        case .object(let object):
            for member in object.members {
                collectSuspects(member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)", into: &suspects)
            }
        default: break
        }
    }

    /// `value` with every suspect after the first `kept` (in `collectSuspects`' order) set to 0.
    private static func zeroingSuspects(_ value: JSONValue, keeping kept: Int, index: inout Int) -> JSONValue {
        switch value {
        case .number(let number) where !isWhole64(number):
            defer { index += 1 }
            return index < kept ? value : .number(0)
        case .array(let elements):
            return .array(elements.map { zeroingSuspects($0, keeping: kept, index: &index) })
        case .object(let object):
            return .object(JSONObject(object.members.map { JSONValue.Member($0.key, zeroingSuspects($0.value, keeping: kept, index: &index)) }))
        default:
            return value
        }
    }
}
