import MixIO

extension VoiceCredit {
    /// `voices` as an app credits them: `[{id, languages, quality, licence, attribution, origin}]`, the `voices` of the
    /// render report and of the timeline (the server's result encodes the same `VoiceCredit`s).
    static func json(_ voices: [SpeechVoice]) -> JSONValue {
        .array(voices.map(VoiceCredit.init).map { credit in
            .object(["id": .string(credit.id), "languages": .array(credit.languages.map { .string($0) }),
                     "quality": .string(credit.quality), "licence": .string(credit.licence),
                     "attribution": .string(credit.attribution), "origin": .string(credit.origin)])
        })
    }
}
