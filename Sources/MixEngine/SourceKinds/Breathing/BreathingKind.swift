import MixDSP
import MixIO

/// `"breathing": {"pattern": "4-7-8", "cues": {"cycles": 3}}`: a breathing pacer. A named pattern
/// (`4-7-8`, `box`, `coherent`) or inhale/hold/exhale/rest seconds, repeated for the track's span (whole
/// cycles only, so it never stops mid-breath) or a number of `cycles`. It sounds as a soft tone that swells
/// on the inhale, holds, and falls on the exhale (its pitch may glide with the breath: `BreathingPacer` in
/// MixDSP), or as a swell of the bed (`"sound": "bed"`), and may speak cues ("breathe in", "hold",
/// "breathe out") at each phase of its first cycles. See README.md beside this file.
///
/// A value of a pattern, numbers and the cue settings; allocates only its arrays and strings.
/// `Sendable`, safe to share.
public struct BreathingKind: DeclaredSourceKind {
    public static let key = "breathing"
    public static let isEndless = true
    /// The tone's peak level before the track's gain: -15 dBFS (about -18 dBFS RMS through a breath).
    public static let peakLevel = 0.177_827_941
    /// The named patterns, in seconds of inhale, hold, exhale, rest.
    public static let patterns: [(name: String, seconds: [Double])] = [
        ("4-7-8", [4, 7, 8, 0]), ("box", [4, 4, 4, 4]), ("coherent", [5.5, 0, 5.5, 0]),
    ]
    /// The shortest inhale or exhale, in seconds: 100 hours hold at most 360,000 breaths.
    public static let shortestBreath = 0.5

    /// How the pacer sounds. A plain enum (`Sendable`); its raw value is the preset's name.
    public enum Sound: String, Sendable, CaseIterable { case tone, bed, none }

    /// Spoken cues: the words for each phase (an empty one is not said), said in the first `cycles` cycles.
    /// A value; allocates only its strings.
    public struct Cues: Sendable, Equatable {
        public var words: [BreathingPacer.Kind: String] = [.inhale: "Breathe in", .hold: "Hold", .exhale: "Breathe out", .rest: ""]
        public var cycles: Int = 3
        public var settings = SpeechSettings()
        public init() {}
    }

    /// The name of the pattern (for the timeline), and seconds of inhale, hold, exhale and rest.
    public var patternName: String
    public var seconds: [Double]
    public var cycles: Int?
    public var sound: Sound = .tone
    public var pitchHz: Double = 196
    public var glideSemitones: Double = 2
    /// How far the bed dips between breaths with `"sound": "bed"`, in dB.
    public var swellDb: Double = 6
    public var cues: Cues?

    public init(pattern name: String, seconds: [Double], cycles: Int? = nil) {
        self.patternName = name; self.seconds = seconds; self.cycles = cycles
    }

    /// The settings, declared once for the reader and the schema (defaults: the properties' own). The pattern is
    /// required and read first: it makes the kind, which the other settings then change.
    static var settings: DeclaredSettings<BreathingKind> {
        DeclaredSettings(description: "A breathing pacer.", defaults: BreathingKind(pattern: patterns[0].name, seconds: patterns[0].seconds), settings: [
            .custom("pattern", required: "'4-7-8', 'box', 'coherent' or {\"inhale\": 4, \"hold\": 7, \"exhale\": 8}",
                    schema: { _ in
                .object(["description": .string("A named pattern, or the phases' lengths: {\"inhale\", \"hold\", \"exhale\", \"rest\"}."),
                         "oneOf": .array([.object(["enum": .array(patterns.map { .string($0.name) })]), .declared(##"{"type": "object", "additionalProperties": false, "required": ["inhale", "exhale"], "properties": {"inhale": {"$ref": "#/$defs/positiveTime"}, "hold": {"$ref": "#/$defs/time"}, "exhale": {"$ref": "#/$defs/positiveTime"}, "rest": {"$ref": "#/$defs/time"}}}"##)])])
            }, read: { cursor, kind, _ in kind = try pattern(cursor) }),
            .custom("cycles", schema: { _ in .object(["description": .string("How many breaths; default: as many as the track lasts."), "type": .string("integer"), "minimum": .number(1), "maximum": .number(100_000)]) },
                    read: { cursor, kind, _ in kind.cycles = Int(try cursor.integer(in: 1...100_000)) }),
            .choice("sound", \.sound, what: "sound", "What paces the breath: a tone that swells and glides, a swell of the bed, or nothing (cues only)."),
            .number("pitchHz", \.pitchHz, in: 40...2000, "The tone's pitch in Hz (\"sound\": \"tone\")."),
            .number("glide", \.glideSemitones, in: -12...12, "How far the tone's pitch glides with the breath, in semitones (\"sound\": \"tone\")."),
            .custom("swellDb", schema: { defaults in
                .object(["description": .string("How far the bed dips between breaths, in dB (\"sound\": \"bed\")."), "type": .string("number"),
                         "exclusiveMinimum": .number(0), "maximum": .number(40), "default": .number(defaults.swellDb)])
            }, read: { cursor, kind, _ in kind.swellDb = try cursor.positiveNumber(upTo: 40) }),
            .custom("cues", schema: { _ in cuesSchema }, read: { cursor, kind, reader in kind.cues = try cues(cursor, reader: reader) }),
        ], finish: { object, kind in
            for (key, value) in [("pitchHz", kind.sound != .tone), ("glide", kind.sound != .tone), ("swellDb", kind.sound != .bed)] where value {
                if let cursor = object[key] { throw cursor.error("'\(key)' does not apply to \"sound\": \"\(kind.sound.rawValue)\"") }
            }
        })
    }

    /// The cues' schema: `true`, or their words and cycles with the session's speech settings (`$defs/speechSettings`,
    /// referred to key by key).
    static var cuesSchema: SchemaValue {
        let schema = SchemaValue.declared(#"""
        {
          "oneOf": [
            {
              "type": "boolean"
            },
            {
              "type": "object",
              "additionalProperties": false,
              "properties": {
                "cycles": {
                  "type": "integer",
                  "minimum": 1
                },
                "inhale": {
                  "type": "string"
                },
                "hold": {
                  "type": "string"
                },
                "exhale": {
                  "type": "string"
                },
                "rest": {
                  "type": "string"
                }
              }
            }
          ]
        }
        """#)
        guard case .array(var forms)? = schema["oneOf"], forms.count == 2 else { return schema }
        forms[1] = forms[1].addingProperties(SchemaValue.speechSettingsReferences)
        return .object(["description": .string("Spoken cues (\"breathe in\", \"hold\", \"breathe out\") for the first breaths: true, or {\"cycles\", the words, and speech settings}."),
                        "oneOf": .array(forms)])
    }

    /// A named pattern, or `{"inhale": 4, "hold": 7, "exhale": 8, "rest": 0}`: the kind with that pattern.
    static func pattern(_ patternCursor: JSONCursor) throws -> BreathingKind {
        if case .object = patternCursor.value {
            let phases = try patternCursor.object(allowing: ["inhale", "hold", "exhale", "rest"])
            let seconds = try ["inhale", "hold", "exhale", "rest"].map { key -> Double in
                guard let value = phases[key] else {
                    if key == "inhale" || key == "exhale" { throw patternCursor.error("missing required key '\(key)'") }
                    return 0
                }
                let s = try value.time(allowingZero: key == "hold" || key == "rest")
                guard s <= 60 else { throw value.error("\(TimeParser.string(fromSeconds: s)) is longer than 1m, the longest phase of a breath") }
                // A breath of no frames, or of a few, would fit billions of cycles into the render.
                if key == "inhale" || key == "exhale", s < shortestBreath {
                    throw value.error("must be at least 0.5s, the shortest inhale or exhale of a breath")
                }
                return s
            }
            return BreathingKind(pattern: "custom", seconds: seconds)
        } else {
            let name = try patternCursor.string()
            guard let named = patterns.first(where: { $0.name == name }) else {
                throw patternCursor.unknown("breathing pattern", name, expected: patterns.map(\.name))
            }
            return BreathingKind(pattern: named.name, seconds: named.seconds)
        }
    }

    /// `true`, or `{"cycles": 3, "inhale": "In", "hold": "Hold", "exhale": "Out", "rest": "", "voice": "en-gb", ...}`.
    static func cues(_ cursor: JSONCursor, reader: any SourceReader) throws -> Cues? {
        var cues = Cues()
        cues.settings = reader.voice?.speech ?? SpeechSettings()
        if case .bool(let on) = cursor.value { return on ? cues : nil }
        let voiceKeys = SpeechSettings.keys
        let object = try cursor.object(allowing: ["cycles"] + BreathingPacer.Kind.allCases.map(\.rawValue) + voiceKeys)
        if let cycles = object["cycles"] { cues.cycles = Int(try cycles.integer(in: 1...100_000)) }
        for kind in BreathingPacer.Kind.allCases {
            if let words = object[kind.rawValue] { cues.words[kind] = try words.string() }
        }
        cues.settings = try reader.speech(keysOf: object, defaults: cues.settings)
        return cues
    }

    /// The pattern's phases at the output rate (phases of no length left out).
    func phases(_ track: TrackPlanning) -> [BreathingPacer.Phase] {
        zip([BreathingPacer.Kind.inhale, .hold, .exhale, .rest], seconds).compactMap { kind, s in
            let frames = track.frames(s)
            return frames > 0 ? BreathingPacer.Phase(kind, frames: frames) : nil
        }
    }

    /// Each cue's words said and measured (in the phases' order).
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {
        guard let cues else { return }
        for kind in BreathingPacer.Kind.allCases {
            if let words = cues.words[kind], !words.isEmpty { requests.speech(text: words, ssml: false, settings: cues.settings) }
        }
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let pattern = phases(track)
        let cycleFrames = pattern.reduce(0) { $0 + $1.frames }
        // Whole cycles only: as many as asked, or as fit in the track's span (at least one).
        let span = (track.explicitEnd ?? track.frameCount) - track.start
        let fitting = max(1, Int(span / cycleFrames))
        let count = cycles.map { track.explicitEnd == nil ? $0 : min($0, fitting) } ?? fitting
        let pacer = BreathingPacer(pattern: pattern, frequencyHz: pitchHz, glideSemitones: glideSemitones, floor: 0,
                                   sampleRate: track.sampleRate, amplitude: Float(Self.peakLevel), cycles: count,
                                   channelCount: track.channelCount)
        let end = track.start + Int64(count) * cycleFrames
        let starts = pacer.phaseStarts(in: 0..<(end - track.start))

        var events: [PlannedEvent] = []
        var plan = SourcePlan(events: [], end: track.explicitEnd.map { max($0, end) } ?? end)
        switch sound {
        case .tone:
            events.append(PlannedEvent(start: track.start, end: end, material: BreathingMaterial(kind: self, pattern: pattern, cycles: count)))
        case .bed:
            plan.bedGains = [bedSwell(starts, pacer: pacer, start: track.start, track: track)]
        case .none:
            break
        }
        if let cues {
            for phase in starts where phase.cycle < cues.cycles {
                guard let words = cues.words[phase.kind], !words.isEmpty else { continue }
                let clip = try track.clip(text: words, ssml: false, settings: cues.settings, key: "\(Self.key).cues")
                let at = track.start + phase.start
                events.append(clip.event(at: at, voice: track.voice, sampleRate: track.sampleRate))
                plan.speech += clip.speech.map { (at + $0.lowerBound)..<(at + $0.upperBound) }
            }
        }
        plan.events = events.sorted { $0.start < $1.start }
        plan.notes = [BreathingNote(pattern: patternName, phases: starts.map {
            BreathingPhase(name: $0.kind.rawValue, cycle: Int($0.cycle) + 1, start: track.start + $0.start,
                           end: track.start + $0.start + $0.frames)
        })]
        return plan
    }

    /// The bed's gain with `"sound": "bed"`: down by `swellDb` between breaths, up at the top of each, easing
    /// down over the second before the first breath and back up after the last.
    func bedSwell(_ starts: [BreathingPacer.PhaseStart], pacer: BreathingPacer, start: Int64, track: TrackPlanning) -> Envelope {
        let low = Float(gain(fromDecibels: -swellDb))
        let ease = track.frames(1)
        var points = [Envelope.Point(position: start - ease, value: 1), Envelope.Point(position: start, value: pacer.level(at: 0) > 0.5 ? 1 : low, curve: .sCurve)]
        for phase in starts {
            let end = start + phase.start + phase.frames
            let value: Float = pacer.level(at: phase.start + phase.frames - 1) > 0.5 ? 1 : low
            points.append(Envelope.Point(position: end, value: value, curve: .sCurve))
        }
        let last = points.last!.position
        points.append(Envelope.Point(position: last + ease, value: 1, curve: .sCurve))
        return Envelope(points: points)
    }
}

/// A pacer tone computed as it plays, from the track's start; nothing to prepare.
struct BreathingMaterial: EventMaterial {
    let kind: BreathingKind
    let pattern: [BreathingPacer.Phase]
    let cycles: Int
    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "breathing")
        for phase in pattern { key.field(phase.kind.rawValue, phase.frames) }
        key.field("pitchHz", kind.pitchHz)
        key.field("glideSemitones", kind.glideSemitones)
        key.field("cycles", cycles)
    }
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        BreathingPacer(pattern: pattern, frequencyHz: kind.pitchHz, glideSemitones: kind.glideSemitones, floor: 0,
                       sampleRate: context.sampleRate, amplitude: Float(BreathingKind.peakLevel), cycles: cycles,
                       channelCount: context.channelCount)
    }
}

extension SourceSpec {
    /// A breathing pacer (`BreathingKind`).
    public static func breathing(_ kind: BreathingKind) -> SourceSpec { SourceSpec(kind) }
}
