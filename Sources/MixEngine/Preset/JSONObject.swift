/// A JSON object: members in order (the document's, or the order they were set in), looked up by key.
///
/// Holds the members and an index from key to place; allocates both. Keys are unique: `JSONParser` reports a
/// duplicate key in a document as an error, and building one from members that repeat a key keeps the last.
/// Two objects are equal when they have the same members in the same order. A value; `Sendable`.
public struct JSONObject: Sendable, Equatable, Sequence {
    public private(set) var members: [JSONValue.Member] = []
    private var index: [String: Int] = [:]

    public init() {}

    /// An object of these members, in order.
    public init(_ members: [JSONValue.Member]) {
        self.members.reserveCapacity(members.count)
        index.reserveCapacity(members.count)
        for member in members { set(member.key, to: member.value) }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.members == b.members }

    /// The member `key`, or nil if it is absent.
    public subscript(key: String) -> JSONValue? {
        index[key].map { members[$0].value }
    }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// Sets member `key` to `value`: in place if it is there (returning false), else appended (after `after`, when
    /// that member is there) and returning true.
    @discardableResult
    public mutating func set(_ key: String, to value: JSONValue, after: String? = nil) -> Bool {
        if let i = index[key] {
            members[i].value = value
            return false
        }
        if let after, let i = index[after] {
            members.insert(JSONValue.Member(key, value), at: i + 1)
            for k in (i + 1)..<members.count { index[members[k].key] = k }
        } else {
            index[key] = members.count
            members.append(JSONValue.Member(key, value))
        }
        return true
    }

    /// The members as `(key, value)` pairs, in order.
    public func makeIterator() -> Iterator { Iterator(base: members.makeIterator()) }

    /// Steps through the members as `(key, value)` pairs.
    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[JSONValue.Member]>
        public mutating func next() -> (key: String, value: JSONValue)? { base.next().map { (key: $0.key, value: $0.value) } }
    }
}
