import Foundation
import Testing
@testable import MixEngine

/// Templates (issue 56): a preset with declared variables, filled with a user's choices. What a user writes is spoken
/// as text, never markup, a file name or a setting; every refusal names `variables.NAME` (or the template's own path).
@Suite struct PresetTemplateTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var shipped: String { repository.appendingPathComponent("presets/templates/goal-session.json").path }

    static func template() throws -> PresetTemplate {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: shipped)))
        return try PresetTemplate(try JSONValue.parse(bytes), file: "goal-session.json")
    }

    /// The filled preset's strings at `path` (keys and indices).
    static func string(_ value: JSONValue, _ path: [Any]) -> String? {
        var node = value
        for step in path {
            if let key = step as? String { guard let next = node[key] else { return nil }; node = next }
            else if let index = step as? Int, case .array(let items) = node, index < items.count { node = items[index] }
            else { return nil }
        }
        if case .string(let text) = node { return text }
        return nil
    }

    static func message(_ body: () throws -> Any) -> String {
        do { _ = try body(); return "" } catch { return "\(error)" }
    }

    @Test func aTemplateIsFilledWithTheValuesEachInItsPlace() throws {
        let template = try Self.template()
        #expect(template.name == "goal-session" && template.version == 1)
        #expect(template.variables.map(\.name) == ["firstName", "goal", "background", "length", "voice"])
        let filled = try template.resolve(["firstName": "Ann", "goal": "I sleep deeply.", "background": "pink",
                                           "length": "10m", "voice": "espeak:en-gb"], file: "t")
        #expect(filled["duration"] == .number(600))   // a placeholder alone becomes the value: a length in seconds
        #expect(filled["name"] == .string("Your goal, Ann"))
        #expect(Self.string(filled, ["sections", 0, "segments", 0, "text"]) == "Hello, Ann. Let your shoulders drop, and breathe slowly.")
        #expect(Self.string(filled, ["sections", 1, "segments", 1, "ssml"]) == "<speak>I sleep deeply. <break time=\"3s\"/> I sleep deeply.</speak>")
        #expect(Self.string(filled, ["tracks", 0, "generator", "type"]) == "pink")
        #expect(Self.string(filled, ["voice", "speech", "voice"]) == "espeak:en-gb")
        // The filled preset is a preset, read by the same reader as any.
        let preset = try PresetLoader.read(filled, file: "t", baseDirectory: "")
        #expect(preset.durationSeconds == 600)
        // Defaults fill what is not given; the same values fill the same preset.
        let defaults = try template.resolve([:], file: "t")
        #expect(defaults["duration"] == .number(300) && defaults["name"] == .string("Your goal, friend"))
        #expect(try template.resolve(["firstName": "Ann"], file: "t") == template.resolve(["firstName": "Ann"], file: "t"))
    }

    /// A lexicon's words and respellings may be text variables: an app passes its listener's name and how it is said.
    /// An entry left empty (no respelling given) is dropped; what a user writes stays a word and a respelling, which
    /// the preset's reader checks as it checks any lexicon.
    @Test func aLexiconEntryTakesTheListenersNameAndHowItIsSaid() throws {
        let document = #"""
            {"template": "t", "version": 1,
             "variables": {"firstName": {"type": "text", "characters": "name"},
                           "firstNameSaid": {"type": "text", "characters": "name", "default": ""}},
             "preset": {"duration": 2, "voice": {"speech": {"lexicon": {"{{firstName}}": "{{firstNameSaid}}", "Aoife": "Eefa"}}},
                        "tracks": [{"speech": {"text": "Hello {{firstName}}."}}]}}
            """#
        let template = try PresetTemplate(try JSONValue.parse(Array(document.utf8)), file: "t.json")
        let filled = try template.resolve(["firstName": "Siobhan", "firstNameSaid": "Shivawn"], file: "t")
        #expect(Self.string(filled, ["voice", "speech", "lexicon", "Siobhan"]) == "Shivawn")
        #expect(Self.string(filled, ["voice", "speech", "lexicon", "Aoife"]) == "Eefa")
        _ = try PresetLoader.read(filled, file: "t", baseDirectory: "")
        // No respelling given: the entry is dropped, the template's own kept.
        let plain = try template.resolve(["firstName": "Ann"], file: "t")
        #expect(plain["voice"]?["speech"]?["lexicon"] == .object(JSONObject([.init("Aoife", .string("Eefa"))])))
        // A user's "name" of two words is refused by the lexicon's own check, at its path.
        let two = try template.resolve(["firstName": "Mary Ann", "firstNameSaid": "Mairann"], file: "t")
        let message = Self.message { try PresetLoader.read(two, file: "t", baseDirectory: "") }
        #expect(message.contains("voice.speech.lexicon") && message.contains("not one word"), "\(message)")
    }

    @Test func whatAUserWritesIsSpokenAsTextNeverMarkupAFileOrAnotherVariable() throws {
        let template = try Self.template()
        let markup = #"<break time="60s"/><audio src="/etc/passwd"/> & more"#
        let filled = try template.resolve(["firstName": "Ann", "goal": .string(markup)], file: "t")
        // In SSML the words are escaped: the reader sees text, not elements.
        let ssml = try #require(Self.string(filled, ["sections", 1, "segments", 1, "ssml"]))
        #expect(ssml == "<speak>&lt;break time=&quot;60s&quot;/&gt;&lt;audio src=&quot;/etc/passwd&quot;/&gt; &amp; more <break time=\"3s\"/> &lt;break time=&quot;60s&quot;/&gt;&lt;audio src=&quot;/etc/passwd&quot;/&gt; &amp; more</speak>")
        _ = try PresetLoader.read(filled, file: "t", baseDirectory: "")
        // Another variable's name in a value is text: substitution is one pass over the template's own strings.
        let crossed = try template.resolve(["goal": "{{firstName}} and {{voice}}", "firstName": "Ann"], file: "t")
        #expect(Self.string(crossed, ["sections", 1, "segments", 1, "ssml"])?.hasPrefix("<speak>{{firstName}} and {{voice}} ") == true)
        // A text naming a file is spoken, never opened: text variables stand only in text, ssml and name.
        let path = try template.resolve(["goal": "../../../etc/passwd"], file: "t")
        #expect(Self.string(path, ["tracks", 0, "generator", "type"]) == "brown")
        #expect(Self.string(path, ["sections", 1, "segments", 1, "ssml"])?.contains("../../../etc/passwd") == true)
    }

    @Test(arguments: [
        ("firstName", JSONValue.string("An\u{202E}n"), "bidirectional control character (U+202E)"),
        ("firstName", .string("A\u{2066}nn\u{2069}"), "bidirectional control character (U+2066)"),
        ("firstName", .string("Ann\u{0}"), "control character (U+0000)"),
        ("goal", .string("line one\nline two"), "control character (U+000A)"),
        ("goal", .string("zero\u{200B}width"), "invisible format character (U+200B)"),
        ("goal", .string("private \u{E000}"), "unassigned or private character (U+E000)"),
        ("firstName", .string("R2-D2"), "'2' (U+0032), which a name cannot hold"),
        ("firstName", .string(String(repeating: "a", count: 100_000)), "has 100000 characters; at most 40"),
        ("firstName", .string(""), "at least 1"),
        ("firstName", .string("   "), "at least 1"),
        ("firstName", .number(7), "must be a string"),
        ("background", .string("white"), "must be one of 'brown', 'pink'"),
        ("length", .string("2h"), "must be from 2m to 1h"),
        ("length", .string("soon"), "must be a length"),
        ("voice", .string("../voices/x"), "must be a voice name"),
        ("voice", .string("espeak:fr"), "must be one of 'espeak:en-us', 'espeak:en-gb'"),
    ])
    func hostileOrWrongValuesAreRefusedNamingTheVariable(_ name: String, _ value: JSONValue, _ words: String) throws {
        let template = try Self.template()
        let message = Self.message { try template.resolve([name: value], file: "goal-session.json") }
        #expect(message.hasPrefix("goal-session.json: variables.\(name): "), "\(message)")
        #expect(message.contains(words), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func joiningCharactersAndNamesOfEveryScriptAreTaken() throws {
        let template = try Self.template()
        for name in ["Zoë", "O’Brien", "Jean-Luc", "José", "ناصر", "さくら", "क्षत्रिय", "J.R."] {
            let filled = try template.resolve(["firstName": .string(name)], file: "t")
            #expect(Self.string(filled, ["sections", 3, "segments", 0, "text"]) == "Rest now, \(name.precomposedStringWithCanonicalMapping).")
        }
    }

    @Test func unknownAndMissingVariablesAreRefused() throws {
        let template = try Self.template()
        let unknown = Self.message { try template.resolve(["lenght": "3m"], file: "t") }
        #expect(unknown == "t: variables.lenght: is not a variable of template 'goal-session' version 1 (did you mean 'length'?) (its variables: firstName, goal, background, length, voice)")
        let required = try PresetTemplate(.object(JSONObject([
            .init("template", "t"), .init("version", 2),
            .init("variables", ["who": ["type": "text", "maxLength": 20]]),
            .init("preset", ["duration": "1m", "name": "for {{who}}", "tracks": [["generator": ["type": "pink"]]]])])), file: "t")
        #expect(Self.message { try required.resolve([:], file: "t") } == "t: variables.who: is required (text of 0 to 20 characters)")
    }

    @Test(arguments: [
        // A text variable standing where it would be a file, a setting or a key.
        (#"{"tracks": [{"file": "{{who}}.ogg"}]}"#, "preset.tracks[0].file", "text variable {{who}} may only be spoken or shown (in text, ssml or name), never stand in 'file'"),
        (#"{"voice": {"speech": {"voice": "{{who}}"}}}"#, "preset.voice.speech.voice", "never stand in 'voice'"),
        (#"{"tags": ["{{who}}"]}"#, "preset.tags[0]", "never stand in 'tags'"),
        (#"{"{{who}}": 1, "name": "{{who}}"}"#, "preset", "a key cannot hold a variable"),
        (#"{"name": "{{whom}}"}"#, "preset.name", "{{whom}} is not a declared variable (did you mean 'who'?)"),
        (#"{"name": "{{who"}"#, "preset.name", "'{{' without its '}}'"),
        (#"{"duration": "1m"}"#, "variables.who", "is declared but the preset never uses {{who}}"),
    ])
    func placementsAreCheckedWhenTheTemplateIsRead(_ preset: String, _ path: String, _ words: String) throws {
        let document = #"{"template": "t", "version": 1, "variables": {"who": {"type": "text"}}, "preset": \#(preset)}"#
        let message = Self.message { try PresetTemplate(try JSONValue.parse(Array(document.utf8)), file: "t.json") }
        #expect(message.hasPrefix("t.json: \(path): "), "\(message)")
        #expect(message.contains(words), "\(message)")
    }

    @Test(arguments: [
        (#""template": "Bad Name", "version": 1"#, "template", "lowercase letters"),
        (#""template": "t", "version": 0"#, "version", "a whole number from 1"),
        (#""template": "t", "version": 1.5"#, "version", "a whole number from 1"),
        (#""template": "t", "version": 1, "extra": 1"#, "extra", "unknown key"),
    ])
    func theTemplatesOwnFieldsAreChecked(_ head: String, _ path: String, _ words: String) throws {
        let document = #"{\#(head), "variables": {}, "preset": {"duration": "1m"}}"#
        let message = Self.message { try PresetTemplate(try JSONValue.parse(Array(document.utf8)), file: "t.json") }
        #expect(message.hasPrefix("t.json: \(path): ") && message.contains(words), "\(message)")
    }

    @Test(arguments: [
        (#"{"type": "text", "maxLength": 6000}"#, "variables.v.maxLength", "a whole number from 0 to 5000"),
        (#"{"type": "number", "minimum": 1}"#, "variables.v.maximum", "required: a number variable is bounded"),
        (#"{"type": "number", "minimum": 5, "maximum": 1}"#, "variables.v.maximum", "must not be below minimum"),
        (#"{"type": "choice", "values": []}"#, "variables.v.values", "a list of 1 to 256 strings"),
        (#"{"type": "choice", "values": ["a", "a"]}"#, "variables.v.values[1]", "listed twice"),
        (#"{"type": "choice", "values": ["{{x}}"]}"#, "variables.v.values[0]", "without '{{'"),
        (#"{"type": "sound"}"#, "variables.v.values", "the values it may take"),
        (#"{"type": "voice", "values": ["a/b"]}"#, "variables.v.values", "not a voice name"),
        (#"{"type": "text", "default": "x\u202Ey"}"#, "variables.v.default", "bidirectional control character"),
        (#"{"type": "file"}"#, "variables.v.type", "is not a type"),
        (#"{"type": "text", "pattern": ".*"}"#, "variables.v.pattern", "unknown key for a text variable"),
    ])
    func declarationsAreChecked(_ declaration: String, _ path: String, _ words: String) throws {
        let document = #"{"template": "t", "version": 1, "variables": {"v": \#(declaration)}, "preset": {"name": "{{v}}"}}"#
        let message = Self.message { try PresetTemplate(try JSONValue.parse(Array(document.utf8)), file: "t.json") }
        #expect(message.hasPrefix("t.json: \(path): ") && message.contains(words), "\(message)")
    }

    @Test func aPresetGivenVariablesIsRefusedAndATemplateLoadsFromItsFile() throws {
        let night = Self.repository.appendingPathComponent("presets/night.json").path
        let message = Self.message { try PresetLoader.load(path: night, variables: ["a": "b"]) }
        #expect(message.hasSuffix("night.json: is a preset, not a template: it has no variables to fill (given: a)"), "\(message)")
        let preset = try PresetLoader.load(path: Self.shipped, variables: ["length": "2m", "firstName": "Ann"])
        #expect(preset.durationSeconds == 120)
        let refused = Self.message { try PresetLoader.load(path: Self.shipped, variables: ["length": "1s"]) }
        #expect(refused.hasSuffix("goal-session.json: variables.length: must be from 2m to 1h"), "\(refused)")
    }
}
