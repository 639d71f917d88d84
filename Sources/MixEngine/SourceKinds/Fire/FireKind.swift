import MixDSP

/// `"fire": {"intensity": 0.5, "seed": 3}`: an endless wood fire (roar, hiss, crackles and pops), made as it
/// is rendered (`FireGenerator` in MixDSP). See README.md beside this file.
///
/// A value of a `Double` and a seed; allocates nothing. `Sendable`, safe to share.
public struct FireKind: ReadableSourceKind, EndlessGeneratorKind {
    public static let key = "fire"
    public static let settingsKeys: [String]? = ["intensity", "seed"]
    public static let isEndless = true
    public static let defaultIntensity = 0.5

    public var intensity: Double
    public var seed: UInt64
    public init(intensity: Double = defaultIntensity, seed: UInt64 = 1) { self.intensity = intensity; self.seed = seed }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> FireKind {
        let object = try cursor.object(allowing: settingsKeys!)
        return FireKind(intensity: try object["intensity"]?.number(in: 0...1) ?? defaultIntensity,
                        seed: UInt64(try object["seed"]?.integer(in: 0...NoiseKind.maximumSeed) ?? 1))
    }

}

/// Made as it plays; nothing to prepare (`EndlessGeneratorKind`).
extension FireKind {
    public func describe(into key: inout CacheKeyWriter) {
        key.field("material", "fire")
        key.field("intensity", intensity)
        key.field("seed", seed)
    }
    public func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        FireGenerator(intensity: intensity, seed: seed, sampleRate: context.sampleRate, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// A wood fire (`FireKind`).
    public static func fire(intensity: Double = FireKind.defaultIntensity, seed: UInt64 = 1) -> SourceSpec {
        SourceSpec(FireKind(intensity: intensity, seed: seed))
    }
}
