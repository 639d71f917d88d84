import MixDSP

/// `"rain": {"intensity": 0.6, "seed": 4}`: endless procedural rain from a seed, made as it is rendered
/// (`RainGenerator` in MixDSP): a bed of filtered noise and drops whose density follows the intensity.
/// See README.md beside this file.
///
/// A value of three `Double`s, an optional `Double` and a seed; allocates nothing. `Sendable`, safe to share.
public struct RainKind: ReadableSourceKind, EndlessGeneratorKind {
    public static let key = "rain"
    public static let settingsKeys: [String]? = ["intensity", "seed", "brightness", "dropsPerSecond"]
    public static let isEndless = true

    public var intensity: Double
    public var brightness: Double
    /// nil: the intensity's default (`RainGenerator.defaultDropsPerSecond`).
    public var dropsPerSecond: Double?
    public var seed: UInt64

    public init(intensity: Double = 0.5, brightness: Double = 0.5, dropsPerSecond: Double? = nil, seed: UInt64 = 1) {
        self.intensity = intensity
        self.brightness = brightness
        self.dropsPerSecond = dropsPerSecond
        self.seed = seed
    }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> RainKind {
        let object = try cursor.object(allowing: settingsKeys!)
        return RainKind(intensity: try object["intensity"]?.number(in: 0...1) ?? 0.5,
                        brightness: try object["brightness"]?.number(in: 0...1) ?? 0.5,
                        dropsPerSecond: try object["dropsPerSecond"]?.number(in: 0...RainGenerator.maximumDropsPerSecond),
                        seed: UInt64(try object["seed"]?.integer(in: 0...NoiseKind.maximumSeed) ?? 1))
    }

}

/// Made as it plays; nothing to prepare (`EndlessGeneratorKind`).
extension RainKind {
    public func describe(into key: inout CacheKeyWriter) {
        key.field("material", "rain")
        key.field("intensity", intensity)
        key.field("brightness", brightness)
        key.field("dropsPerSecond", dropsPerSecond ?? RainGenerator.defaultDropsPerSecond(intensity: intensity))
        key.field("seed", seed)
    }
    public func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        RainGenerator(intensity: intensity, brightness: brightness, dropsPerSecond: dropsPerSecond,
                      seed: seed, sampleRate: context.sampleRate, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// Procedural rain (`RainKind`).
    public static func rain(intensity: Double = 0.5, brightness: Double = 0.5, dropsPerSecond: Double? = nil, seed: UInt64 = 1) -> SourceSpec {
        SourceSpec(RainKind(intensity: intensity, brightness: brightness, dropsPerSecond: dropsPerSecond, seed: seed))
    }
}
