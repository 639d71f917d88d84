import MixDSP

/// `"crickets": {"intensity": 0.4, "temperatureC": 22, "seed": 5}`: an endless chorus of field crickets
/// chirping at the rate Dolbear's law gives for the temperature, made as it is rendered (`CricketChorus` in
/// MixDSP). See README.md beside this file.
///
/// A value of two `Double`s and a seed; allocates nothing. `Sendable`, safe to share.
public struct CricketsKind: ReadableSourceKind, EndlessGeneratorKind {
    public static let key = "crickets"
    public static let settingsKeys: [String]? = ["intensity", "temperatureC", "seed"]
    public static let isEndless = true
    public static let defaultIntensity = 0.4
    public static let defaultTemperatureC = 22.0

    public var intensity: Double
    public var temperatureC: Double
    public var seed: UInt64
    public init(intensity: Double = defaultIntensity, temperatureC: Double = defaultTemperatureC, seed: UInt64 = 1) {
        self.intensity = intensity; self.temperatureC = temperatureC; self.seed = seed
    }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> CricketsKind {
        let object = try cursor.object(allowing: settingsKeys!)
        return CricketsKind(intensity: try object["intensity"]?.number(in: 0...1) ?? defaultIntensity,
                            temperatureC: try object["temperatureC"]?.number(in: 10...35) ?? defaultTemperatureC,
                            seed: UInt64(try object["seed"]?.integer(in: 0...NoiseKind.maximumSeed) ?? 1))
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
        CricketChorus(intensity: intensity, temperatureC: temperatureC, seed: seed,
                      sampleRate: context.sampleRate, channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// A chorus of crickets (`CricketsKind`).
    public static func crickets(intensity: Double = CricketsKind.defaultIntensity,
                                temperatureC: Double = CricketsKind.defaultTemperatureC, seed: UInt64 = 1) -> SourceSpec {
        SourceSpec(CricketsKind(intensity: intensity, temperatureC: temperatureC, seed: seed))
    }
}
