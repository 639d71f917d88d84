import MixDSP

/// `"fire": {"intensity": 0.5, "seed": 3}`: an endless wood fire (roar, hiss, sparse sharp crackles and pops), made as it
/// is rendered (`FireGenerator` in MixDSP). See README.md beside this file.
///
/// A value of a `Double` and a seed; allocates nothing. `Sendable`, safe to share.
public struct FireKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "fire"
    public static let isEndless = true

    public var intensity: Double
    public var seed: UInt64
    public init(intensity: Double = 0.5, seed: UInt64 = 1) { self.intensity = intensity; self.seed = seed }

    static var settings: DeclaredSettings<FireKind> {
        DeclaredSettings(description: "An endless crackling wood fire, made from a seed.", defaults: FireKind(), settings: [
            .number("intensity", \.intensity, in: 0...1, "0 to 1: how big the fire is (about -36 dBFS RMS at 1, its crackles' peaks below full scale, and how often it crackles and pops)."),
            .seed(\.seed, "Whole number: the same seed gives the same sound, another seed another."),
        ])
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
        DCBlocker(FireGenerator(intensity: intensity, seed: seed, sampleRate: context.sampleRate, channelCount: context.channelCount),
                  sampleRate: context.sampleRate)
    }
}

extension SourceSpec {
    /// A wood fire (`FireKind`), with the kind's settings: `.fire(FireKind(intensity: 0.7))`.
    public static func fire(_ kind: FireKind = FireKind()) -> SourceSpec { SourceSpec(kind) }
}
