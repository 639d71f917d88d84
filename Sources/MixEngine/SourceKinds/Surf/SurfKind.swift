import MixDSP

/// `"surf": {"intensity": 0.7, "periodSeconds": 9, "seed": 2}`: endless waves breaking on a beach, made as
/// they are rendered (`SurfGenerator` in MixDSP). See README.md beside this file.
///
/// A value of two `Double`s and a seed; allocates nothing. `Sendable`, safe to share.
public struct SurfKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "surf"
    public static let isEndless = true

    public var intensity: Double
    public var periodSeconds: Double
    public var seed: UInt64
    public init(intensity: Double = 0.6, periodSeconds: Double = 9, seed: UInt64 = 1) {
        self.intensity = intensity; self.periodSeconds = periodSeconds; self.seed = seed
    }

    static var settings: DeclaredSettings<SurfKind> {
        DeclaredSettings(description: "Endless waves breaking on a beach, made from a seed.", defaults: SurfKind(), settings: [
            .number("intensity", \.intensity, in: 0...1, "0 to 1: how big the waves are (level, about -24 dBFS RMS at 1, and how far each crest opens the filter)."),
            .number("periodSeconds", \.periodSeconds, in: 6...14, "Mean time between crests, in seconds; each lands within 20% of its slot."),
            .seed(\.seed, "Whole number: the same seed gives the same sound, another seed another."),
        ])
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
        DCBlocker(SurfGenerator(intensity: intensity, periodSeconds: periodSeconds, seed: seed,
                      sampleRate: context.sampleRate, channelCount: context.channelCount),
                  sampleRate: context.sampleRate)
    }
}

extension SourceSpec {
    /// Waves on a beach (`SurfKind`), with the kind's settings: `.surf(SurfKind(intensity: 0.7))`.
    public static func surf(_ kind: SurfKind = SurfKind()) -> SourceSpec { SourceSpec(kind) }
}
