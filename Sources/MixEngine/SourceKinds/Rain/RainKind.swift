import MixDSP

/// `"rain": {"intensity": 0.6, "seed": 4}`: endless procedural rain from a seed, made as it is rendered
/// (`RainGenerator` in MixDSP): a hiss, clicking drops and splashing large ones, their number and size following the intensity.
/// See README.md beside this file.
///
/// A value of three `Double`s, an optional `Double` and a seed; allocates nothing. `Sendable`, safe to share.
public struct RainKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "rain"
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

    static var settings: DeclaredSettings<RainKind> {
        DeclaredSettings(description: "Endless procedural rain: a hiss, clicking drops and splashing large ones.", defaults: RainKind(), settings: [
            .number("intensity", \.intensity, in: 0...1, "0 (a few drops on a quiet hiss, about -59 dBFS RMS) to 1 (a downpour, about -18 dBFS RMS)."),
            .seed(\.seed, "The same seed gives the same sound."),
            .number("brightness", \.brightness, in: 0...1, "0 (dull, the hiss low-passed at 3.2 kHz) to 1 (bright, 12.8 kHz); the clicks' pitch follows."),
            .number("dropsPerSecond", \.dropsPerSecond, in: 0...RainGenerator.maximumDropsPerSecond, "Drop density; default 4 + 396 * intensity^1.5."),
        ])
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
        DCBlocker(RainGenerator(intensity: intensity, brightness: brightness, dropsPerSecond: dropsPerSecond,
                      seed: seed, sampleRate: context.sampleRate, channelCount: context.channelCount),
                  sampleRate: context.sampleRate)
    }
}

extension SourceSpec {
    /// Procedural rain (`RainKind`), with the kind's settings: `.rain(RainKind(intensity: 0.7))`.
    public static func rain(_ kind: RainKind = RainKind()) -> SourceSpec { SourceSpec(kind) }
}
