import Crypto
import Foundation
import MixIO
import MixRender

/// The server's bearer tokens: a text file the operator keeps, one token a line as `NAME sha256:<64 hex digits>`
/// (the SHA-256 of the token's text), with blank lines and `#` comments (a whole line, or after the fields). A third
/// field `templates=NAME,NAME` (or `templates=*`) limits the token to rendering those templates (docs/templates.md):
/// the key an app's users can reach renders nothing else.
/// The file holds no token, only hashes, so reading it gives nobody a token; the plain token is shown once, when
/// `appending(name:to:)` makes it.
///
/// A token's NAME is what the rest of the server knows a caller by (job ownership, logs); the token itself is never
/// kept, logged or compared other than through its hash, in constant time.
struct TokenFile: Sendable {
    /// One line of the file: a name and the SHA-256 of its token.
    struct Entry: Sendable, Equatable {
        var name: String
        var hash: [UInt8]
        /// The templates the token may render, and nothing else (`*`: any template); nil: it may do anything.
        var templates: TemplateLimit? = nil
    }

    /// What a token limited to templates may render.
    enum TemplateLimit: Sendable, Equatable {
        case any
        case only(Set<String>)

        func allows(_ template: String) -> Bool {
            switch self {
            case .any: true
            case .only(let names): names.contains(template)
            }
        }

        /// As the token file writes it.
        var field: String {
            switch self {
            case .any: "templates=*"
            case .only(let names): "templates=" + names.sorted().joined(separator: ",")
            }
        }

        /// The limit a `templates=` field's value gives, or nil when it is malformed.
        static func parse(_ value: Substring) -> TemplateLimit? {
            if value == "*" { return .any }
            let names = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !names.isEmpty, names.allSatisfy(PresetTemplate.isTemplateName) else { return nil }
            return .only(Set(names))
        }
    }

    /// The prefix of every token this server makes (so that a leaked one is easy to recognise).
    static let tokenPrefix = "mxr_"
    /// The longest token `authenticate` hashes; anything longer is refused unread.
    static let maximumTokenLength = 512
    /// The longest name.
    static let maximumNameLength = 64
    /// The largest token file read (about ten thousand tokens).
    static let maximumFileBytes = 1 << 20

    /// The file's path, for messages.
    let path: String
    let entries: [Entry]

    /// The tokens in the file at `path`; a missing or malformed file throws a one-line error naming the file and line.
    static func load(path: String) throws(TokenFileError) -> TokenFile {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readDocument(path: path, maximumBytes: maximumFileBytes)
        } catch {
            throw TokenFileError("token file '\(path)': cannot be read (\(error.fileReason))")
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw TokenFileError("token file '\(path)': not UTF-8 text")
        }
        return try TokenFile(path: path, text: text)
    }

    /// The tokens in `text`, the contents of the file at `path`.
    init(path: String, text: String) throws(TokenFileError) {
        var entries: [Entry] = []
        var names = Set<String>()
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let place = "token file '\(path)' line \(index + 1)"
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first, !first.hasPrefix("#") else { continue }
            var limit: TemplateLimit? = nil
            let extra = fields.count > 2 && !fields[2].hasPrefix("#") ? 3 : 2
            if extra == 3 {
                guard fields[2].hasPrefix("templates="), let parsed = TemplateLimit.parse(fields[2].dropFirst("templates=".count)) else {
                    throw TokenFileError("\(place): the third field is 'templates=NAME,NAME' (template names) or 'templates=*'")
                }
                limit = parsed
            }
            guard fields.count >= 2, fields.count == extra || fields[extra].hasPrefix("#") else {
                throw TokenFileError("\(place): expected 'NAME sha256:<64 hex digits> [templates=NAME,...]'")
            }
            let name = String(first)
            if let problem = Self.problem(withName: name) {
                throw TokenFileError("\(place): \(problem)")
            }
            guard fields[1].hasPrefix("sha256:") else {
                throw TokenFileError("\(place): the hash must be written 'sha256:<64 hex digits>'")
            }
            let hex = fields[1].dropFirst("sha256:".count).lowercased()
            guard HexDigits.isSHA256(hex.utf8) else {
                throw TokenFileError("\(place): 'sha256:' must be followed by 64 hexadecimal digits")
            }
            let hash = Self.bytes(hex: hex)
            guard names.insert(name).inserted else {
                throw TokenFileError("\(place): the name '\(name)' is there already")
            }
            // Two names for one token would make the caller's name depend on the order of the lines.
            guard !entries.contains(where: { $0.hash == hash }) else {
                throw TokenFileError("\(place): this token's hash is there already under another name")
            }
            entries.append(Entry(name: name, hash: hash, templates: limit))
        }
        self.path = path
        self.entries = entries
    }

    /// The name of the token `token`, or nil when the file has no such token. Every entry is compared, in constant
    /// time, whichever matches.
    func authenticate(bearer token: String) -> String? {
        entry(bearer: token)?.name
    }

    /// The entry of the token `token` (its name and limit), or nil, as `authenticate` finds it.
    func entry(bearer token: String) -> Entry? {
        guard !token.isEmpty, token.utf8.count <= Self.maximumTokenLength else { return nil }
        let hash = Array(SHA256.hash(data: Data(token.utf8)))
        var found: Entry?
        for entry in entries where ConstantTime.isEqual(entry.hash, hash) {
            found = entry
        }
        return found
    }

    /// The token of an `Authorization` header's value `Bearer <token>` (the scheme in any case, one token of
    /// RFC 6750's characters), or nil when the value is anything else.
    static func bearerToken(authorization value: String) -> String? {
        let text = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        guard let space = text.firstIndex(where: { $0 == " " }) else { return nil }
        guard text[..<space].lowercased() == "bearer" else { return nil }
        let token = text[space...].drop(while: { $0 == " " })
        // token68: letters, digits, - . _ ~ + /, then any '='.
        let body = token.utf8.prefix(while: { byte in
            (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2d || byte == 0x2e || byte == 0x5f || byte == 0x7e || byte == 0x2b || byte == 0x2f
        })
        guard !body.isEmpty, token.utf8.dropFirst(body.count).allSatisfy({ $0 == 0x3d }) else { return nil }
        return String(token)
    }

    /// A new token: `mxr_` and 32 random bytes in base64url without padding.
    static func makeToken() -> String {
        let encoded = Data(RandomBytes.make(32)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return tokenPrefix + encoded
    }

    /// Makes a token named `name`, adds its line to the file at `path` (creating it with mode 0600 when missing), and
    /// returns the plain token, which exists nowhere else: show it once. Refuses a malformed name, one the file has
    /// already, and a file that does not parse.
    static func appending(name: String, to path: String, templates: TemplateLimit? = nil) throws(TokenFileError) -> (token: String, file: TokenFile) {
        if let problem = problem(withName: name) {
            throw TokenFileError("token name '\(name)': \(problem)")
        }
        let appending: DurableFile
        do {
            // The operator's file: a link to where they keep it is followed, as `load` follows it.
            appending = try DurableFile(path: path, opening: .appending, permissions: 0o600, followsLinks: true)
        } catch {
            throw TokenFileError("token file '\(path)': cannot be opened (\(error.fileReason))")
        }
        defer { appending.close() }
        // One writer at a time (two `token add` at once must not both take a name).
        do {
            try appending.lockExclusively()
        } catch {
            throw TokenFileError("token file '\(path)': cannot be locked (\(error.fileReason))")
        }
        let existing = try load(path: path)
        guard !existing.entries.contains(where: { $0.name == name }) else {
            throw TokenFileError("token file '\(path)': the name '\(name)' is there already")
        }
        let token = makeToken()
        let hash = ContentHash.of(token)
        let lastByte = (try? FileSystem.readDocument(path: path, maximumBytes: maximumFileBytes))?.last
        let line = (lastByte == nil || lastByte == 0x0a ? "" : "\n") + "\(name) sha256:\(hash)" + (templates.map { " " + $0.field } ?? "") + "\n"
        do {
            try appending.write(Array(line.utf8))
            try appending.commit()
        } catch {
            throw TokenFileError("token file '\(path)': cannot be written (\(error.fileReason))")
        }
        let file = TokenFile(path: path, entries: existing.entries + [Entry(name: name, hash: bytes(hex: hash), templates: templates)])
        return (token, file)
    }

    private init(path: String, entries: [Entry]) {
        self.path = path
        self.entries = entries
    }

    /// What is wrong with `name` as a token's name, or nil: 1 to 64 of letters, digits, `-`, `_`, `.`, `@`.
    private static func problem(withName name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength else {
            return "a name has 1 to \(maximumNameLength) characters"
        }
        let isPermitted = name.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2d || byte == 0x5f || byte == 0x2e || byte == 0x40
        }
        return isPermitted ? nil : "a name has only letters, digits, '-', '_', '.' and '@' (no spaces)"
    }

    private static func bytes(hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for byte in hex.utf8 {
            let value = byte <= 0x39 ? byte - 0x30 : byte - 0x61 + 10
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}

/// Why the token file cannot be used, in one line naming the file (and line).
struct TokenFileError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
