import MixDSP

/// `"generator": {"type": "pink", "seed": 7}`: endless white, pink or brown noise from a seed, made as it
/// is rendered (`NoiseGenerator` in MixDSP). See README.md beside this file.
///
/// A value of a colour and a seed; allocates nothing. `Sendable`, safe to share.
public struct NoiseKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "generator"
    public static let isEndless = true

    public var color: NoiseGenerator.Color
    public var seed: UInt64
    public init(color: NoiseGenerator.Color = .white, seed: UInt64 = 1) { self.color = color; self.seed = seed }

    static var settings: DeclaredSettings<NoiseKind> {
        let names = NoiseGenerator.Color.allCases.map(\.rawValue)
        return DeclaredSettings(description: "Endless noise.", defaults: NoiseKind(), settings: [
            .choice("type", \.color, what: "generator type", required: names.dropLast().joined(separator: ", ") + " or " + names.last!,
                    "white, pink (-3 dB per octave) or brown (-6 dB per octave)."),
            .seed(\.seed, "The same seed gives the same noise."),
        ])
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
    /// Noise from a seed (`NoiseKind`), with the kind's settings: `.noise(NoiseKind(...))`.
    public static func noise(_ kind: NoiseKind = NoiseKind()) -> SourceSpec { SourceSpec(kind) }
}
