/// Every kind of source a track can play, in the order messages and docs list them.
/// Registering a kind is one line here; nothing else in the engine names a kind.
/// A constant table (a `static let`): any thread may read it. `keys` allocates a new array per call.
public enum SourceKinds {
    static let all: [any ReadableSourceKind.Type] = [
        FileKind.self,
        NoiseKind.self,
        PlaylistKind.self,
        ToneKind.self,
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

    /// The kind selected by the track key `key`.
    static func kind(forKey key: String) -> (any ReadableSourceKind.Type)? { all.first { $0.key == key } }

    /// `'a', 'b' or 'c'`: a list of keys for messages.
    static func list(_ keys: [String], joinedBy word: String) -> String {
        let quoted = keys.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "" }
        return quoted.dropLast().joined(separator: ", ") + " \(word) " + quoted.last!
    }
}
