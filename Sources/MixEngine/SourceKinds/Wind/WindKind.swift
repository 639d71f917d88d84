import MixDSP

/// `"wind": {"intensity": 0.8, "seed": 2}`: endless procedural wind from a seed, made as it is rendered
/// (`WindGenerator` in MixDSP): noise through a moving resonant band-pass, with gusts and, at high
/// intensity, a whistle. See README.md beside this file.
///
/// A value of two `Double`s, an optional `Double` and a seed; allocates nothing. `Sendable`, safe to share.
public struct WindKind: ReadableSourceKind, EndlessGeneratorKind {
    public static let key = "wind"
    public static let settingsKeys: [String]? = ["intensity", "seed", "gustiness", "whistle"]
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

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> WindKind {
        let object = try cursor.object(allowing: settingsKeys!)
        return WindKind(intensity: try object["intensity"]?.number(in: 0...1) ?? 0.5,
                        gustiness: try object["gustiness"]?.number(in: 0...1) ?? 0.5,
                        whistle: try object["whistle"]?.number(in: 0...1),
                        seed: UInt64(try object["seed"]?.integer(in: 0...NoiseKind.maximumSeed) ?? 1))
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
        WindGenerator(intensity: intensity, gustiness: gustiness, whistle: whistle, seed: seed,
                      sampleRate: context.sampleRate, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// Procedural wind (`WindKind`).
    public static func wind(intensity: Double = 0.5, gustiness: Double = 0.5, whistle: Double? = nil, seed: UInt64 = 1) -> SourceSpec {
        SourceSpec(WindKind(intensity: intensity, gustiness: gustiness, whistle: whistle, seed: seed))
    }
}
