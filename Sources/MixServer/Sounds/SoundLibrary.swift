import Foundation
import MixIO

/// Where presets' sounds come from. A request never names a path of the server: a preset names a sound either as
/// `sha256:<hex>`, a sound uploaded before (kept in the state folder's `sounds/<hex>`), or as `NAME/path/in/folder`,
/// a file in one of the folders the operator lists as `NAME=DIR`.
///
/// `resolve` is the only way from a name to a path, and refuses anything that could lead out of its folder: absolute
/// paths, `.` and `..`, backslashes, `~`, NUL, and symbolic links whose target lies outside (a link within the
/// folder is fine). It answers the real path (no link left), which is what the renderer then opens.
struct SoundLibrary: Sendable {
    /// The uploads' folder (`<state>/sounds`), as a real path.
    let uploadsFolder: String
    /// The operator's folders: name → real path of the folder.
    let folders: [String: String]

    /// The most names `list` gives.
    static let listLimit = 10_000
    /// The longest sound name `resolve` reads.
    static let maximumReferenceLength = 4096
    /// How deep `list` goes into sub-folders.
    static let maximumListDepth = 32

    /// A library keeping uploads in `uploadsFolder` (created when missing) and reading the operator's `folders`,
    /// each `NAME=DIR` (NAME: letters, digits, `-`, `_`; DIR: an existing folder). Throws a one-line error naming a
    /// malformed entry.
    init(uploadsFolder: String, folders specifications: [String]) throws(SoundLibraryError) {
        do {
            try FileSystem.makeFolders(uploadsFolder)
        } catch {
            throw SoundLibraryError("sounds folder '\(uploadsFolder)': cannot be created (\(error.fileReason))")
        }
        guard let uploadsReal = try? FileSystem.realPath(uploadsFolder),
              FileSystem.entry(at: uploadsReal)?.kind == .folder else {
            throw SoundLibraryError("sounds folder '\(uploadsFolder)': not a folder")
        }
        var folders: [String: String] = [:]
        for specification in specifications {
            guard let equals = specification.firstIndex(of: "=") else {
                throw SoundLibraryError("sound folder '\(specification)': expected NAME=DIR")
            }
            let name = String(specification[..<equals])
            let directory = String(specification[specification.index(after: equals)...])
            guard Self.isFolderName(name) else {
                throw SoundLibraryError("sound folder '\(specification)': NAME has 1 to 64 letters, digits, '-' or '_'")
            }
            guard folders[name] == nil else {
                throw SoundLibraryError("sound folder '\(specification)': the name '\(name)' is given twice")
            }
            guard !directory.isEmpty else {
                throw SoundLibraryError("sound folder '\(specification)': DIR is empty")
            }
            let real: String
            do {
                real = try FileSystem.realPath(directory)
            } catch {
                throw SoundLibraryError("sound folder '\(specification)': '\(directory)': \(error.fileReason)")
            }
            guard FileSystem.entry(at: real)?.kind == .folder else {
                throw SoundLibraryError("sound folder '\(specification)': '\(directory)' is not a folder")
            }
            folders[name] = real
        }
        self.uploadsFolder = uploadsReal
        self.folders = folders
    }

    /// The real path of the sound `reference` (`sha256:<hex>` or `NAME/path`), or a one-line reason it is refused.
    func resolve(_ reference: String) throws(SoundReferenceError) -> String {
        func refuse(_ reason: String) -> SoundReferenceError { SoundReferenceError(reference: reference, reason: reason) }

        guard !reference.isEmpty else { throw refuse("the name is empty") }
        guard reference.utf8.count <= Self.maximumReferenceLength else {
            throw refuse("the name is longer than \(Self.maximumReferenceLength) bytes")
        }
        guard !reference.utf8.contains(0) else { throw refuse("the name contains a NUL byte") }
        guard reference.range(of: "://") == nil else {
            throw refuse("sounds are named 'FOLDER/path' (a sound folder of the server's) or 'sha256:<hex>' (a sound uploaded "
                + "with PUT /v1/sounds/<hex>), not by URL; the server fetches nothing")
        }

        if reference.utf8.starts(with: "sha256:".utf8) {
            let hex = reference.utf8.dropFirst("sha256:".utf8.count)
            guard HexDigits.isSHA256(hex) else {
                throw refuse("'sha256:' must be followed by 64 lowercase hexadecimal digits")
            }
            let path = uploadsFolder + "/" + String(decoding: hex, as: UTF8.self)
            switch FileSystem.entry(at: path)?.kind {
            case .regular: return path
            case nil: throw refuse("no such sound has been uploaded")
            default: throw refuse("the uploaded sound is not a regular file")
            }
        }

        // Every check is on bytes, as the file system sees the name: a '/' followed by a combining mark is one
        // Character to Swift but still a separator to the file system.
        let bytes = Array(reference.utf8)
        guard bytes.first != UInt8(ascii: "/") else { throw refuse("absolute paths are not taken; write 'FOLDER/path'") }
        guard !bytes.contains(UInt8(ascii: "\\")) else { throw refuse("the name contains a backslash") }
        guard !bytes.contains(UInt8(ascii: "~")) else { throw refuse("the name contains '~'") }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !components.contains(where: \.isEmpty) else {
            throw refuse("the name has an empty path component (two slashes in a row, or one at the end)")
        }
        guard !components.contains(where: { $0.elementsEqual([0x2e]) || $0.elementsEqual([0x2e, 0x2e]) }) else {
            throw refuse("'.' and '..' are not taken in a sound's path")
        }
        let folderName = String(decoding: components[0], as: UTF8.self)
        guard Self.isFolderName(folderName), let root = folders[folderName] else {
            throw refuse("there is no sound folder '\(folderName)' (the server has: \(folders.keys.sorted().joined(separator: ", ")))")
        }
        guard components.count >= 2 else { throw refuse("that is a folder; name a file in it, 'FOLDER/path'") }

        let candidate = root + "/" + String(decoding: bytes[(components[0].count + 1)...], as: UTF8.self)
        let real: String
        do {
            real = try FileSystem.realPath(candidate)
        } catch let error as AudioIOError where error.cause == .noSuchFile {
            throw refuse("no such sound")
        } catch let error as AudioIOError where error.cause == .symbolicLink {
            throw refuse("a symbolic link loops")
        } catch {
            throw refuse("cannot be read (\(error.fileReason))")
        }
        guard real.hasPrefix(root == "/" ? "/" : root + "/"), real != root else {
            throw refuse("a symbolic link leads outside the folder '\(folderName)'")
        }
        switch FileSystem.entry(at: real)?.kind {
        case .regular: return real
        case .folder: throw refuse("that is a folder, not a sound")
        case nil: throw refuse("no such sound")
        default: throw refuse("not a regular file")
        }
    }

    /// The names (`NAME/path`) of the sounds in the operator's folders: regular files and links to them within the
    /// folder, in sub-folders too (links to folders are not followed), hidden files left out, sorted. At most
    /// `limit` names: past that, which are left out is not defined.
    func list(limit: Int = listLimit) -> [String] {
        var names: [String] = []
        var visited = 0
        for name in folders.keys.sorted() {
            walk(folders[name]!, prefix: name, depth: 0, limit: limit, visited: &visited, into: &names)
        }
        return names.sorted()
    }

    private func walk(_ directory: String, prefix: String, depth: Int, limit: Int, visited: inout Int,
                      into names: inout [String]) {
        guard depth < Self.maximumListDepth,
              let entries = try? FileSystem.folderEntries(directory) else { return }
        for entry in entries.sorted() {
            // Every entry counts, so a folder of millions of non-sounds cannot make a listing run for long.
            visited += 1
            guard names.count < limit, visited <= limit * 10 else { return }
            guard !entry.hasPrefix("."), !entry.contains("~"), !entry.contains("\\") else { continue }
            let path = directory + "/" + entry
            let name = prefix + "/" + entry
            switch FileSystem.entry(at: path)?.kind {
            case .folder:
                walk(path, prefix: name, depth: depth + 1, limit: limit, visited: &visited, into: &names)
            case .regular:
                names.append(name)
            case .symbolicLink:
                if (try? resolve(name)) != nil { names.append(name) }
            default:
                continue
            }
        }
    }

    /// Whether `name` can name an operator's folder: 1 to 64 letters, digits, `-`, `_`.
    static func isFolderName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2d || byte == 0x5f
        }
    }
}

/// Why the sound library's configuration cannot be used.
struct SoundLibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Why a preset's sound name is refused: the name (shortened, control characters escaped) and the reason.
struct SoundReferenceError: Error, Sendable, Equatable, CustomStringConvertible {
    var reference: String
    var reason: String
    var description: String {
        var shown = ""
        for scalar in reference.unicodeScalars.prefix(200) {
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        if reference.unicodeScalars.count > 200 { shown += "…" }
        return "sound '\(shown)': \(reason)"
    }
}
