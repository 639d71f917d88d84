import Foundation

/// Tier 4, JSON goldens (render summaries now; waveforms, timelines and reports as later issues add
/// them): compared as parsed values, never as text, so key order, spacing and number spelling
/// (`1`, `1.0`, `1e0`) do not matter.
///
/// Metric: objects must have the same keys, arrays the same length, strings and Booleans must be
/// equal, and each number must satisfy |actual - golden| <= absolute + relative x |golden|.
/// The tolerance is given per golden (see `GoldenCatalog`); `JSONNumbers.defaultTolerance` otherwise.
enum JSONNumbers {
    struct Tolerance: CustomStringConvertible {
        var absolute: Double
        var relative: Double
        var description: String { "|difference| <= \(absolute) + \(relative) x |golden|" }
    }

    static let defaultTolerance = Tolerance(absolute: 1e-6, relative: 1e-6)

    /// A parsed JSON value. Numbers are kept as `Double`.
    indirect enum Value: Equatable, Decodable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([Value])
        case object([String: Value])

        init(from decoder: Decoder) throws {
            if let object = try? decoder.container(keyedBy: Key.self) {
                var out: [String: Value] = [:]
                for key in object.allKeys { out[key.stringValue] = try object.decode(Value.self, forKey: key) }
                self = .object(out)
                return
            }
            if var array = try? decoder.unkeyedContainer() {
                var out: [Value] = []
                while !array.isAtEnd { out.append(try array.decode(Value.self)) }
                self = .array(out)
                return
            }
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { self = .null }
            else if let b = try? single.decode(Bool.self) { self = .bool(b) }       // JSONDecoder never reads 0/1 as Bool
            else if let n = try? single.decode(Double.self) { self = .number(n) }
            else { self = .string(try single.decode(String.self)) }
        }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        var kind: String {
            switch self {
            case .null: return "null"
            case .bool: return "a Boolean"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    static func parse(_ data: Data) throws -> Value { try JSONDecoder().decode(Value.self, from: data) }

    static func parse(_ text: String) throws -> Value { try parse(Data(text.utf8)) }

    static func parse(contentsOf path: String) throws -> Value {
        try parse(Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every difference beyond the tolerance, each as "<path>: <what>", with `$` the document's root.
    static func differences(actual: Value, golden: Value, tolerance: Tolerance = defaultTolerance,
                            path: String = "$") -> [String] {
        switch (golden, actual) {
        case (.number(let g), .number(let a)):
            let allowed = tolerance.absolute + tolerance.relative * abs(g)
            if !(abs(a - g) <= allowed) || a.isNaN != g.isNaN {
                return ["\(path): \(a), golden \(g) (difference \(format(a - g)); allowed \(format(allowed)))"]
            }
            return []
        case (.object(let g), .object(let a)):
            var out: [String] = []
            for key in g.keys.sorted() {
                if let av = a[key] {
                    out += differences(actual: av, golden: g[key]!, tolerance: tolerance, path: "\(path).\(key)")
                } else {
                    out.append("\(path).\(key): missing (the golden has it)")
                }
            }
            for key in a.keys.sorted() where g[key] == nil { out.append("\(path).\(key): not in the golden") }
            return out
        case (.array(let g), .array(let a)):
            var out: [String] = []
            if g.count != a.count { out.append("\(path): \(a.count) elements, golden \(g.count)") }
            for i in 0..<min(g.count, a.count) {
                out += differences(actual: a[i], golden: g[i], tolerance: tolerance, path: "\(path)[\(i)]")
            }
            return out
        case (.string(let g), .string(let a)):
            return g == a ? [] : ["\(path): \"\(a)\", golden \"\(g)\""]
        case (.bool(let g), .bool(let a)):
            return g == a ? [] : ["\(path): \(a), golden \(g)"]
        case (.null, .null):
            return []
        default:
            return ["\(path): \(actual.kind), golden \(golden.kind)"]
        }
    }

    /// Serialises numbers, strings and containers for recording a golden (sorted keys, readable).
    static func encode(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}
