import OrderedCollections

/// A JSON object: members in order (the document's, or the order they were set in), looked up by key: an
/// `OrderedDictionary` (swift-collections) with the few operations documents need.
///
/// Holds the members in order with a hash index; allocates both. Keys are unique: `JSONParser` reports a
/// duplicate key in a document as an error, and building one from members that repeat a key keeps the last.
/// Two objects are equal when they have the same members in the same order. A value; `Sendable`.
public struct JSONObject: Sendable, Equatable, Sequence {
    private var values: OrderedDictionary<String, JSONValue> = [:]

    public init() {}

    /// An object of these members, in order.
    public init(_ members: [JSONValue.Member]) {
        values.reserveCapacity(members.count)
        for member in members { values[member.key] = member.value }
    }

    /// The members, in order.
    public var members: [JSONValue.Member] { values.map { JSONValue.Member($0.key, $0.value) } }

    /// The member `key`, or nil if it is absent.
    public subscript(key: String) -> JSONValue? { values[key] }

    /// The keys, in order.
    public var keys: [String] { Array(values.keys) }
    public var count: Int { values.count }
    public var isEmpty: Bool { values.isEmpty }

    /// Sets member `key` to `value`: in place if it is there (returning false), else appended (after `after`, when
    /// that member is there) and returning true.
    @discardableResult
    public mutating func set(_ key: String, to value: JSONValue, after: String? = nil) -> Bool {
        if values[key] != nil {
            values[key] = value
            return false
        }
        let place = after.flatMap { values.index(forKey: $0) }.map { $0 + 1 } ?? values.count
        values.updateValue(value, forKey: key, insertingAt: place)
        return true
    }

    /// The members as `(key, value)` pairs, in order.
    public func makeIterator() -> OrderedDictionary<String, JSONValue>.Iterator { values.makeIterator() }
}
