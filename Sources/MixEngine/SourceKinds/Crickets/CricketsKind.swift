import MixDSP

/// `"crickets": {"intensity": 0.4, "temperatureC": 22, "seed": 5}`: an endless chorus of field crickets
/// chirping at the rate Dolbear's law gives for the temperature, made as it is rendered (`CricketChorus` in
/// MixDSP). See README.md beside this file.
///
/// A value of two `Double`s and a seed; allocates nothing. `Sendable`, safe to share.
public struct CricketsKind: DeclaredSourceKind, EndlessGeneratorKind {
    public static let key = "crickets"
    public static let isEndless = true

    public var intensity: Double
    public var temperatureC: Double
    public var seed: UInt64
    public init(intensity: Double = 0.4, temperatureC: Double = 22, seed: UInt64 = 1) {
        self.intensity = intensity; self.temperatureC = temperatureC; self.seed = seed
    }

    static var settings: DeclaredSettings<CricketsKind> {
        DeclaredSettings(description: "An endless night chorus of crickets, made from a seed.", defaults: CricketsKind(), settings: [
            .number("intensity", \.intensity, in: 0...1, "0 to 1: how many crickets (2 + 10 x intensity) and how loud (about -18 dBFS RMS at 1)."),
            .number("temperatureC", \.temperatureC, in: 10...35, "The night's temperature in degrees C: chirps per minute follow Dolbear's law (40 at 10, 112 at 20, 220 at 35)."),
            .seed(\.seed, "Whole number: the same seed gives the same sound, another seed another."),
        ])
    }

    public func check(_ track: TrackPlanning) throws {
        guard track.sampleRate >= 16_000 else {
            throw track.error("\(Self.key)", "crickets sing at 3.8 to 4.8 kHz and need an output rate of at least 16000 Hz, not \(track.sampleRate) Hz")
        }
    }
}

/// Made as it plays; nothing to prepare (`EndlessGeneratorKind`).
extension CricketsKind {
    public func describe(into key: inout CacheKeyWriter) {
        key.field("material", "crickets")
        key.field("intensity", intensity)
        key.field("temperatureC", temperatureC)
        key.field("seed", seed)
    }
    public func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        DCBlocker(CricketChorus(intensity: intensity, temperatureC: temperatureC, seed: seed,
                      sampleRate: context.sampleRate, channelCount: context.channelCount),
                  sampleRate: context.sampleRate)
    }
}

extension SourceSpec {
    /// A chorus of crickets (`CricketsKind`), with the kind's settings: `.crickets(CricketsKind(intensity: 0.7))`.
    public static func crickets(_ kind: CricketsKind = CricketsKind()) -> SourceSpec { SourceSpec(kind) }
}
