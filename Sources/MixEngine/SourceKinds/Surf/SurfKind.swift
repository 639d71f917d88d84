import MixDSP

/// `"surf": {"intensity": 0.7, "periodSeconds": 9, "seed": 2}`: endless waves breaking on a beach, made as
/// they are rendered (`SurfGenerator` in MixDSP). See README.md beside this file.
///
/// A value of two `Double`s and a seed; allocates nothing. `Sendable`, safe to share.
public struct SurfKind: ReadableSourceKind, EndlessGeneratorKind {
    public static let key = "surf"
    public static let settingsKeys: [String]? = ["intensity", "periodSeconds", "seed"]
    public static let isEndless = true
    public static let defaultIntensity = 0.6
    public static let defaultPeriodSeconds = 9.0

    public var intensity: Double
    public var periodSeconds: Double
    public var seed: UInt64
    public init(intensity: Double = defaultIntensity, periodSeconds: Double = defaultPeriodSeconds, seed: UInt64 = 1) {
        self.intensity = intensity; self.periodSeconds = periodSeconds; self.seed = seed
    }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> SurfKind {
        let object = try cursor.object(allowing: settingsKeys!)
        return SurfKind(intensity: try object["intensity"]?.number(in: 0...1) ?? defaultIntensity,
                        periodSeconds: try object["periodSeconds"]?.number(in: 6...14) ?? defaultPeriodSeconds,
                        seed: UInt64(try object["seed"]?.integer(in: 0...NoiseKind.maximumSeed) ?? 1))
    }

}

/// Made as it plays; nothing to prepare (`EndlessGeneratorKind`).
extension SurfKind {
    public func describe(into key: inout CacheKeyWriter) {
        key.field("material", "surf")
        key.field("intensity", intensity)
        key.field("periodSeconds", periodSeconds)
        key.field("seed", seed)
    }
    public func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        SurfGenerator(intensity: intensity, periodSeconds: periodSeconds, seed: seed,
                      sampleRate: context.sampleRate, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// Waves on a beach (`SurfKind`).
    public static func surf(intensity: Double = SurfKind.defaultIntensity, periodSeconds: Double = SurfKind.defaultPeriodSeconds,
                            seed: UInt64 = 1) -> SourceSpec {
        SourceSpec(SurfKind(intensity: intensity, periodSeconds: periodSeconds, seed: seed))
    }
}
