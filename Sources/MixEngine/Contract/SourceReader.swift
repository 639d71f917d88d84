import MixDSP
import MixIO

/// What a kind's settings need of the reader that reads them (`ReadableSourceKind.read`, `DeclaredSettings`): an audio
/// file's path resolved against the preset's folder (or a server's sounds), and the preset's voice, whose speech
/// settings are the defaults of a kind's own. `PresetReader` conforms; the kinds and the declared settings name only
/// this, so they sit below the preset reader, which names the kinds' catalogue. (Fades, loops and times are shapes of
/// JSON with no reader state: `JSONCursor` reads them.)
protocol SourceReader {
    /// The audio file's path at `cursor`, resolved; an error at `cursor` when it is not a usable path.
    func path(_ cursor: JSONCursor) throws -> String
    /// The preset's `voice`, once read (nil without one).
    var voice: NarrationSpec? { get }
}

/// The limits every reader keeps.
enum ReadingLimits {
    /// The most tracks a preset (with its bed) may have, and files a playlist may list. Each track that sounds
    /// costs its own decoder and, for a file at another rate, its own resampler (about 400 KB; a file that
    /// several tracks play is decoded once and shared), so this bounds a render's memory at a few GB however
    /// the tracks overlap.
    static let maximumTracks = 4096
}

extension SourceReader {
    /// Speech settings over `defaults`: `{"voice": "hibari:heart", "speed": 0.9}`, `{"voice": "espeak:en-gb", "rate": 140, "pitch": 40}`,
    /// read from their declaration (`SpeechSettings.settings`).
    func speech(_ cursor: JSONCursor, defaults: SpeechSettings) throws -> SpeechSettings {
        try SpeechSettings.settings.read(cursor, over: defaults, reader: self)
    }

    /// A voice's name. It is looked up among the engines' voices here (`SpeechSynthesizer.check`), so an unknown one or a
    /// missing neural voice is an error at its JSON path, naming the closest voice.
    func voiceName(_ voice: JSONCursor) throws -> String {
        let name = try voice.nonEmptyString()
        do {
            try SpeechSynthesizer.check(voice: name)
        } catch let unknown as SpeechSynthesizer.UnknownVoice {
            let closest = NameSuggestion.closest(to: unknown.voice, among: unknown.candidates)
                ?? NameSuggestion.closest(to: VoiceID(parsing: unknown.voice).name, among: unknown.candidates.map { String($0.drop { $0 != ":" }.dropFirst()) })
                    .map { name in unknown.candidates.first { $0.hasSuffix(":" + name) } ?? name }
            throw voice.error(unknown.what + (closest.map { "; did you mean '\($0)'?" } ?? "") + " (mixrender voices lists them all)")
        } catch {
            throw voice.error("\(error)")
        }
        return name
    }

    /// The speech keys (`voice`, `speed`, `rate`, ...) that sit beside other keys in `object` (a `speech` track's
    /// text, breathing cues' words), over `defaults`; their paths stay those of `object`'s members.
    func speech(keysOf object: JSONObjectCursor, defaults: SpeechSettings) throws -> SpeechSettings {
        let own = object.members.members.filter { SpeechSettings.keys.contains($0.key) }
        return try speech(JSONCursor(.object(own), path: object.path, file: object.cursor.file), defaults: defaults)
    }

    /// Refuses SSML outside the subset mixrender documents (`SSMLSubset`: no `<audio>`, nothing naming a file).
    func checkSSML(_ markup: String, at cursor: JSONCursor) throws {
        do { _ = try SSMLSubset(markup) } catch { throw cursor.error("\(error)") }
    }
}
