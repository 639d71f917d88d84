import Foundation
import Logging
import MixIO
import MixRender

/// Why the server cannot start (its folders, its tokens, its secret): one line naming the file, which `mixrender
/// serve` prints before it exits.
struct ServerSetupError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The server's state folder: made (mode 0700) with its `sounds` and `results` folders when absent.
enum StateFolder {
    static func prepare(_ configuration: ServerConfiguration) throws {
        for folder in [configuration.stateFolder, configuration.soundsPath, configuration.resultsPath] {
            if let existing = FileSystem.identity(of: folder) {
                guard existing.kind == .folder else { throw ServerSetupError("'\(folder)' is a file, not a folder") }
                continue
            }
            do {
                if let slash = folder.lastIndex(of: "/"), slash != folder.startIndex { try FileSystem.makeFolders(String(folder[..<slash])) }
                try FileSystem.makeNewFolder(folder, mode: 0o700)
            } catch let error as AudioIOError where error.cause == .alreadyExists {
                continue   // made meanwhile by another process
            } catch {
                throw ServerSetupError("cannot make the folder '\(folder)': \(error.fileReason)")
            }
        }
    }

    /// The lock that makes this server the folder's only one while it runs (`STATE/server.lock`, an `flock` the
    /// kernel drops when the process ends, kill -9 included): a second server on the same SQLite state would take
    /// the first one's running jobs back into the queue as its own worker `local` and render them twice.
    static func own(_ configuration: ServerConfiguration) throws -> HeldFileLock {
        let path = configuration.stateFolder + "/server.lock"
        let held: HeldFileLock?
        do {
            held = try FileLock.tryHolding(path)
        } catch {
            throw ServerSetupError("cannot lock the state folder '\(configuration.stateFolder)': \(error)")
        }
        guard let held else {
            throw ServerSetupError("the state folder '\(configuration.stateFolder)' is in use by another mixrender serve "
                + "(it holds server.lock there); stop that one, or give this one its own --state (several servers share jobs "
                + "through --database postgres://...)")
        }
        return held
    }
}

/// The bearer tokens, read from the tokens file and read again when it changes (a token added with
/// `mixrender serve --new-token` works without a restart; checked at most once a second).
final class TokenSource: Sendable {
    let path: String
    private let state: Locked<(file: TokenFile, modified: Int64?, checked: Date)>

    private init(path: String, file: TokenFile) {
        self.path = path
        state = Locked((file, Self.modification(of: path), Date()))
    }

    /// The tokens file of `configuration`; when it is the state folder's own and absent, it is made with one token
    /// (named `default`), which `announce` prints (`token: mxr_...`): the only time it is shown.
    static func open(_ configuration: ServerConfiguration, announce: @Sendable (String) -> Void) throws -> TokenSource {
        let path = configuration.tokensPath
        if configuration.tokensFile == nil, FileSystem.entry(at: path) == nil {
            do {
                let made = try TokenFile.appending(name: "default", to: path)
                announce("token: \(made.token)")
                announce("(a token for this server, shown once; its hash is in \(path); add others with mixrender serve --new-token NAME)")
            } catch {
                throw ServerSetupError("\(error)")
            }
        }
        do {
            return TokenSource(path: path, file: try TokenFile.load(path: path))
        } catch {
            throw ServerSetupError("\(error)")
        }
    }

    /// The token an `Authorization` header carries (its name and limit), or nil.
    func authenticate(authorization header: String) -> TokenFile.Entry? {
        guard let token = TokenFile.bearerToken(authorization: header) else { return nil }
        return current.entry(bearer: token)
    }

    private var current: TokenFile {
        let now = Date()
        let (file, needsCheck) = state.withLock { state -> (TokenFile, Bool) in
            let due = now.timeIntervalSince(state.checked) >= 1
            if due { state.checked = now }
            return (state.file, due)
        }
        guard needsCheck else { return file }
        let modified = Self.modification(of: path)
        guard modified != state.withLock({ $0.modified }), let reread = try? TokenFile.load(path: path) else { return file }
        state.withLock { $0.file = reread; $0.modified = modified }
        return reread
    }

    /// The file's modification time (nanoseconds since 1970), or nil when it cannot be looked at.
    private static func modification(of path: String) -> Int64? {
        FileSystem.identity(of: path)?.modified
    }
}

/// The webhook signing secret (`whsec_...`, Standard Webhooks) in the state folder, made (mode 0600) when absent.
enum WebhookSecret {
    static func signer(_ configuration: ServerConfiguration) throws -> WebhookSigner {
        let path = configuration.webhookSecretPath
        if FileSystem.entry(at: path) == nil {
            do {
                // Whole or absent: another server sharing the folder never reads a part of it.
                try FileSystem.publishNew(Array((WebhookSigner.makeSecret() + "\n").utf8), to: path, permissions: 0o600)
            } catch let error as AudioIOError where error.cause == .alreadyExists {
                // Made meanwhile by another server sharing the folder: read below.
            } catch {
                throw ServerSetupError("cannot write the webhook secret '\(path)': \(error.fileReason)")
            }
        }
        let text: [UInt8]
        do {
            text = try FileSystem.readDocument(path: path, maximumBytes: 4096)
        } catch {
            throw ServerSetupError("cannot read the webhook secret '\(path)': \(error.fileReason)")
        }
        do {
            return try WebhookSigner(secret: String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw ServerSetupError("\(path): \(error)")
        }
    }
}
