/// A `JSONValue` written as a Swift literal, so a program can build a preset as a value and render it
/// (`PresetRender(preset:)` in the library) without writing JSON text:
///
/// ```swift
/// let preset: JSONValue = ["duration": "30m", "tracks": [["rain": ["intensity": 0.6], "gainDb": -6]]]
/// ```
///
/// An object literal keeps its keys in the order written; a key written twice keeps its last value (Swift's
/// dictionary literals allow the repeat, which a JSON document's reader reports). Integers become `Double`s,
/// exact up to 2^53. JSON's null is `.null`: a `nil` literal stays Swift's (an absent value), never JSON's.
/// Allocates what the literal holds.
extension JSONValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
                     ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
                     ExpressibleByDictionaryLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { Member($0.0, $0.1) }))
    }
}
