import MixDSP
import MixIO

/// `"speech": {"text": "Welcome to Lisbon.", "voice": "en-gb"}`: text spoken aloud (the neural voice, or espeak-ng), once,
/// from the track's start. The text is synthesised in the analysis phase (once however often it is said),
/// brought to the preset's voice level (`voice.levelDb`, measured on speech only), and played like a
/// file; where its speech is joins the session's ducking. See README.md beside this file.
///
/// A value of the text and its settings; allocates only the text. `Sendable`, safe to share.
public struct SpeechKind: ReadableSourceKind {
    public static let canLoop = false
    public static let key = "speech"
    public static let settingsKeys: [String]? = ["text", "ssml"] + PresetReader.SessionKeys.speech

    public var text: String
    /// Whether `text` is SSML markup (`<break time="2s"/>`, `<prosody rate="slow">`).
    public var ssml: Bool
    public var settings: SpeechSettings

    public init(text: String, ssml: Bool = false, settings: SpeechSettings = SpeechSettings()) {
        self.text = text; self.ssml = ssml; self.settings = settings
    }

    /// Its settings' schema (`$defs` entry), beside the reader it describes; the speech settings beside the
    /// text are the session's (`$defs/speechSettings`), referred to key by key.
    static var schema: SchemaValue {
        SchemaValue.declared(#"""
        {
          "description": "Text spoken once by espeak-ng.",
          "type": "object",
          "additionalProperties": false,
          "oneOf": [
            {
              "required": [
                "text"
              ]
            },
            {
              "required": [
                "ssml"
              ]
            }
          ],
          "properties": {
            "text": {
              "type": "string",
              "minLength": 1
            },
            "ssml": {
              "type": "string",
              "minLength": 1
            }
          }
        }
        """#).addingProperties(SchemaValue.speechSettingsReferences)
    }

    static func read(_ cursor: JSONCursor, reader: PresetReader) throws -> SpeechKind {
        let object = try cursor.object(allowing: settingsKeys!)
        let given = ["text", "ssml"].filter(object.has)
        guard given.count == 1, let key = given.first, let textCursor = object[key] else {
            throw cursor.error(given.isEmpty ? "missing required key 'text' (what to say; or 'ssml' for SSML markup)"
                                             : "give 'text' or 'ssml', not both")
        }
        let text = try textCursor.nonEmptyString()
        guard !text.utf8.contains(0) else { throw textCursor.error("text cannot contain a NUL character (\\u0000)") }
        if key == "ssml" { try reader.checkSSML(text, at: textCursor) }
        // The voice keys sit beside the text; what they leave out comes from the preset's `voice.speech`.
        let settings = try reader.speech(keysOf: object, defaults: reader.voice?.speech ?? SpeechSettings())
        return SpeechKind(text: text, ssml: key == "ssml", settings: settings)
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
    /// Text spoken aloud (`SpeechKind`).
    public static func speech(_ text: String, ssml: Bool = false, settings: SpeechSettings = SpeechSettings()) -> SourceSpec {
        SourceSpec(SpeechKind(text: text, ssml: ssml, settings: settings))
    }
}
