import MixDSP

/// `"tone": {"frequencyHz": 200, "waveform": "sine"}`: an endless sine or triangle wave at a frequency,
/// computed from the absolute frame position (`ToneGenerator` in MixDSP), so every block size and every
/// partial render give the same samples. See README.md beside this file.
///
/// A value of a waveform and two `Double`s; allocates nothing. `Sendable`, safe to share.
public struct ToneKind: DeclaredSourceKind {
    public static let key = "tone"
    public static let isEndless = true
    /// The highest frequency a preset may ask for; it must also lie below half the output rate.
    public static let maximumFrequencyHz = GeneratorLevels.maximumFrequencyHz
    /// RMS level of every waveform before the track's gain, as the noise generators': -18 dBFS.
    public static let rmsLevel = GeneratorLevels.rms

    public var waveform: ToneGenerator.Waveform
    public var frequencyHz: Double
    /// Where in its cycle the wave starts at frame 0 of the timeline, in cycles (0 up to 1).
    public var phase: Double

    public init(waveform: ToneGenerator.Waveform = .sine, frequencyHz: Double, phase: Double = 0) {
        self.waveform = waveform
        self.frequencyHz = frequencyHz
        self.phase = phase
    }

    static var settings: DeclaredSettings<ToneKind> {
        DeclaredSettings(description: "An endless sine or triangle wave at -18 dBFS RMS, computed from the absolute frame position.",
                     defaults: ToneKind(frequencyHz: 0), settings: [
            .choice("waveform", \.waveform, what: "waveform", "The wave's shape: a pure sine, or a triangle with odd harmonics."),
            .positiveNumber("frequencyHz", \.frequencyHz, upTo: maximumFrequencyHz, required: "the tone's frequency in Hz, e.g. 200",
                            "Frequency in Hz; also below half the output rate."),
            .custom("phase", schema: { defaults in
                .object(["description": .string("Where in its cycle the wave is at 0:00 of the render, in cycles."), "type": .string("number"),
                         "minimum": .number(0), "exclusiveMaximum": .number(1), "default": .number(defaults.phase)])
            }, read: { cursor, kind, _ in
                kind.phase = try cursor.number(in: 0...1)
                guard kind.phase < 1 else { throw cursor.error("1 is a whole cycle, the same as 0; expected 0 up to (not including) 1") }
            }),
        ])
    }

    /// Peak amplitude for `rmsLevel`: a sine's RMS is A/√2, a triangle's A/√3.
    var amplitude: Float {
        switch waveform {
        case .sine: return GeneratorLevels.sinePeak
        case .triangle: return GeneratorLevels.trianglePeak
        }
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let nyquist = Double(track.sampleRate) / 2
        guard frequencyHz < nyquist else {
            throw track.error("\(Self.key).frequencyHz",
                              "\(JSONValue.format(frequencyHz)) Hz is not below half the output rate (\(JSONValue.format(nyquist)) Hz at \(track.sampleRate) Hz)")
        }
        let end = track.explicitEnd ?? track.frameCount
        // The source is read at the timeline's position (offset by the start), so the wave is where it
        // would be had it played from 0:00: `phase` is the phase at 0:00, wherever the track starts.
        return SourcePlan(events: [PlannedEvent(start: track.start, end: end, sourceOffset: track.start,
                                                material: ToneMaterial(kind: self))], end: end)
    }
}

/// A tone computed as it plays; nothing to prepare.
struct ToneMaterial: EventMaterial {
    let kind: ToneKind
    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "tone")
        key.field("waveform", kind.waveform.rawValue)
        key.field("frequencyHz", kind.frequencyHz)
        key.field("phase", kind.phase)
        key.field("amplitude", kind.amplitude)
    }
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        ToneGenerator(waveform: kind.waveform, frequencyHz: kind.frequencyHz, sampleRate: context.sampleRate,
                      amplitude: kind.amplitude, phase: kind.phase, channelCount: context.channelCount)
    }
}
