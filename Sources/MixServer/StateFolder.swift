import Foundation
import Logging
import MixRender

/// The server's state folder: made (mode 0700) with its `sounds` and `results` folders when absent.
enum StateFolder {
    static func prepare(_ configuration: ServerConfiguration) throws {
        let manager = FileManager.default
        for folder in [configuration.stateFolder, configuration.soundsPath, configuration.resultsPath] {
            var isFolder: ObjCBool = false
            if manager.fileExists(atPath: folder, isDirectory: &isFolder) {
                guard isFolder.boolValue else { throw RenderProblem.badRequest("'\(folder)' is a file, not a folder") }
                continue
            }
            do {
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw RenderProblem.badRequest("cannot make the folder '\(folder)': \(error.localizedDescription)")
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
            throw RenderProblem.badRequest("cannot lock the state folder '\(configuration.stateFolder)': \(error)")
        }
        guard let held else {
            throw RenderProblem.badRequest("the state folder '\(configuration.stateFolder)' is in use by another mixrender serve "
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
    private let state: Locked<(file: TokenFile, modified: Date?, checked: Date)>

    private init(path: String, file: TokenFile) {
        self.path = path
        state = Locked((file, Self.modification(of: path), Date()))
    }

    /// The tokens file of `configuration`; when it is the state folder's own and absent, it is made with one token
    /// (named `default`), which `announce` prints (`token: mxr_...`): the only time it is shown.
    static func open(_ configuration: ServerConfiguration, announce: @Sendable (String) -> Void) throws -> TokenSource {
        let path = configuration.tokensPath
        if configuration.tokensFile == nil, !FileManager.default.fileExists(atPath: path) {
            do {
                let made = try TokenFile.appending(name: "default", to: path)
                announce("token: \(made.token)")
                announce("(a token for this server, shown once; its hash is in \(path); add others with mixrender serve --new-token NAME)")
            } catch {
                throw RenderProblem.badRequest("\(error)")
            }
        }
        do {
            return TokenSource(path: path, file: try TokenFile.load(path: path))
        } catch {
            throw RenderProblem.badRequest("\(error)")
        }
    }

    /// The name of the token an `Authorization` header carries, or nil.
    func authenticate(authorization header: String) -> String? {
        guard let token = TokenFile.bearerToken(authorization: header) else { return nil }
        return current.authenticate(bearer: token)
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

    private static func modification(of path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

/// The webhook signing secret (`whsec_...`, Standard Webhooks) in the state folder, made (mode 0600) when absent.
enum WebhookSecret {
    static func signer(_ configuration: ServerConfiguration) throws -> WebhookSigner {
        let path = configuration.webhookSecretPath
        if !FileManager.default.fileExists(atPath: path) {
            let secret = WebhookSigner.makeSecret()
            guard FileManager.default.createFile(atPath: path, contents: Data((secret + "\n").utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw RenderProblem.badRequest("cannot write the webhook secret '\(path)'")
            }
        }
        guard let text = FileManager.default.contents(atPath: path) else {
            throw RenderProblem.badRequest("cannot read the webhook secret '\(path)'")
        }
        do {
            return try WebhookSigner(secret: String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw RenderProblem.badRequest("\(path): \(error)")
        }
    }
}
