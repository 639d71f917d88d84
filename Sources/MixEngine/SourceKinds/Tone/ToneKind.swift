import MixDSP

/// `"tone": {"frequencyHz": 200, "waveform": "sine"}`: an endless sine or triangle wave at a frequency,
/// computed from the absolute frame position (`ToneGenerator` in MixDSP), so every block size and every
/// partial render give the same samples. See README.md beside this file.
///
/// A value of a waveform and two `Double`s; allocates nothing. `Sendable`, safe to share.
public struct ToneKind: ReadableSourceKind {
    public static let key = "tone"
    public static let settingsKeys: [String]? = ["waveform", "frequencyHz", "phase"]
    public static let isEndless = true
    /// The highest frequency a preset may ask for; it must also lie below half the output rate.
    public static let maximumFrequencyHz = 24_000.0
    /// RMS level of every waveform before the track's gain, as the noise generators': -18 dBFS.
    public static let rmsLevel = 0.125_892_541   // 10^(-18/20)

    public var waveform: ToneGenerator.Waveform
    public var frequencyHz: Double
    /// Where in its cycle the wave starts at frame 0 of the timeline, in cycles (0 up to 1).
    public var phase: Double

    public init(waveform: ToneGenerator.Waveform = .sine, frequencyHz: Double, phase: Double = 0) {
        self.waveform = waveform
        self.frequencyHz = frequencyHz
        self.phase = phase
    }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> ToneKind {
        let object = try cursor.object(allowing: settingsKeys!)
        let frequency = try object.required("frequencyHz", hint: "the tone's frequency in Hz, e.g. 200")
            .positiveNumber(upTo: maximumFrequencyHz)
        let waveform = try object["waveform"]?.choice("waveform", ToneGenerator.Waveform.allCases.map { ($0.rawValue, $0) }) ?? .sine
        var phase = 0.0
        if let cursor = object["phase"] {
            phase = try cursor.number(in: 0...1)
            guard phase < 1 else { throw cursor.error("1 is a whole cycle, the same as 0; expected 0 up to (not including) 1") }
        }
        return ToneKind(waveform: waveform, frequencyHz: frequency, phase: phase)
    }

    /// Peak amplitude for `rmsLevel`: a sine's RMS is A/√2, a triangle's A/√3.
    var amplitude: Float {
        switch waveform {
        case .sine: return Float(Self.rmsLevel * 2.0.squareRoot())
        case .triangle: return Float(Self.rmsLevel * 3.0.squareRoot())
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

extension SourceSpec {
    /// A sine or triangle tone (`ToneKind`).
    public static func tone(_ waveform: ToneGenerator.Waveform = .sine, frequencyHz: Double, phase: Double = 0) -> SourceSpec {
        SourceSpec(ToneKind(waveform: waveform, frequencyHz: frequencyHz, phase: phase))
    }
}
