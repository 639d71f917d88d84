import Crypto
import Foundation
import Testing
@testable import MixServer

@Suite struct TokenFileTests {
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    @Test func parsesAndAuthenticates() throws {
        let text = """
        # the server's tokens
          
        alice sha256:\(Self.hash("mxr_alice"))
        bob\tsha256:\(Self.hash("mxr_bob").uppercased())   # CI
        \r
        """
        let file = try TokenFile(path: "tokens.txt", text: text)
        #expect(file.entries.map(\.name) == ["alice", "bob"])
        #expect(file.authenticate(bearer: "mxr_alice") == "alice")
        #expect(file.authenticate(bearer: "mxr_bob") == "bob")
        #expect(file.authenticate(bearer: "mxr_carol") == nil)
        #expect(file.authenticate(bearer: "") == nil)
        #expect(file.authenticate(bearer: String(repeating: "a", count: 10_000)) == nil)
        #expect(file.authenticate(bearer: Self.hash("mxr_alice")) == nil)
    }

    @Test(arguments: [
        ("alice", "line 1: expected 'NAME sha256:<64 hex digits> [templates=NAME,...]'"),
        ("alice sha256:\(String(repeating: "a", count: 64)) extra", "line 1: the third field is 'templates=NAME,NAME' (template names) or 'templates=*'"),
        ("alice sha256:\(String(repeating: "a", count: 64)) templates=Calm", "line 1: the third field is 'templates=NAME,NAME' (template names) or 'templates=*'"),
        ("alice sha256:\(String(repeating: "a", count: 64)) templates=", "line 1: the third field is 'templates=NAME,NAME' (template names) or 'templates=*'"),
        ("alice sha256:\(String(repeating: "a", count: 64)) templates=a more", "line 1: expected 'NAME sha256:<64 hex digits> [templates=NAME,...]'"),
        ("alice \(String(repeating: "a", count: 64))", "line 1: the hash must be written 'sha256:<64 hex digits>'"),
        ("alice sha256:\(String(repeating: "a", count: 63))", "line 1: 'sha256:' must be followed by 64 hexadecimal digits"),
        ("alice sha256:\(String(repeating: "g", count: 64))", "line 1: 'sha256:' must be followed by 64 hexadecimal digits"),
        ("al/ice sha256:\(String(repeating: "a", count: 64))", "line 1: a name has only letters, digits, '-', '_', '.' and '@' (no spaces)"),
        ("# ok\nalice sha256:\(String(repeating: "a", count: 64))\nalice sha256:\(String(repeating: "b", count: 64))",
         "line 3: the name 'alice' is there already"),
        ("alice sha256:\(String(repeating: "a", count: 64))\nbob sha256:\(String(repeating: "A", count: 64))",
         "line 2: this token's hash is there already under another name"),
    ])
    func refusesMalformedLines(text: String, reason: String) {
        #expect {
            _ = try TokenFile(path: "/etc/mixrender/tokens", text: text)
        } throws: { error in
            (error as? TokenFileError)?.description == "token file '/etc/mixrender/tokens' \(reason)"
        }
    }

    @Test func aTokenMayBeLimitedToTemplates() throws {
        let text = """
        backend sha256:\(Self.hash("mxr_backend"))
        app sha256:\(Self.hash("mxr_app")) templates=calm,goal-session   # the app's users
        any sha256:\(Self.hash("mxr_any")) templates=*
        """
        let file = try TokenFile(path: "tokens.txt", text: text)
        #expect(file.entry(bearer: "mxr_backend")?.templates == nil)
        let app = try #require(file.entry(bearer: "mxr_app"))
        #expect(app.name == "app" && app.templates == .only(["calm", "goal-session"]))
        #expect(app.templates?.allows("calm") == true && app.templates?.allows("other") == false)
        #expect(file.entry(bearer: "mxr_any")?.templates == .any && file.entry(bearer: "mxr_any")?.templates?.allows("x") == true)
    }

    @Test func appendingWritesATemplateLimit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tokens").path
        let made = try TokenFile.appending(name: "app", to: path, templates: .only(["calm"]))
        let reread = try TokenFile.load(path: path)
        #expect(reread.entry(bearer: made.token)?.templates == .only(["calm"]))
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasSuffix(" templates=calm\n"))
    }

    @Test func readsAMissingFileAsAnError() async throws {
        try await withTemporaryFolder { folder in
            #expect {
                _ = try TokenFile.load(path: folder + "/none")
            } throws: { error in
                (error as? TokenFileError)?.description == "token file '\(folder)/none': cannot be read (No such file or directory)"
            }
        }
    }

    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER   abc", "abc"), ("  Bearer abc  ", "abc"),
        ("Bearer mxr_A-b.c~d+e/f==", "mxr_A-b.c~d+e/f=="),
    ])
    func readsBearerTokens(header: String, token: String) {
        #expect(TokenFile.bearerToken(authorization: header) == token)
    }

    @Test(arguments: ["", "Bearer", "Bearer ", "Basic abc", "Bearerabc", "Bearer abc def", "Bearer a=b", "Bearer =abc",
                      "Bearer abc\tdef", "Token abc", "Bearer äbc"])
    func refusesOtherAuthorizations(header: String) {
        #expect(TokenFile.bearerToken(authorization: header) == nil)
    }

    @Test func makesDistinctURLSafeTokens() {
        let token = TokenFile.makeToken()
        #expect(token.hasPrefix("mxr_"))
        #expect(token.count == 4 + 43)
        #expect(token.dropFirst(4).allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(TokenFile.bearerToken(authorization: "Bearer \(token)") == token)
        #expect(token != TokenFile.makeToken())
    }

    @Test func appendsTokensToANewFileWithMode0600() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/tokens"
            let (aliceToken, _) = try TokenFile.appending(name: "alice", to: path)
            let (bobToken, file) = try TokenFile.appending(name: "bob", to: path)
            #expect(file.entries.map(\.name) == ["alice", "bob"])
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            // The file holds hashes, never the tokens.
            #expect(!text.contains(aliceToken) && !text.contains(bobToken))
            #expect(text == "alice sha256:\(Self.hash(aliceToken))\nbob sha256:\(Self.hash(bobToken))\n")
            let loaded = try TokenFile.load(path: path)
            #expect(loaded.authenticate(bearer: aliceToken) == "alice")
            #expect(loaded.authenticate(bearer: bobToken) == "bob")
        }
    }

    @Test func appendingRefusesTakenAndMalformedNames() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/tokens"
            try write("# ops\nalice sha256:\(String(repeating: "a", count: 64))", to: path)
            #expect {
                _ = try TokenFile.appending(name: "alice", to: path)
            } throws: { error in
                (error as? TokenFileError)?.description == "token file '\(path)': the name 'alice' is there already"
            }
            for name in ["", "a b", "tab\there", "new\nline", String(repeating: "x", count: 65)] {
                #expect(throws: TokenFileError.self) { _ = try TokenFile.appending(name: name, to: path) }
            }
            // A file without a final newline gets one before the new line.
            let (token, _) = try TokenFile.appending(name: "carol", to: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text == "# ops\nalice sha256:\(String(repeating: "a", count: 64))\ncarol sha256:\(Self.hash(token))\n")
        }
    }

    @Test func appendingRefusesAMalformedFile() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/tokens"
            try write("alice sha256:nothex\n", to: path)
            #expect(throws: TokenFileError.self) { _ = try TokenFile.appending(name: "bob", to: path) }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "alice sha256:nothex\n")
        }
    }
}
