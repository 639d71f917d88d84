import MixIO

/// What `mixrender presets` lists: the presets in a folder (the ones that ship, by default), each read and checked
/// as a render reads it (`PresetLoader`, not planned: no source is opened and nothing is spoken, so a listing of
/// sessions takes milliseconds), with its name, whether it is a mix or a session, its length, its output and the
/// kinds of its tracks. A preset that does not read is listed with its one-line error.
///
/// Values of strings and numbers; made when asked for. `Sendable`, safe to share.
public struct PresetCatalog: Sendable {
    /// One preset file.
    public struct Entry: Sendable {
        public let path: String
        /// The preset as read, or nil when it does not read (`error` says why).
        package let preset: Preset?
        public let error: String?

        /// "mix" or "session" (a preset with sections).
        public var kind: String { preset?.session == nil ? "mix" : "session" }

        /// The track keys in the preset's order, each once: `rain, wind, surf, events`.
        public var trackKinds: [String] {
            var seen: [String] = []
            for track in preset?.tracks ?? [] where !seen.contains(track.source.key) { seen.append(track.source.key) }
            return seen
        }

        /// One line for a person: `night.json  Night outdoors  mix, 1h, 48000 Hz stereo: rain, wind, surf, events`.
        public func line(nameWidth: Int, titleWidth: Int) -> String {
            let file = pad(PrintableText.escaped(path), nameWidth)
            guard let preset else { return file + "  invalid: " + (error ?? "") }
            var facts = [kind]
            facts.append(preset.durationSeconds.map(TimeParser.string(fromSeconds:)) ?? "as long as its sections")
            facts.append("\(preset.output.sampleRate) Hz \(preset.output.channelCount == 1 ? "mono" : "stereo")")
            if let sections = preset.session?.sections.count { facts.append("\(sections) section" + (sections == 1 ? "" : "s")) }
            let title = pad(PrintableText.escaped(preset.name ?? "-"), titleWidth)
            let kinds = trackKinds.isEmpty ? "" : ": " + trackKinds.joined(separator: ", ")
            return "\(file)  \(title)  \(facts.joined(separator: ", "))\(kinds)"
        }

        /// The entry as JSON: `{"path", "name", "kind", "duration", "sampleRate", "channels", "sections", "tracks"}`
        /// (`duration` in seconds, null for a session as long as its sections), or `{"path", "error"}`.
        public var json: JSONValue {
            guard let preset else { return .object(["path": .string(path), "error": .string(error ?? "")]) }
            return .object([
                "path": .string(path),
                "name": preset.name.map { .string($0) } ?? .null,
                "kind": .string(kind),
                "duration": preset.durationSeconds.map { .number($0) } ?? .null,
                "sampleRate": .integer(preset.output.sampleRate),
                "channels": .integer(preset.output.channelCount),
                "sections": preset.session.map { .integer($0.sections.count) } ?? .null,
                "tracks": .array(preset.tracks.map { track in
                    .object(["name": track.name.map { .string($0) } ?? .null, "kind": .string(track.source.key)])
                }),
            ])
        }

        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
    }

    public let entries: [Entry]

    /// The presets at `paths`: each a preset file, or a folder whose `.json` files are listed in name order.
    /// A path that is neither is an error naming it.
    public init(paths: [String]) throws {
        var files: [String] = []
        for path in paths {
            switch FileSystem.identity(of: path)?.kind {
            case .folder?:
                let names = try FileSystem.folderEntries(path).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
                files += names.map { (path.hasSuffix("/") ? path : path + "/") + $0 }
            case .regular?:
                files.append(path)
            default:
                throw EngineError.preset(PresetError(file: path, jsonPath: "", message: "no such preset file or folder"))
            }
        }
        entries = files.map { file in
            do {
                return Entry(path: file, preset: try PresetLoader.load(path: file), error: nil)
            } catch {
                return Entry(path: file, preset: nil, error: "\(error)")
            }
        }
    }

    /// The listing for a person, one preset per line.
    public var text: String {
        let nameWidth = entries.map { PrintableText.escaped($0.path).count }.max() ?? 0
        let titleWidth = entries.map { PrintableText.escaped($0.preset?.name ?? "-").count }.max() ?? 0
        return entries.map { $0.line(nameWidth: nameWidth, titleWidth: titleWidth) }.joined(separator: "\n") + "\n"
    }

    /// The listing for a program: `{"presets": [...]}` (`Entry.json`).
    public var json: String {
        JSONValue.object(["presets": .array(entries.map(\.json))]).document(.readable)
    }

    /// Whether every preset read.
    public var allRead: Bool { entries.allSatisfy { $0.preset != nil } }

    /// The presets folder that ships with this program: the first `presets` folder holding `night.json` in the
    /// program's folder or a folder above it (the project's, for a program built in `.build/`), or nil.
    public static func shippedFolder() -> String? {
        FileSystem.foldersAboveProgram().lazy.map { $0 + "/presets" }.first(where: holdsPresets)
    }

    /// The presets a listing shows by default: the current folder's `presets`, named as a user in the project would
    /// name it, when it holds `night.json`; else `shippedFolder()`.
    public static func defaultFolder() -> String? {
        holdsPresets("presets") ? "presets" : shippedFolder()
    }

    private static func holdsPresets(_ folder: String) -> Bool {
        FileSystem.identity(of: folder + "/night.json")?.kind == .regular
    }
}
