import MixDSP

/// `"generator": {"type": "pink", "seed": 7}`: endless white, pink or brown noise from a seed, made as it
/// is rendered (`NoiseGenerator` in MixDSP). See README.md beside this file.
///
/// A value of a colour and a seed; allocates nothing. `Sendable`, safe to share.
public struct NoiseKind: ReadableSourceKind, EndlessGeneratorKind {
    public static let key = "generator"
    public static let settingsKeys: [String]? = ["type", "seed"]
    public static let isEndless = true
    /// Seeds are whole numbers up to 2^53, the largest range JSON numbers carry exactly.
    public static let maximumSeed = 9_007_199_254_740_992.0

    public var color: NoiseGenerator.Color
    public var seed: UInt64
    public init(color: NoiseGenerator.Color, seed: UInt64 = 1) { self.color = color; self.seed = seed }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> NoiseKind {
        let object = try cursor.object(allowing: settingsKeys!)
        let names = NoiseGenerator.Color.allCases.map(\.rawValue)
        let color = try object.required("type", hint: names.dropLast().joined(separator: ", ") + " or " + names.last!)
            .choice("generator type", NoiseGenerator.Color.allCases.map { ($0.rawValue, $0) })
        let seed = try object["seed"]?.integer(in: 0...maximumSeed) ?? 1
        return NoiseKind(color: color, seed: UInt64(seed))
    }

}

/// Made as it plays; nothing to prepare (`EndlessGeneratorKind`).
extension NoiseKind {
    public func describe(into key: inout CacheKeyWriter) {
        key.field("material", "noise")
        key.field("color", color.rawValue)
        key.field("seed", seed)
    }
    public func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        NoiseGenerator(color: color, seed: seed, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// Noise from a seed (`NoiseKind`).
    public static func noise(color: NoiseGenerator.Color, seed: UInt64) -> SourceSpec {
        SourceSpec(NoiseKind(color: color, seed: seed))
    }
}
