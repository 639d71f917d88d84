/// Every kind of source a track can play, in the order messages and docs list them.
/// Registering a kind is one line here; nothing else in the engine names a kind.
/// A constant table (a `static let`): any thread may read it. `keys` allocates a new array per call.
public enum SourceKinds {
    static let all: [any ReadableSourceKind.Type] = [
        FileKind.self,
        NoiseKind.self,
        PlaylistKind.self,
        ToneKind.self,
        SweepKind.self,
        SpeechKind.self,
        BinauralKind.self,
        IsochronicKind.self,
        BreathingKind.self,
        ChimeKind.self,
        RainKind.self,
        WindKind.self,
        SurfKind.self,
        FireKind.self,
        CricketsKind.self,
        EventsKind.self,
        ResequenceKind.self,
    ]

    /// The track keys that select a kind: `file`, `generator`, ...
    public static var keys: [String] { all.map { $0.key } }

    /// `'a', 'b' or 'c'`: a list of keys for messages.
    static func list(_ keys: [String], joinedBy word: String) -> String {
        let quoted = keys.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " \(word) " + quoted.last!
    }
}

/// The kinds a reader knows, given to it (`PresetReader.kinds`) rather than named by it: `standard` is every kind
/// `SourceKinds.all` registers; a program (or a test) may read presets with more kinds or fewer. A value of
/// metatypes; `Sendable`.
struct SourceKindRegistry: Sendable {
    let kinds: [any ReadableSourceKind.Type]

    /// Every kind registered in `SourceKinds.all`.
    static let standard = SourceKindRegistry(kinds: SourceKinds.all)

    /// The track keys that select a kind, in the registry's order.
    var keys: [String] { kinds.map { $0.key } }

    /// The kind selected by the track key `key`.
    func kind(forKey key: String) -> (any ReadableSourceKind.Type)? { kinds.first { $0.key == key } }

    /// The keys of the kinds that loop.
    var loopableKeys: [String] { kinds.filter { $0.canLoop }.map { $0.key } }

    /// The source a word stands for in the kind selected by `key` (a session's `"chime": "bell"`), or nil for
    /// `"none"` when `allowingNone`; an unknown word is an error at `cursor` listing the kind's words.
    func sound(_ cursor: JSONCursor, kind key: String, allowingNone: Bool) throws -> SourceSpec? {
        let kind = wordKind(key)
        let words = kind.words.map { ($0, Optional($0)) } + (allowingNone ? [("none", nil)] : [])
        return try cursor.choice(key, words).map { Self.sound(word: $0, kind: kind) }
    }

    /// The source `word` stands for in the kind selected by `key` (a word that kind takes: a default, not input).
    func sound(word: String, kind key: String) -> SourceSpec {
        Self.sound(word: word, kind: wordKind(key))
    }

    private func wordKind(_ key: String) -> any WordReadableSourceKind.Type {
        guard let kind = kind(forKey: key) as? any WordReadableSourceKind.Type else {
            preconditionFailure("no kind '\(key)' that reads a word is registered")
        }
        return kind
    }

    private static func sound(word: String, kind: any WordReadableSourceKind.Type) -> SourceSpec {
        guard let made = kind.init(word: word) else { preconditionFailure("'\(word)' is not one of \(kind.key)'s words") }
        return SourceSpec(made)
    }
}
