import Foundation

/// The voices an operator installs (docs/sessions.md, "Voices an operator installs"): a folder named by
/// `--voices` or `MIXRENDER_VOICES`, one subfolder per voice, `<folder>/<name>/voice.json` with the voice's files
/// beside it. A Kokoro voice is a style file (`.bin`: 510 × 256 little-endian float32 values, as Kokoro-82M's ONNX
/// voices ship) run by the Kokoro model the set-up installs; a Piper voice is an ONNX model with its JSON beside it
/// (`<file>.json`), run by piper-tts. Nothing is ever downloaded.
///
/// The folder is the operator's, but nothing in it is trusted: each voice is checked when the folder is read (its
/// manifest, its files' kinds and sizes, the model's first byte, the style's values) and refused in one line naming
/// it and why; the helper checks what it loads again. A value; `Sendable`. A folder is read once per process.
public struct InstalledVoices: Sendable {
    /// One voice in the folder, checked.
    public struct Voice: Sendable, Equatable {
        /// Its folder's name, and its name after the engine's key (`kokoro:sakura`).
        public let name: String
        /// The manifest's `engine`: `kokoro` or `piper` (an engine's key).
        public let engine: String
        /// BCP 47, as the manifest gives it (lower case).
        public let language: String
        public let gender: String
        public let licence: String
        public let attribution: String
        /// Where the operator got it (the manifest's `origin`).
        public let origin: String
        /// The SHA-256 of its manifest and the small files read when it was checked (a Kokoro style, a Piper config).
        let checkedHash: String
        /// A Piper voice's ONNX model, hashed only when a synthesis's identity asks (`contentHash`): tens of megabytes,
        /// and a process that lists the voices or parses a voice's name never needs it.
        let model: String?

        /// The SHA-256 of its manifest and files: what a synthesis by it depends on. A model's hash is taken once per
        /// process for each size and modification time of its file; a model that cannot be read hashes as such (its
        /// helper then refuses it).
        public var contentHash: String {
            guard let model else { return checkedHash }
            let id = FileSystem.identity(of: model)
            let key = "\(model)\n\(id?.size ?? -1)\n\(id?.modified ?? -1)"
            if let known = InstalledVoices.modelHashes.withLock({ $0[key] }) { return ContentHash.of(checkedHash + " " + known) }
            let hash = (try? ContentHash.file(path: model).sha256) ?? "unreadable"
            InstalledVoices.modelHashes.withLock { $0[key] = hash }
            return ContentHash.of(checkedHash + " " + hash)
        }
    }

    /// The Piper models hashed in this process, by path, size and modification time (`Voice.contentHash`).
    static let modelHashes = Locked<[String: String]>([:])

    /// The folder, as given; nil when none is.
    public let folder: String?
    /// The voices that passed, by name.
    public let voices: [Voice]
    /// The voices refused, by name, each with one line saying why (`voices/sakura/voice.json: ...`).
    public let refused: [(name: String, reason: String)]

    /// The engines a voice may name, with the kind of file each takes.
    static let engines = ["kokoro": ".bin", "piper": ".onnx"]
    /// A Kokoro-82M voice: 510 style vectors (one per input length) of 256 values.
    static let kokoroStyleBytes = 510 * 256 * 4
    static let manifestBytes = 64 << 10
    static let pieceBytes = 1 << 20

    /// The folder in effect: the one `use(folder:)` set (the `--voices` option), else `MIXRENDER_VOICES`.
    public static var folderInEffect: String? {
        if let chosen = chosen.withLock({ $0 }) { return chosen.isEmpty ? nil : chosen }
        let variable = LibC.getenv("MIXRENDER_VOICES") ?? ""
        return variable.isEmpty ? nil : variable
    }

    /// Sets the folder for this process (the `--voices` option); an empty string means none.
    public static func use(folder: String) { chosen.withLock { $0 = folder } }

    private static let chosen = Locked<String?>(nil)
    private static let read = Locked<[String: InstalledVoices]>([:])

    /// The voices in the folder in effect, read once per process and folder.
    public static func current() -> InstalledVoices {
        guard let folder = folderInEffect else { return InstalledVoices(folder: nil, voices: [], refused: []) }
        if let known = read.withLock({ $0[folder] }) { return known }
        let found = load(folder: folder)
        read.withLock { $0[folder] = found }
        return found
    }

    /// The voices in `folder`, each checked. A folder that cannot be listed is one refusal under the name `*`.
    public static func load(folder: String) -> InstalledVoices {
        let names: [String]
        do {
            names = try FileSystem.folderEntries(folder).sorted()
        } catch {
            return InstalledVoices(folder: folder, voices: [], refused: [("*", "the voices folder '\(folder)' cannot be read: \(error)")])
        }
        var voices: [Voice] = [], refused: [(name: String, reason: String)] = []
        for name in names where !name.hasPrefix(".") && FileSystem.identity(of: folder + "/" + name)?.kind == .folder {
            do {
                voices.append(try check(name: name, in: folder))
            } catch let error as Refusal {
                refused.append((name, "\(folder)/\(name): \(error.reason)"))
            } catch {
                refused.append((name, "\(folder)/\(name): \(error)"))
            }
        }
        return InstalledVoices(folder: folder, voices: voices, refused: refused)
    }

    /// Why a voice is refused.
    struct Refusal: Error { let reason: String }

    /// One voice, checked: its name, its manifest, its files.
    static func check(name: String, in folder: String) throws -> Voice {
        guard isVoiceName(name) else {
            throw Refusal(reason: "a voice's folder is named with 1 to 64 of a-z, 0-9, '-' and '_', starting with a letter or digit")
        }
        let base = folder + "/" + name
        let manifestBytes: [UInt8]
        do {
            manifestBytes = try FileSystem.readDocument(path: base + "/voice.json", maximumBytes: Self.manifestBytes)
        } catch {
            throw Refusal(reason: "voice.json: \(FileSystem.identity(of: base + "/voice.json") == nil ? "missing (each voice has a manifest)" : "\(error)")")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(manifestBytes)) else { throw Refusal(reason: "voice.json: not valid JSON") }
        guard let manifest = object as? [String: Any] else { throw Refusal(reason: "voice.json: not a JSON object") }
        func text(_ key: String, required: Bool = true) throws -> String {
            guard let value = manifest[key] else {
                if required { throw Refusal(reason: "voice.json: \(key): missing") }
                return ""
            }
            guard let string = value as? String, string.count <= 512,
                  string.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) else {
                throw Refusal(reason: "voice.json: \(key): not a line of text of at most 512 characters")
            }
            guard !required || !string.trimmingCharacters(in: .whitespaces).isEmpty else { throw Refusal(reason: "voice.json: \(key): empty") }
            return string
        }
        let engine = try text("engine")
        guard let suffix = engines[engine] else {
            throw Refusal(reason: "voice.json: engine: '\(engine)' is not one of \(engines.keys.sorted().joined(separator: ", "))")
        }
        let language = try text("language").lowercased()
        guard SpeechLanguage.primary(of: language) != nil else { throw Refusal(reason: "voice.json: language: '\(language)' is not a BCP 47 tag") }
        let gender = try text("gender", required: false).lowercased()
        guard ["", "female", "male"].contains(gender) else { throw Refusal(reason: "voice.json: gender: 'female', 'male' or left out") }
        let espeak = try text("espeak", required: false)
        guard espeak.isEmpty || (espeak.count <= 32 && espeak.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw Refusal(reason: "voice.json: espeak: not an espeak-ng voice name")
        }
        let file = try text("file")
        guard !file.contains("/"), !file.hasPrefix("."), file.hasSuffix(suffix), file.count > suffix.count else {
            throw Refusal(reason: "voice.json: file: a \(engine) voice names a \(suffix) file in its own folder")
        }
        let path = base + "/" + file
        guard let identity = FileSystem.identity(of: path) else { throw Refusal(reason: "\(file): missing") }
        guard identity.kind == .regular else { throw Refusal(reason: "\(file): not a regular file") }
        var hashes = [ContentHash.of(String(decoding: manifestBytes, as: UTF8.self))]
        switch engine {
        case "kokoro":
            guard identity.size == Int64(kokoroStyleBytes) else {
                throw Refusal(reason: "\(file): \(identity.size) bytes, not a Kokoro-82M voice (510 × 256 float32 values, \(kokoroStyleBytes) bytes)")
            }
            let bytes = try FileSystem.readDocument(path: path, maximumBytes: kokoroStyleBytes)
            let finite = bytes.withUnsafeBytes { raw in
                stride(from: 0, to: raw.count, by: 4).allSatisfy { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0, as: UInt32.self))).isFinite }
            }
            guard finite else { throw Refusal(reason: "\(file): holds values that are not numbers (NaN or infinity)") }
            hashes.append(ContentHash.of(bytes: bytes))
        default:
            guard identity.size >= 1024 else { throw Refusal(reason: "\(file): \(identity.size) bytes, too small to be a voice model") }
            guard try firstByte(of: path) == 0x08 else {
                throw Refusal(reason: "\(file): not an ONNX model (an ONNX file starts with its IR version, byte 0x08)")
            }
            let configPath = path + ".json"
            guard FileSystem.identity(of: configPath) != nil else { throw Refusal(reason: "\(file).json: missing (a Piper voice's JSON config)") }
            let configBytes: [UInt8]
            do { configBytes = try FileSystem.readDocument(path: configPath, maximumBytes: pieceBytes) } catch { throw Refusal(reason: "\(file).json: \(error)") }
            guard let config = (try? JSONSerialization.jsonObject(with: Data(configBytes))) as? [String: Any],
                  let audio = config["audio"] as? [String: Any], let rate = audio["sample_rate"] as? Int, (8_000...48_000).contains(rate),
                  config["phoneme_id_map"] is [String: Any], config["num_symbols"] is Int, config["num_speakers"] is Int else {
                throw Refusal(reason: "\(file).json: not a Piper voice config (audio.sample_rate, phoneme_id_map, num_symbols, num_speakers)")
            }
            hashes.append(ContentHash.of(bytes: configBytes))
        }
        return Voice(name: name, engine: engine, language: language, gender: gender, licence: try text("licence"),
                     attribution: try text("attribution"), origin: try text("origin"), checkedHash: ContentHash.of(hashes.joined(separator: " ")),
                     model: engine == "piper" ? path : nil)
    }

    /// The first byte of the file at `path` (nil for an empty file): a model's kind, read without reading the model.
    static func firstByte(of path: String) throws -> UInt8? {
        let reader = try FileChunkReader(path: path)
        var byte: UInt8 = 0
        let n = try withUnsafeMutableBytes(of: &byte) { try reader.read(into: $0) }
        return n == 0 ? nil : byte
    }

    /// 1 to 64 of a-z, 0-9, `-` and `_`, starting with a letter or digit: a voice's folder and its name in an id.
    static func isVoiceName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), let first = name.utf8.first else { return false }
        func plain(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) }
        return plain(first) && name.utf8.allSatisfy { plain($0) || $0 == 0x2D || $0 == 0x5F }
    }

    /// The voices for `engine` (a key).
    public func voices(for engine: String) -> [Voice] { voices.filter { $0.engine == engine } }

    /// The refusal of the voice `name`, when it was refused.
    public func refusal(of name: String) -> String? {
        refused.first { $0.name == name }?.reason ?? refused.first { $0.name == "*" }?.reason
    }
}
