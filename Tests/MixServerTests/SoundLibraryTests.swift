import Crypto
import Foundation
import Testing
@testable import MixServer

@Suite struct SoundLibraryTests {
    /// A state folder, an operator folder `music` full of traps, a folder `fx`, and a file outside both.
    private func withLibrary(_ body: (SoundLibrary, String) async throws -> Void) async throws {
        try await withTemporaryFolder { root in
            let music = root + "/music"
            try write("rain", to: music + "/rain.ogg")
            try write("wind", to: music + "/sub/deep/wind.ogg")
            try write("secret", to: root + "/outside/secret.ogg")
            try write("hidden", to: music + "/.hidden.ogg")
            try write("tilde", to: music + "/take~1.ogg")
            try write("a", to: root + "/fx/a.wav")
            let links = FileManager.default
            try links.createSymbolicLink(atPath: music + "/link-inside.ogg", withDestinationPath: "rain.ogg")
            try links.createSymbolicLink(atPath: music + "/link-outside.ogg", withDestinationPath: "../outside/secret.ogg")
            try links.createSymbolicLink(atPath: music + "/link-absolute.ogg", withDestinationPath: root + "/outside/secret.ogg")
            try links.createSymbolicLink(atPath: music + "/linkdir", withDestinationPath: "../outside")
            try links.createSymbolicLink(atPath: music + "/insidedir", withDestinationPath: "sub")
            try links.createSymbolicLink(atPath: music + "/loop", withDestinationPath: "loop")
            try links.createSymbolicLink(atPath: music + "/dangling", withDestinationPath: "nowhere.ogg")
            try links.createDirectory(atPath: music + "/folder.ogg", withIntermediateDirectories: false)
            #expect(mkfifo(music + "/fifo.ogg", 0o644) == 0)
            // The operator's folder given through a link is fine: its real path is the root.
            try links.createSymbolicLink(atPath: root + "/fx-link", withDestinationPath: "fx")
            let library = try SoundLibrary(uploadsFolder: root + "/state/sounds", folders: ["music=\(music)", "fx=\(root)/fx-link"])
            try await body(library, root)
        }
    }

    private func reason(_ library: SoundLibrary, _ reference: String) -> String? {
        do {
            _ = try library.resolve(reference)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func resolvesFilesAndLinksInsideTheFolder() async throws {
        try await withLibrary { library, root in
            let expected = [
                "music/rain.ogg": "/music/rain.ogg",
                "music/sub/deep/wind.ogg": "/music/sub/deep/wind.ogg",
                "music/link-inside.ogg": "/music/rain.ogg",
                "music/insidedir/deep/wind.ogg": "/music/sub/deep/wind.ogg",
                "music/.hidden.ogg": "/music/.hidden.ogg",
                "fx/a.wav": "/fx/a.wav",
            ]
            for (reference, path) in expected {
                let resolved = try library.resolve(reference)
                #expect(resolved == root + path)
            }
        }
    }

    static let notByURL = "sounds are named 'FOLDER/path' (a sound folder of the server's) or 'sha256:<hex>' (a sound uploaded "
        + "with PUT /v1/sounds/<hex>), not by URL; the server fetches nothing"

    @Test func refusesEverythingElse() async throws {
        try await withLibrary { library, _ in
            let cases: [(String, String)] = [
                ("", "the name is empty"),
                ("/etc/passwd", "absolute paths are not taken; write 'FOLDER/path'"),
                ("music/../outside/secret.ogg", "'.' and '..' are not taken in a sound's path"),
                ("music/sub/../rain.ogg", "'.' and '..' are not taken in a sound's path"),
                ("music/./rain.ogg", "'.' and '..' are not taken in a sound's path"),
                ("music/..", "'.' and '..' are not taken in a sound's path"),
                // A combining mark after '/' joins it into one Character; the bytes still hold a '..' component.
                ("music/sub/../\u{301}rain.ogg", "'.' and '..' are not taken in a sound's path"),
                ("music\\rain.ogg", "the name contains a backslash"),
                ("music/rain.ogg\0", "the name contains a NUL byte"),
                ("~/rain.ogg", "the name contains '~'"),
                ("music/~root", "the name contains '~'"),
                ("music/take~1.ogg", "the name contains '~'"),
                ("music//rain.ogg", "the name has an empty path component (two slashes in a row, or one at the end)"),
                ("music/sub/", "the name has an empty path component (two slashes in a row, or one at the end)"),
                ("https://example.com/rain.ogg", Self.notByURL),
                ("file:///srv/sounds/rain.ogg", Self.notByURL),
                ("music/https://x", Self.notByURL),
                ("nope/rain.ogg", "there is no sound folder 'nope' (the server has: fx, music)"),
                ("\u{212A}/x.ogg", "there is no sound folder '\u{212A}' (the server has: fx, music)"),
                ("music", "that is a folder; name a file in it, 'FOLDER/path'"),
                ("music/none.ogg", "no such sound"),
                ("music/sub/none/deeper.ogg", "no such sound"),
                ("music/link-outside.ogg", "a symbolic link leads outside the folder 'music'"),
                ("music/link-absolute.ogg", "a symbolic link leads outside the folder 'music'"),
                ("music/linkdir/secret.ogg", "a symbolic link leads outside the folder 'music'"),
                ("music/fifo.ogg", "not a regular file"),
                ("music/folder.ogg", "that is a folder, not a sound"),
                ("music/sub", "that is a folder, not a sound"),
                ("music/insidedir", "that is a folder, not a sound"),
                ("music/loop", "a symbolic link loops"),
                ("music/dangling", "no such sound"),
                ("music/rain.ogg/x", "no such sound"),
                ("sha256:abc", "'sha256:' must be followed by 64 lowercase hexadecimal digits"),
                ("sha256:" + String(repeating: "A", count: 64), "'sha256:' must be followed by 64 lowercase hexadecimal digits"),
                ("sha256:" + String(repeating: "a", count: 64), "no such sound has been uploaded"),
                ("sha256:../../music/rain.ogg", "'sha256:' must be followed by 64 lowercase hexadecimal digits"),
                (String(repeating: "a/", count: 3000), "the name is longer than 4096 bytes"),
            ]
            for (reference, expected) in cases {
                #expect(reason(library, reference) == expected, "\(reference.debugDescription)")
            }
        }
    }

    @Test func errorsAreOneLineAndEscaped() throws {
        let error = SoundReferenceError(reference: "a\nb\u{0}c", reason: "no such sound")
        #expect(error.description == #"sound 'a\nb\0c': no such sound"#)
        #expect(SoundReferenceError(reference: String(repeating: "x", count: 500), reason: "r").description.count < 220)
    }

    @Test func listsTheSoundsTheLibraryResolves() async throws {
        try await withLibrary { library, _ in
            let names = library.list()
            #expect(names == ["fx/a.wav", "music/link-inside.ogg", "music/rain.ogg", "music/sub/deep/wind.ogg"])
            for name in names { #expect(throws: Never.self) { _ = try library.resolve(name) } }
            #expect(library.list(limit: 2).count == 2)
        }
    }

    @Test func refusesMalformedFolders() async throws {
        try await withTemporaryFolder { root in
            try write("x", to: root + "/file")
            let uploads = root + "/sounds"
            let cases: [(String, String)] = [
                ("music", "sound folder 'music': expected NAME=DIR"),
                ("my music=\(root)", "sound folder 'my music=\(root)': NAME has 1 to 64 letters, digits, '-' or '_'"),
                ("=\(root)", "sound folder '=\(root)': NAME has 1 to 64 letters, digits, '-' or '_'"),
                ("music=", "sound folder 'music=': DIR is empty"),
                ("music=\(root)/none", "sound folder 'music=\(root)/none': '\(root)/none': No such file or directory"),
                ("music=\(root)/file", "sound folder 'music=\(root)/file': '\(root)/file' is not a folder"),
            ]
            for (specification, expected) in cases {
                #expect {
                    _ = try SoundLibrary(uploadsFolder: uploads, folders: [specification])
                } throws: { error in
                    (error as? SoundLibraryError)?.description == expected
                }
            }
            #expect {
                _ = try SoundLibrary(uploadsFolder: uploads, folders: ["a=\(root)", "a=\(root)"])
            } throws: { error in
                (error as? SoundLibraryError)?.description == "sound folder 'a=\(root)': the name 'a' is given twice"
            }
        }
    }

    // MARK: Uploads

    private static func chunks(_ bytes: [UInt8], size: Int) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(Array(bytes[start..<min(start + size, bytes.count)]))
            }
            continuation.finish()
        }
    }

    private static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    private static let sound: [UInt8] = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }

    @Test func storesAnUploadAndResolvesIt() async throws {
        try await withLibrary { library, root in
            let hash = Self.sha256(Self.sound)
            let outcome = try await library.store(sha256: hash, body: Self.chunks(Self.sound, size: 4096), maximumBytes: 100_000)
            #expect(outcome == .created)
            let path = try library.resolve("sha256:" + hash)
            #expect(path == root + "/state/sounds/" + hash)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.sound))
            #expect(entries(root + "/state/sounds") == [hash])
            // There already: the body is not read (this one would fail if it were).
            let failing = AsyncThrowingStream<[UInt8], any Error> { $0.finish(throwing: CancellationError()) }
            #expect(try await library.store(sha256: hash, body: failing, maximumBytes: 10) == .existing)
        }
    }

    @Test func takesChunksOfAnyByteCollection() async throws {
        try await withLibrary { library, _ in
            let bytes = Array("a small sound".utf8)
            let body = AsyncStream<Data> { continuation in
                continuation.yield(Data(bytes[0..<5]))
                continuation.yield(Data())
                continuation.yield(Data(bytes[5...]))
                continuation.finish()
            }
            let outcome = try await library.store(sha256: Self.sha256(bytes), body: body, maximumBytes: bytes.count)
            #expect(outcome == .created)
        }
    }

    @Test func wrongHashLeavesNothing() async throws {
        try await withLibrary { library, root in
            let wrong = String(repeating: "0", count: 64)
            await #expect {
                _ = try await library.store(sha256: wrong, body: Self.chunks(Self.sound, size: 1000), maximumBytes: 1 << 20)
            } throws: { error in
                error as? SoundUploadError == .hashMismatch(expected: wrong, actual: Self.sha256(Self.sound))
            }
            #expect(entries(root + "/state/sounds").isEmpty)
        }
    }

    @Test func oversizedUploadLeavesNothing() async throws {
        try await withLibrary { library, root in
            await #expect {
                _ = try await library.store(sha256: Self.sha256(Self.sound), body: Self.chunks(Self.sound, size: 1000),
                                            maximumBytes: 99_999)
            } throws: { error in
                error as? SoundUploadError == .tooLarge(maximumBytes: 99_999)
            }
            #expect(entries(root + "/state/sounds").isEmpty)
            #expect(SoundUploadError.tooLarge(maximumBytes: 99_999).description == "sound: larger than the 99999 bytes the server takes")
        }
    }

    @Test func failingBodyLeavesNothing() async throws {
        struct Gone: Error {}
        try await withLibrary { library, root in
            let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
                continuation.yield([1, 2, 3])
                continuation.finish(throwing: Gone())
            }
            await #expect(throws: Gone.self) {
                _ = try await library.store(sha256: String(repeating: "1", count: 64), body: body, maximumBytes: 100)
            }
            #expect(entries(root + "/state/sounds").isEmpty)
        }
    }

    @Test func refusesAMalformedName() async throws {
        try await withLibrary { library, _ in
            for name in ["", "abc", String(repeating: "A", count: 64), "../" + String(repeating: "a", count: 61)] {
                await #expect(throws: SoundUploadError.invalidName(name)) {
                    _ = try await library.store(sha256: name, body: Self.chunks([1], size: 1), maximumBytes: 10)
                }
            }
        }
    }

    @Test func sweepsStaleUploads() async throws {
        try await withLibrary { library, root in
            let uploads = root + "/state/sounds"
            try write("old", to: uploads + "/.upload-old")
            try write("new", to: uploads + "/.upload-new")
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)],
                                                  ofItemAtPath: uploads + "/.upload-old")
            #expect(library.sweepPartialUploads() == 1)
            #expect(entries(uploads) == [".upload-new"])
        }
    }
}
