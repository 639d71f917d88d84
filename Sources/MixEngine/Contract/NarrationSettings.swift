import MixDSP
import MixIO

/// The session's objects whose settings are declared as the kinds' are (`DeclaredSettings`): `voice`, its `ducking`,
/// and speech settings. The reader reads them from these declarations and `PresetSchema` writes `$defs/voice` and
/// `$defs/speechSettings` from the same ones. (Sections, segments and the ending are still read by hand,
/// `SessionReader.swift`, and their schema kept in `docs/preset.schema.json`.)
extension NarrationSpec {
    /// The longest edge fade: an edge fade is a few milliseconds.
    static let maximumEdgeFadeSeconds = 1.0

    static var settings: DeclaredSettings<NarrationSpec> {
        let t = TimeParser.string(fromSeconds:)
        return DeclaredSettings(description: "How voices sound and how the other tracks duck under them.", defaults: NarrationSpec(), settings: [
            .number("levelDb", \.levelDb, in: -60...0, "Instead of loudness: the level every segment is brought to, in dBFS: RMS over its speech only (pauses left out)."),
            .number("loudness", \.loudnessLUFS, .loudnessTarget, "The loudness every segment is brought to, in LUFS (EBU R128, gated, as it plays centred in the output); by default -16, speech's level on phones."),
            .custom("edgeFade", schema: { defaults in
                .object(["description": .string("Fades at each segment's edges, so nothing clicks; at most \(t(maximumEdgeFadeSeconds))."),
                         "$ref": .string("#/$defs/time"), "default": .number(defaults.edgeFadeSeconds)])
            }, read: { cursor, voice, _ in
                voice.edgeFadeSeconds = try cursor.time(allowingZero: true)
                guard voice.edgeFadeSeconds <= maximumEdgeFadeSeconds else {
                    throw cursor.error("\(t(voice.edgeFadeSeconds)) is longer than \(t(maximumEdgeFadeSeconds)); an edge fade is a few milliseconds")
                }
            }),
            .number("pan", \.pan, in: -1...1, "Balance of the voice, as a track's pan."),
            .custom("speech", schema: { _ in .object(["$ref": .string("#/$defs/speechSettings")]) }, read: { cursor, voice, reader in
                voice.speech = try reader.speech(cursor, defaults: voice.speech)
            }),
            .object("ducking", \.ducking, DuckingSpec.settings),
        ], finish: { object, voice in
            if object.has("levelDb"), let loudness = object["loudness"] {
                throw loudness.error("the voice's level is set by 'loudness' (LUFS) or by 'levelDb', not both")
            }
            // A level in dBFS given instead of the default loudness.
            if object.has("levelDb") { voice.loudnessLUFS = nil }
        })
    }
}

extension DuckingSpec {
    /// The longest any of its times may be.
    static let maximumSeconds = 60.0

    static var settings: DeclaredSettings<DuckingSpec> {
        let t = TimeParser.string(fromSeconds:)
        return DeclaredSettings(description: "Ducking of the bed under the voice.", defaults: DuckingSpec(), settings: [
            .custom("depthDb", schema: { defaults in
                .object(["description": .string("How far the bed goes down, in dB."), "type": .string("number"), "minimum": .number(-60),
                         "exclusiveMaximum": .number(0), "default": .number(defaults.depthDb)])
            }, read: { cursor, ducking, _ in
                ducking.depthDb = try cursor.number(in: -60...0)
                guard ducking.depthDb < 0 else { throw cursor.error("0 dB does not duck; expected a negative depth such as -10") }
            }),
            .time("lookahead", \.lookaheadSeconds, "How long before speech the bed starts going down."),
            .time("attack", \.attackSeconds, "How long the way down takes; at most the look-ahead, so the bed is down before the first word."),
            .time("hold", \.holdSeconds, "Pauses in speech shorter than this keep the bed down."),
            .time("release", \.releaseSeconds, "How long the way back up takes."),
            .curve("attackCurve", \.attackCurve, "The curve of the way down."),
            .curve("releaseCurve", \.releaseCurve, "The curve of the way back up."),
        ], finish: { object, ducking in
            for (key, seconds) in [("lookahead", ducking.lookaheadSeconds), ("attack", ducking.attackSeconds),
                                   ("hold", ducking.holdSeconds), ("release", ducking.releaseSeconds)] where seconds > maximumSeconds {
                throw object[key]!.error("\(t(seconds)) is longer than \(t(maximumSeconds)), the longest a ducking time may be")
            }
            if ducking.attackSeconds > ducking.lookaheadSeconds {
                // The way down starts `lookahead` before speech; an attack longer than that would still be
                // going down when the voice starts.
                if let attack = object["attack"] {
                    throw attack.error("\(t(ducking.attackSeconds)) is longer than the look-ahead (\(t(ducking.lookaheadSeconds))); the bed must be down before the voice starts")
                }
                ducking.attackSeconds = ducking.lookaheadSeconds
            }
        })
    }
}

extension SpeechSettings {
    /// The keys speech settings take (`voice`, `speed`, `rate`, ...), in the order they are declared.
    static var keys: [String] { settings.keys ?? [] }
}

extension SchemaValue {
    /// The speech settings that sit beside a kind's own keys (a `speech` track's text, breathing cues' words), as
    /// references to the session's `$defs/speechSettings`, one per key the reader takes (`SpeechSettings.keys`).
    static var speechSettingsReferences: [Member] {
        SpeechSettings.keys.map { Member($0, .object(["$ref": .string("#/$defs/speechSettings/properties/\($0)")])) }
    }
}

extension SpeechSettings {
    /// The longest pause inside a text: a segment's `pauseAfter` makes longer ones.
    static let maximumPauseSeconds = 60.0

    /// Speech settings (`voice.speech`, a segment's `speech`, beside a `speech` track's text and breathing cues' words),
    /// read over the defaults they are given (`PresetReader.speech`). The voice is looked up among the engines' voices.
    static var settings: DeclaredSettings<SpeechSettings> {
        let t = TimeParser.string(fromSeconds:)
        func pause(_ key: String, _ path: WritableKeyPath<SpeechSettings, Double?>, _ what: String, _ defaultSeconds: Double) -> DeclaredSetting<SpeechSettings> {
            .custom(key, schema: { _ in
                .object(["description": .string("Silence after each \(what) inside a text (neural voice; default \(t(defaultSeconds)))."),
                         "$ref": .string("#/$defs/time")])
            }, read: { cursor, settings, _ in settings[keyPath: path] = try cursor.time(allowingZero: true) })
        }
        return DeclaredSettings(description: "How text is spoken: the voice (which names its engine), its pace and pauses, and espeak-ng's rate, pitch and volume.",
                            defaults: SpeechSettings(), settings: [
            .custom("voice", schema: { _ in
                .object(["description": .string("\(SpeechSettings.defaultVoice) (the English neural voice, the default for English), kokoro:jf_alpha (and the other Japanese neural voices), kokoro:<name> and piper:<name> (voices an operator installs: --voices), espeak:<language>[+variant] (espeak-ng), or a bare espeak-ng name (en-gb); mixrender voices lists them. Without one, the best installed voice for the text's language says it."),
                         "type": .string("string"), "minLength": .number(1)])
            }, read: { cursor, settings, reader in settings.voice = try reader.voiceName(cursor) }),
            .custom("language", schema: { _ in
                .object(["description": .string("The language of the text (BCP 47: ja, es, en-gb). Without a voice named, the best installed voice for it says the text (a natural one before espeak-ng's); without a language, it is found from the text. mixrender voices lists the voices and their languages."),
                         "type": .string("string"), "pattern": .string("^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")])
            }, read: { cursor, settings, _ in
                let tag = try cursor.nonEmptyString()
                guard SpeechLanguage.primary(of: tag) != nil else {
                    throw cursor.error("'\(tag)' is not a language tag; expected one such as ja, es or en-gb")
                }
                guard !SpeechLanguage.installedVoices(for: tag).isEmpty else {
                    throw cursor.error("no installed voice speaks '\(tag)' (mixrender voices lists the voices and their languages)")
                }
                settings.language = tag
            }),
            .custom("lexicon", schema: { _ in
                .object(["description": .string("Words a voice would say wrong (a listener's name, a place) and a respelling of each that every voice says right, {\"Aoife\": \"Eefa\"}, or its phonemes in IPA between slashes, {\"Aoife\": \"/ˈiːfə/\"}. Whole words, any case (in Japanese or Chinese, wherever the word occurs); a segment's entries are added to the voice's."),
                         "type": .string("object"), "maxProperties": .number(Double(Lexicon.maximumEntries)),
                         "additionalProperties": .object(["type": .string("string"), "minLength": .number(1), "maxLength": .number(Double(Lexicon.maximumRespellingLength))])])
            }, read: { cursor, settings, _ in
                guard case .object(let members) = cursor.value else { throw cursor.error("expected an object of words and their respellings, such as {\"Aoife\": \"Eefa\"}") }
                let object = JSONObjectCursor(cursor: cursor, members: members)
                guard object.members.members.count <= Lexicon.maximumEntries else {
                    throw cursor.error("\(object.members.members.count) entries; a lexicon holds at most \(Lexicon.maximumEntries)")
                }
                var entries: [String: String] = [:]
                for member in object.members.members {
                    let entry = object[member.key]!
                    let respelling = try entry.nonEmptyString()
                    if let problem = Lexicon.problem(word: member.key, respelling: respelling) { throw entry.error(problem) }
                    entries[member.key] = respelling
                }
                settings.lexicon = settings.lexicon.merging(Lexicon(entries))
            }),
            .number("speed", \.speed, in: speedRange,
                    "A pace factor for any engine (1 is the voice's own; default \(JSONValue.format(SpeechEngines.hibari.defaultSpeed)) for the English neural voice, \(JSONValue.format(SpeechEngines.kokoro.defaultSpeed)) for the Japanese one, \(JSONValue.format(SpeechEngines.espeak.defaultSpeed)) for espeak-ng)."),
            pause("sentencePause", \.sentencePauseSeconds, "sentence", defaultSentencePause),
            pause("paragraphPause", \.paragraphPauseSeconds, "paragraph (a blank line)", defaultParagraphPause),
            .number("seed", \.seed, NumberLimit(0...4_294_967_295, unit: ""), "The neural voice's noise seed."),
            .flag("wordTimes", \.wordTimes, "true: an English neural voice's words are placed in time, each word's start and end in the timeline (by a forced aligner: about as much work again as the voice's own)."),
            .number("rate", \.wordsPerMinute, NumberLimit(wordsPerMinuteRange, unit: ""), "espeak-ng's words per minute, before speed."),
            .number("pitch", \.pitch, NumberLimit(pitchRange, unit: ""), "espeak-ng's pitch (50 is the voice's own)."),
            .number("volume", \.volume, NumberLimit(volumeRange, unit: ""), "espeak-ng's volume (100 is normal)."),
        ], finish: { object, settings in
            for (key, seconds) in [("sentencePause", settings.sentencePauseSeconds), ("paragraphPause", settings.paragraphPauseSeconds)]
            where (seconds ?? 0) > maximumPauseSeconds {
                if let cursor = object[key] { throw cursor.error("a pause inside a text is at most \(t(maximumPauseSeconds)); a segment's 'pauseAfter' makes longer ones") }
            }
        })
    }
}
