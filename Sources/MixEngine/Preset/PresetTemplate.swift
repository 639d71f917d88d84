import Foundation  // Unicode normalisation
import MixIO

/// A preset with declared variables (docs/templates.md): what an app's "Generate" fills with a user's choices (a first
/// name, a goal they wrote, a voice, a background, a length) instead of building a whole preset itself.
///
/// ```json
/// {"template": "goal-session", "version": 1,
///  "variables": {"firstName": {"type": "text", "maxLength": 40, "characters": "name"},
///                "minutes": {"type": "number", "minimum": 5, "maximum": 60, "integer": true, "default": 20}},
///  "preset": {"sections": [{"segments": [{"text": "Hello {{firstName}}."}]}], "duration": "{{minutes}}m", ...}}
/// ```
///
/// A variable is placed in the preset's strings as `{{name}}`. Where it may stand is checked when the template is
/// read, not when it is filled: a **text** variable (the user's own words) only inside spoken text (`text`, `ssml`,
/// where it is escaped as XML) and names (`name`), so whatever a user writes is spoken as text and can never become
/// markup, a file name, a setting or an option. The other kinds hold values the template's author listed or bounded,
/// and may stand anywhere: a string that is one `{{name}}` alone becomes the value itself (a number stays a number).
/// Substitution is one pass over the template's own strings: a value holding `{{other}}` is text, never expanded.
///
/// A value. `Sendable`.
public struct PresetTemplate: Sendable, Equatable {
    /// What a variable holds and what bounds it.
    public enum Kind: Sendable, Equatable {
        /// The user's words: `minLength`...`maxLength` characters (Unicode scalars, after NFC), of `characters`.
        case text(minLength: Int, maxLength: Int, characters: TextCharacters)
        /// One of the listed strings.
        case choice([String])
        /// A number within the bounds (a whole number when `integer`).
        case number(minimum: Double, maximum: Double, integer: Bool)
        /// A length (`"20m"`, `"1:30:00"`, or seconds) within the bounds, in seconds; written into the preset as seconds.
        case duration(minimum: Double, maximum: Double)
        /// A voice name: one of `values` when the template lists them, else any name a voice can have.
        case voice([String]?)
        /// A sound, one of the listed names.
        case sound([String])

        var name: String {
            switch self {
            case .text: "text"
            case .choice: "choice"
            case .number: "number"
            case .duration: "duration"
            case .voice: "voice"
            case .sound: "sound"
            }
        }
    }

    /// Which characters a text variable takes (besides the ones no text takes: control, bidirectional and other
    /// invisible format characters, unassigned and private-use code points).
    public enum TextCharacters: String, Sendable, Equatable, CaseIterable {
        /// A person's name: letters, combining marks, spaces, and `'`, `’`, `-`, `.`.
        case name
        /// Letters, marks, digits, punctuation, symbols and spaces.
        case text
    }

    public struct Variable: Sendable, Equatable {
        public var name: String
        public var kind: Kind
        /// The value when a request gives none (already checked against `kind`); nil: the variable is required.
        public var defaultValue: JSONValue?
    }

    /// The template's name (`[a-z0-9-]`, 1 to 64 characters) and version (a whole number from 1).
    public var name: String
    public var version: Int
    /// The variables in the order declared.
    public var variables: [Variable]
    /// The preset, its strings holding `{{name}}` placeholders.
    public var preset: JSONValue

    /// The longest a text variable may be declared to be.
    public static let longestText = 5000
    /// The most variables a template declares.
    public static let mostVariables = 64
    /// The most values a choice, voice or sound lists.
    public static let mostValues = 256

    /// Whether `document` is a template rather than a preset (it has a `template` member).
    public static func isTemplate(_ document: JSONValue) -> Bool {
        document["template"] != nil
    }

    /// Reads a template document; every problem is a `PresetError` naming `file` and the JSON path.
    public init(_ document: JSONValue, file: String) throws(EngineError) {
        func fail(_ path: String, _ message: String) -> PresetError { PresetError(file: file, jsonPath: path, message: message) }
        guard case .object(let top) = document else { throw .preset(fail("", "a template is a JSON object")) }
        let known = ["template", "version", "description", "variables", "preset"]
        for key in top.keys where !known.contains(key) {
            throw .preset(fail(key, "unknown key; a template has \(known.joined(separator: ", "))"))
        }
        guard case .string(let name)? = top["template"], Self.isTemplateName(name) else {
            throw .preset(fail("template", "the template's name: 1 to 64 lowercase letters, digits and '-'"))
        }
        guard case .number(let version)? = top["version"], version >= 1, version <= 1_000_000, version == version.rounded() else {
            throw .preset(fail("version", "a whole number from 1"))
        }
        if let description = top["description"], case .string = description {} else if top["description"] != nil {
            throw .preset(fail("description", "a string"))
        }
        guard case .object(let declared)? = top["variables"] else { throw .preset(fail("variables", "an object of the template's variables")) }
        guard declared.count <= Self.mostVariables else { throw .preset(fail("variables", "\(declared.count) variables; a template has at most \(Self.mostVariables)")) }
        var variables: [Variable] = []
        for member in declared.members {
            variables.append(try Self.variable(member.key, member.value, path: "variables." + member.key, file: file))
        }
        guard case .object? = top["preset"], let preset = top["preset"] else { throw .preset(fail("preset", "the preset, an object")) }
        self.name = name
        self.version = Int(version)
        self.variables = variables
        self.preset = preset
        var used = Set<String>()
        try Self.checkPlacements(preset, path: "preset", key: nil, variables: variables, used: &used, file: file)
        if let unused = variables.first(where: { !used.contains($0.name) }) {
            throw .preset(fail("variables." + unused.name, "is declared but the preset never uses {{\(unused.name)}}"))
        }
    }

    /// The preset with `values` (each checked against its variable; a missing one takes its default) in place of the
    /// placeholders. Errors name `variables.NAME` and why.
    public func resolve(_ values: [String: JSONValue], file: String) throws(EngineError) -> JSONValue {
        for key in values.keys.sorted() where !variables.contains(where: { $0.name == key }) {
            let names = variables.map(\.name).joined(separator: ", ")
            throw .preset(PresetError(file: file, jsonPath: "variables." + Self.shown(key),
                              message: "is not a variable of template '\(name)' version \(version)\(Self.suggestion(key, variables.map(\.name))) (its variables: \(names.isEmpty ? "none" : names))"))
        }
        var resolved: [String: (kind: Kind, value: JSONValue)] = [:]
        for variable in variables {
            let path = "variables." + variable.name
            guard let given = values[variable.name] ?? variable.defaultValue else {
                throw .preset(PresetError(file: file, jsonPath: path, message: "is required (\(Self.describe(variable.kind)))"))
            }
            do { resolved[variable.name] = (variable.kind, try Self.check(given, as: variable.kind)) } catch {
                throw .preset(PresetError(file: file, jsonPath: path, message: error.reason))
            }
        }
        return Self.substitute(preset, key: nil, values: resolved)
    }

    // MARK: Declarations

    public static func isTemplateName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d }
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, (1...64).contains(name.utf8.count),
              (first >= 0x61 && first <= 0x7a) || (first >= 0x41 && first <= 0x5a) else { return false }
        return name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }
    }

    private static func variable(_ name: String, _ value: JSONValue, path: String, file: String) throws(EngineError) -> Variable {
        func fail(_ subpath: String, _ message: String) -> PresetError {
            PresetError(file: file, jsonPath: subpath.isEmpty ? path : path + "." + subpath, message: message)
        }
        guard isVariableName(name) else {
            throw .preset(PresetError(file: file, jsonPath: "variables", message: "'\(shown(name))' is not a variable name (a letter, then letters, digits and '_', at most 64)"))
        }
        guard case .object(let spec) = value else { throw .preset(fail("", "a variable is an object with a type")) }
        guard case .string(let type)? = spec["type"] else { throw .preset(fail("type", "one of text, choice, number, duration, voice, sound")) }
        let allowed: [String]
        switch type {
        case "text": allowed = ["type", "minLength", "maxLength", "characters", "default", "description"]
        case "choice", "sound": allowed = ["type", "values", "default", "description"]
        case "voice": allowed = ["type", "values", "default", "description"]
        case "number": allowed = ["type", "minimum", "maximum", "integer", "default", "description"]
        case "duration": allowed = ["type", "minimum", "maximum", "default", "description"]
        default: throw .preset(fail("type", "'\(shown(type))' is not a type; one of text, choice, number, duration, voice, sound"))
        }
        for key in spec.keys where !allowed.contains(key) {
            throw .preset(fail(key, "unknown key for a \(type) variable; expected one of \(allowed.joined(separator: ", "))"))
        }
        func wholeNumber(_ key: String, default fallback: Int) throws(EngineError) -> Int {
            guard let value = spec[key] else { return fallback }
            guard case .number(let n) = value, n >= 0, n <= Double(longestText), n == n.rounded() else {
                throw .preset(fail(key, "a whole number from 0 to \(longestText)"))
            }
            return Int(n)
        }
        func strings(_ key: String, required: Bool) throws(EngineError) -> [String]? {
            guard let value = spec[key] else {
                if required { throw .preset(fail(key, "the values it may take, a list of strings")) }
                return nil
            }
            guard case .array(let items) = value, !items.isEmpty, items.count <= mostValues else {
                throw .preset(fail(key, "a list of 1 to \(mostValues) strings"))
            }
            var list: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item, !text.isEmpty, text.utf8.count <= 1024, !text.contains("{{") else {
                    throw .preset(fail("\(key)[\(index)]", "a string of 1 to 1024 bytes without '{{'"))
                }
                guard !list.contains(text) else { throw .preset(fail("\(key)[\(index)]", "'\(text)' is listed twice")) }
                list.append(text)
            }
            return list
        }
        func bound(_ key: String, seconds: Bool) throws(EngineError) -> Double {
            guard let value = spec[key] else { throw .preset(fail(key, "required: a \(type) variable is bounded")) }
            switch value {
            case .number(let n) where n.isFinite && abs(n) <= 1e12: return n
            case .string(let text) where seconds:
                if let n = TimeParser.seconds(text) { return n }
                throw .preset(fail(key, "'\(shown(text))' is not a length (\"20m\", \"1:30:00\", or seconds)"))
            default: throw .preset(fail(key, seconds ? "a length (\"20m\", or seconds)" : "a number"))
            }
        }
        let kind: Kind
        switch type {
        case "text":
            let maxLength = try wholeNumber("maxLength", default: 500)
            let minLength = try wholeNumber("minLength", default: 0)
            guard minLength <= maxLength, maxLength >= 1 else { throw .preset(fail("minLength", "must not exceed maxLength (\(maxLength)), which is at least 1")) }
            var characters = TextCharacters.text
            if let given = spec["characters"] {
                guard case .string(let text) = given, let named = TextCharacters(rawValue: text) else {
                    throw .preset(fail("characters", "one of \(TextCharacters.allCases.map(\.rawValue).joined(separator: ", "))"))
                }
                characters = named
            }
            kind = .text(minLength: minLength, maxLength: maxLength, characters: characters)
        case "choice": kind = .choice(try strings("values", required: true)!)
        case "sound": kind = .sound(try strings("values", required: true)!)
        case "voice":
            let list = try strings("values", required: false)
            if let bad = list?.first(where: { !isVoiceName($0) }) { throw .preset(fail("values", "'\(shown(bad))' is not a voice name")) }
            kind = .voice(list)
        case "number":
            let minimum = try bound("minimum", seconds: false), maximum = try bound("maximum", seconds: false)
            guard minimum <= maximum else { throw .preset(fail("maximum", "must not be below minimum (\(minimum))")) }
            var integer = false
            if let given = spec["integer"] {
                guard case .bool(let flag) = given else { throw .preset(fail("integer", "true or false")) }
                integer = flag
            }
            kind = .number(minimum: minimum, maximum: maximum, integer: integer)
        default:
            let minimum = try bound("minimum", seconds: true), maximum = try bound("maximum", seconds: true)
            guard minimum >= 0, minimum <= maximum else { throw .preset(fail("maximum", "must not be below minimum, which is 0 or more")) }
            kind = .duration(minimum: minimum, maximum: maximum)
        }
        var defaultValue: JSONValue? = nil
        if let given = spec["default"] {
            do { defaultValue = try check(given, as: kind) } catch { throw .preset(fail("default", error.reason)) }
        }
        return Variable(name: name, kind: kind, defaultValue: defaultValue)
    }

    // MARK: Placements

    /// The keys whose strings are spoken or shown, where a text variable may stand.
    static let textKeys: Set<String> = ["text", "ssml", "name"]
    /// The object whose keys are words (a pronunciation lexicon): its keys and values may hold text variables, so an
    /// app passes its listener's name and how it is said (`{"{{firstName}}": "{{firstNameSaid}}"}`).
    static let wordsKey = "lexicon"

    /// Checks every `{{...}}` in `value`'s strings names a declared variable, placed where its kind may stand;
    /// records the names used.
    private static func checkPlacements(_ value: JSONValue, path: String, key: String?, variables: [Variable],
                                        used: inout Set<String>, file: String) throws(EngineError) {
        switch value {
        case .object(let object):
            let words = key == wordsKey
            for member in object.members {
                if member.key.contains("{{") {
                    guard words else {
                        throw .preset(PresetError(file: file, jsonPath: path, message: "a key cannot hold a variable ('\(shown(member.key))')"))
                    }
                    try checkPlacements(.string(member.key), path: JSONPath.path(path, key: member.key), key: "text",
                                        variables: variables, used: &used, file: file)
                }
                // A lexicon's respellings are said, as a text is.
                try checkPlacements(member.value, path: JSONPath.path(path, key: member.key), key: words ? "text" : member.key,
                                    variables: variables, used: &used, file: file)
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                try checkPlacements(item, path: JSONPath.path(path, index: index), key: key, variables: variables, used: &used, file: file)
            }
        case .string(let text):
            guard text.contains("{{") else { return }
            let pieces: [Piece]
            do { pieces = try Self.pieces(of: text) } catch { throw .preset(PresetError(file: file, jsonPath: path, message: error.reason)) }
            for case .variable(let name) in pieces {
                guard let variable = variables.first(where: { $0.name == name }) else {
                    let names = variables.map(\.name).joined(separator: ", ")
                    throw .preset(PresetError(file: file, jsonPath: path, message: "{{\(shown(name))}} is not a declared variable\(suggestion(name, variables.map(\.name))) (declared: \(names.isEmpty ? "none" : names))"))
                }
                used.insert(name)
                if case .text = variable.kind, !(key.map(textKeys.contains) ?? false) {
                    throw .preset(PresetError(file: file, jsonPath: path, message: "text variable {{\(name)}} may only be spoken or shown (in text, ssml or name), never stand in \(key.map { "'\($0)'" } ?? "a list")"))
                }
            }
        case .null, .bool, .number:
            return
        }
    }

    /// A string cut at its placeholders.
    enum Piece: Equatable {
        case literal(String)
        case variable(String)
    }

    struct PlacementError: Error { var reason: String }

    static func pieces(of text: String) throws(PlacementError) -> [Piece] {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.literal(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw PlacementError(reason: "'{{' without its '}}'; a variable is written {{name}}")
            }
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
            guard isVariableName(name) else { throw PlacementError(reason: "{{\(shown(name))}} is not a variable name") }
            pieces.append(.variable(name))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        return pieces
    }

    // MARK: Filling

    private static func substitute(_ value: JSONValue, key: String?, values: [String: (kind: Kind, value: JSONValue)]) -> JSONValue {
        switch value {
        case .object(let object) where key == wordsKey:
            // A lexicon's words and respellings filled as text; an entry left empty (an optional name not given) is
            // dropped, and a word filled twice keeps its later entry.
            return .object(JSONObject(object.members.compactMap { member -> JSONValue.Member? in
                let said = substitute(member.value, key: "text", values: values)
                guard case .string(let word) = substitute(.string(member.key), key: "text", values: values) else { return nil }
                let filled = member.key.contains("{{") || member.value.stringValue?.contains("{{") == true
                func blank(_ text: String?) -> Bool { text?.trimmingCharacters(in: .whitespaces).isEmpty == true }
                if filled, blank(word) || blank(said.stringValue) { return nil }
                return .init(word, said)
            }))
        case .object(let object):
            return .object(JSONObject(object.members.map { .init($0.key, substitute($0.value, key: $0.key, values: values)) }))
        case .array(let items):
            return .array(items.map { substitute($0, key: key, values: values) })
        case .string(let text):
            guard text.contains("{{"), let pieces = try? pieces(of: text) else { return value }
            if pieces.count == 1, case .variable(let name) = pieces[0], let filled = values[name] {
                return filled.value
            }
            var out = ""
            for piece in pieces {
                switch piece {
                case .literal(let literal): out += literal
                case .variable(let name):
                    guard let filled = values[name] else { continue }
                    let text = plain(filled.value)
                    out += key == "ssml" ? SSMLSubset.escaped(text) : text
                }
            }
            return .string(out)
        case .null, .bool, .number:
            return value
        }
    }

    /// A filled value as it reads inside a string: a number as JSON writes it.
    private static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .bool(let flag): return flag ? "true" : "false"
        default: return ""
        }
    }

    // MARK: Values

    struct ValueError: Error { var reason: String }

    /// `value` checked against `kind`: the value the preset gets.
    static func check(_ value: JSONValue, as kind: Kind) throws(ValueError) -> JSONValue {
        switch kind {
        case .text(let minLength, let maxLength, let characters):
            guard case .string(let raw) = value else { throw ValueError(reason: "must be a string (text)") }
            // Counted before anything else is done with it: a hostile 100,000-character value costs one pass.
            let rawCount = raw.unicodeScalars.count
            guard rawCount <= maxLength * 4 + 16 else { throw ValueError(reason: "has \(rawCount) characters; at most \(maxLength)") }
            let text = raw.precomposedStringWithCanonicalMapping
            let count = text.unicodeScalars.count
            guard count <= maxLength else { throw ValueError(reason: "has \(count) characters; at most \(maxLength)") }
            guard count >= minLength, minLength == 0 || !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValueError(reason: "has \(count) characters; at least \(minLength)")
            }
            if let bad = text.unicodeScalars.first(where: { !isAllowed($0, characters) }) {
                throw ValueError(reason: "holds \(describe(bad)), which \(characters == .name ? "a name" : "text here") cannot hold")
            }
            return .string(text)
        case .choice(let list), .sound(let list):
            guard case .string(let text) = value, list.contains(text) else {
                throw ValueError(reason: "must be one of \(list.map { "'\($0)'" }.joined(separator: ", "))")
            }
            return .string(text)
        case .voice(let list):
            guard case .string(let text) = value, isVoiceName(text) else {
                throw ValueError(reason: "must be a voice name (letters, digits and _ . : + -)")
            }
            if let list, !list.contains(text) {
                throw ValueError(reason: "must be one of \(list.map { "'\($0)'" }.joined(separator: ", "))")
            }
            return .string(text)
        case .number(let minimum, let maximum, let integer):
            var number: Double
            switch value {
            case .number(let n): number = n
            case .string(let text): guard let n = Double(text) else { fallthrough }; number = n
            default: throw ValueError(reason: "must be a number from \(minimum) to \(maximum)")
            }
            guard number.isFinite, number >= minimum, number <= maximum else {
                throw ValueError(reason: "must be a number from \(format(minimum)) to \(format(maximum))")
            }
            if integer {
                guard number == number.rounded() else { throw ValueError(reason: "must be a whole number") }
                number = number.rounded()
            }
            return .number(number)
        case .duration(let minimum, let maximum):
            let seconds: Double
            switch value {
            case .number(let n) where n.isFinite: seconds = n
            case .string(let text):
                guard text.utf8.count <= 32, let n = TimeParser.seconds(text) else {
                    throw ValueError(reason: "must be a length (\"20m\", \"1:30:00\", or seconds)")
                }
                seconds = n
            default: throw ValueError(reason: "must be a length (\"20m\", \"1:30:00\", or seconds)")
            }
            guard seconds >= minimum, seconds <= maximum else {
                throw ValueError(reason: "must be from \(TimeParser.string(fromSeconds: minimum)) to \(TimeParser.string(fromSeconds: maximum))")
            }
            return .number(seconds)
        }
    }

    static func isVoiceName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x5f || byte == 0x2e || byte == 0x3a || byte == 0x2b || byte == 0x2d
        }
    }

    /// Whether a text variable takes `scalar`. No text takes control characters, bidirectional controls, other
    /// invisible format characters (ZWJ and ZWNJ excepted: scripts need them), line or paragraph separators,
    /// unassigned, private-use or surrogate code points.
    static func isAllowed(_ scalar: Unicode.Scalar, _ characters: TextCharacters) -> Bool {
        let category = scalar.properties.generalCategory
        switch category {
        case .control, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate:
            return false
        case .format:
            return scalar.value == 0x200C || scalar.value == 0x200D
        default:
            break
        }
        switch characters {
        case .text:
            return true
        case .name:
            switch category {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .nonspacingMark, .spacingMark, .enclosingMark:
                return true
            default:
                return scalar == " " || scalar == "'" || scalar == "\u{2019}" || scalar == "-" || scalar == "."
                    || scalar.value == 0x200C || scalar.value == 0x200D
            }
        }
    }

    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let category = scalar.properties.generalCategory
        if category == .control { return "a control character (\(code))" }
        if scalar.properties.isBidiControl { return "a bidirectional control character (\(code))" }
        if category == .format { return "an invisible format character (\(code))" }
        if category == .privateUse || category == .unassigned || category == .surrogate { return "an unassigned or private character (\(code))" }
        return "'\(scalar)' (\(code))"
    }

    static func describe(_ kind: Kind) -> String {
        switch kind {
        case .text(let minLength, let maxLength, _): "text of \(minLength) to \(maxLength) characters"
        case .choice(let list): "one of " + list.map { "'\($0)'" }.joined(separator: ", ")
        case .sound(let list): "a sound, one of " + list.map { "'\($0)'" }.joined(separator: ", ")
        case .voice(let list): list.map { "a voice, one of " + $0.map { "'\($0)'" }.joined(separator: ", ") } ?? "a voice name"
        case .number(let minimum, let maximum, let integer): "\(integer ? "a whole number" : "a number") from \(format(minimum)) to \(format(maximum))"
        case .duration(let minimum, let maximum): "a length from \(TimeParser.string(fromSeconds: minimum)) to \(TimeParser.string(fromSeconds: maximum))"
        }
    }

    private static func format(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    }

    /// ` (did you mean 'x'?)` when a declared name is close to `name`, else nothing.
    static func suggestion(_ name: String, _ candidates: [String]) -> String {
        NameSuggestion.closest(to: name, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// A name as an error shows it: printable, at most 40 characters.
    public static func shown(_ text: String) -> String {
        let printable = String(String.UnicodeScalarView(text.unicodeScalars.prefix(40).map {
            $0.properties.generalCategory == .control || $0.properties.generalCategory == .format ? "?" : $0
        }))
        return text.unicodeScalars.count > 40 ? printable + "…" : printable
    }
}
