import MixDSP

/// `"wind": {"intensity": 0.8, "seed": 2}`: endless procedural wind from a seed, made as it is rendered
/// (`WindGenerator` in MixDSP): dark noise through moving low-passes and a rumble, with slow deep gusts and, at
/// high intensity, a whistle. See README.md beside this file.
///
/// A value of two `Double`s, an optional `Double` and a seed; allocates nothing. `Sendable`, safe to share.
public struct WindKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "wind"
    public static let isEndless = true

    public var intensity: Double
    public var gustiness: Double
    /// nil: the intensity's default (`WindGenerator.defaultWhistle`).
    public var whistle: Double?
    public var seed: UInt64

    public init(intensity: Double = 0.5, gustiness: Double = 0.5, whistle: Double? = nil, seed: UInt64 = 1) {
        self.intensity = intensity
        self.gustiness = gustiness
        self.whistle = whistle
        self.seed = seed
    }

    static var settings: DeclaredSettings<WindKind> {
        DeclaredSettings(description: "Endless procedural wind: dark noise through moving low-passes, a rumble, gusts and a whistle.", defaults: WindKind(), settings: [
            .number("intensity", \.intensity, in: 0...1, "0 (a low breeze, 12 dB quieter) to 1 (a strong wind, about -18 dBFS RMS)."),
            .seed(\.seed, "The same seed gives the same sound."),
            .number("gustiness", \.gustiness, in: 0...1, "How far gusts swing level (up to 28 dB) and brightness (up to 0.8 octave)."),
            .number("whistle", \.whistle, in: 0...1, "Level of the whistle in gusts; default 0 up to intensity 0.6, rising to 1 at intensity 1."),
        ])
    }
}

/// Made as it plays; nothing to prepare (`EndlessGeneratorKind`).
extension WindKind {
    public func describe(into key: inout CacheKeyWriter) {
        key.field("material", "wind")
        key.field("intensity", intensity)
        key.field("gustiness", gustiness)
        key.field("whistle", whistle ?? WindGenerator.defaultWhistle(intensity: intensity))
        key.field("seed", seed)
    }
    public func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        DCBlocker(WindGenerator(intensity: intensity, gustiness: gustiness, whistle: whistle, seed: seed,
                      sampleRate: context.sampleRate, channelCount: context.channelCount),
                  sampleRate: context.sampleRate)
    }
}

extension SourceSpec {
    /// Procedural wind (`WindKind`), with the kind's settings: `.wind(WindKind(intensity: 0.7))`.
    public static func wind(_ kind: WindKind = WindKind()) -> SourceSpec { SourceSpec(kind) }
}
