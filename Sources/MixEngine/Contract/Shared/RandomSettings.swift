import MixDSP

/// The shapes of the settings of the kinds that play at random (`events`, `resequence`): ranges written as
/// one value or `[low, high]`, and seeds.
extension JSONCursor {
    /// `x` or `[low, high]` (low <= high), each in `bounds`.
    func numberRange(in bounds: ClosedRange<Double>) throws -> ClosedRange<Double> {
        guard case .array = value else { let x = try number(in: bounds); return x...x }
        let pair = try array()
        guard pair.count == 2 else { throw error("expected a number or a pair [low, high], got \(pair.count) values") }
        let (lo, hi) = (try pair[0].number(in: bounds), try pair[1].number(in: bounds))
        guard lo <= hi else { throw error("[\(JSONValue.format(lo)), \(JSONValue.format(hi))] is not [low, high]: the first must not be above the second") }
        return lo...hi
    }

    /// A time `"40s"` or `["40s", "3m"]` (low <= high), in seconds, each within `bounds`.
    func timeRange(in bounds: ClosedRange<Double>) throws -> ClosedRange<Double> {
        let t = TimeParser.string(fromSeconds:)
        func one(_ cursor: JSONCursor) throws -> Double {
            let s = try cursor.time(allowingZero: bounds.lowerBound == 0)
            guard bounds.contains(s) else { throw cursor.error("\(t(s)) is outside \(t(bounds.lowerBound))...\(t(bounds.upperBound))") }
            return s
        }
        guard case .array = value else { let x = try one(self); return x...x }
        let pair = try array()
        guard pair.count == 2 else { throw error("expected a time or a pair [shortest, longest], got \(pair.count) values") }
        let (lo, hi) = (try one(pair[0]), try one(pair[1]))
        guard lo <= hi else { throw error("[\(t(lo)), \(t(hi))] is not [shortest, longest]: the first must not be longer than the second") }
        return lo...hi
    }

    /// A seed: a whole number 0 ... 2^53 - 1 (what JSON's numbers hold exactly).
    func seed() throws -> UInt64 { UInt64(try integer(in: 0...RandomSettings.maximumSeed)) }
}

enum RandomSettings {
    /// The largest seed a preset may give: 2^53 - 1, the largest whole number JSON's numbers hold exactly.
    static let maximumSeed = 9_007_199_254_740_991.0

    /// The schema of the layout's `seed`, as the kinds that play at random read it (`defaultSeed` when absent).
    static var seedSchema: SchemaValue {
        .object([
            "description": .string("Seed of the random layout (the same seed, the same audio); default: from the track's position in the list."),
            "type": .string("integer"), "minimum": .number(0), "maximum": .number(maximumSeed),
        ])
    }

    /// The seed of a track that gives none: a hash (FNV-1a) of its JSON path, so two tracks differ and
    /// the same preset always renders the same.
    static func defaultSeed(_ jsonPath: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in jsonPath.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }

    /// The last component of a path, for the timeline (which never names folders of this machine).
    static func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }
}
