import MixDSP

/// `"surf": {"intensity": 0.7, "periodSeconds": 3, "seed": 2}`: endless waves breaking on a beach, made as
/// they are rendered (`SurfGenerator` in MixDSP). See README.md beside this file.
///
/// A value of two `Double`s and a seed; allocates nothing. `Sendable`, safe to share.
public struct SurfKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "surf"
    public static let isEndless = true

    public var intensity: Double
    public var periodSeconds: Double
    public var seed: UInt64
    public init(intensity: Double = 0.6, periodSeconds: Double = 3, seed: UInt64 = 1) {
        self.intensity = intensity; self.periodSeconds = periodSeconds; self.seed = seed
    }

    static var settings: DeclaredSettings<SurfKind> {
        DeclaredSettings(description: "Endless waves breaking on a beach, made from a seed.", defaults: SurfKind(), settings: [
            .number("intensity", \.intensity, in: 0...1, "0 to 1: how big the waves are (level, about -28 dBFS RMS at 1, peaks below 0 dBFS, and the crash's brightness)."),
            .number("periodSeconds", \.periodSeconds, in: 2...14, "Mean time between breaking waves, in seconds; successive waves come 0.3 to 1.7 periods apart (3: a beach like the recordings; 8-14: big slow swells)."),
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
