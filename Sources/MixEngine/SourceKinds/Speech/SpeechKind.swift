import MixDSP
import MixIO

/// `"speech": {"text": "Welcome to Lisbon.", "voice": "en-gb"}`: text spoken aloud (the neural voice, or espeak-ng), once,
/// from the track's start. The text is synthesised in the analysis phase (once however often it is said),
/// brought to the preset's voice level (`voice.levelDb`, measured on speech only), and played like a
/// file; where its speech is joins the session's ducking. See README.md beside this file.
///
/// A value of the text and its settings; allocates only the text. `Sendable`, safe to share.
public struct SpeechKind: DeclaredSourceKind {
    public static let canLoop = false
    public static let key = "speech"

    public var text: String
    /// Whether `text` is SSML markup (`<break time="2s"/>`, `<prosody rate="slow">`).
    public var ssml: Bool
    public var settings: SpeechSettings

    public init(text: String, ssml: Bool = false, settings: SpeechSettings = SpeechSettings()) {
        self.text = text; self.ssml = ssml; self.settings = settings
    }

    /// Its settings, declared once for the reader and the schema: the text (`text`, or `ssml` for SSML markup),
    /// and beside it the session's speech settings (`$defs/speechSettings`, referred to key by key), over the
    /// preset's `voice.speech`.
    static var settings: DeclaredSettings<SpeechKind> {
        DeclaredSettings(description: "Text spoken once, by the neural voice or espeak-ng (its 'voice' says which).",
                     defaults: SpeechKind(text: ""), settings: [
            text("text", isMarkup: false), text("ssml", isMarkup: true),
            .group(SpeechSettings.keys, properties: { _ in SchemaValue.speechSettingsReferences }, read: { object, kind, reader in
                kind.settings = try reader.speech(keysOf: object, defaults: reader.voice?.speech ?? SpeechSettings())
            }),
        ], exactlyOne: .init(keys: ["text", "ssml"], missing: "missing required key 'text' (what to say; or 'ssml' for SSML markup)",
                             several: "give 'text' or 'ssml', not both"))
    }

    /// The text to say at `key`: plain, or SSML markup within the subset mixrender takes (`PresetReader.checkSSML`).
    private static func text(_ key: String, isMarkup: Bool) -> DeclaredSetting<SpeechKind> {
        .custom(key, schema: { _ in
            .object(["description": .string(isMarkup ? "What to say, as SSML (<speak>, <break time=\"2s\"/>, <prosody rate>, <emphasis>, <say-as>, <sub>); instead of text." : "What to say, as plain text; instead of ssml."),
                     "type": .string("string"), "minLength": .number(1)])
        }, read: { cursor, kind, reader in
            let text = try cursor.nonEmptyString()
            guard !text.utf8.contains(0) else { throw cursor.error("text cannot contain a NUL character (\\u0000)") }
            if isMarkup { try reader.checkSSML(text, at: cursor) }
            kind.text = text
            kind.ssml = isMarkup
        })
    }

    /// The text said and measured.
    public func analysisRequests(_ requests: inout AnalysisRequests, loop: LoopSpec?) {
        requests.speech(text: text, ssml: ssml, settings: settings)
    }

    public func plan(_ track: TrackPlanning) throws -> SourcePlan {
        let clip = try track.clip(text: text, ssml: ssml, settings: settings, key: Self.key)
        let event = clip.event(at: track.start, voice: track.voice, sampleRate: track.sampleRate)
        let end = min(track.explicitEnd ?? event.end, event.end)
        var plan = SourcePlan(events: [event], end: end)
        plan.speech = clip.speech.map { (track.start + $0.lowerBound)..<(track.start + $0.upperBound) }
        plan.notes = [SpeechNote(text: text, start: track.start, end: end)]
        return plan
    }
}

extension SourceSpec {
    /// Text spoken aloud (`SpeechKind`), with the kind's settings: `.speech(SpeechKind(...))`.
    public static func speech(_ kind: SpeechKind) -> SourceSpec { SourceSpec(kind) }
}
