import DSPTestSupport
import Foundation
import Testing
@testable import MixIO

/// What a store that owns a folder asks of MixIO (the server's results, uploads and token file): entries seen
/// without following links, real paths, new folders, trees removed without following links, durable files.
@Suite struct StoreFolderTests {
    @Test func entriesAreSeenWithoutFollowingLinks() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        try FileSystem.writeFile(path: folder.path("a.bin"), bytes: [UInt8](repeating: 1, count: 300))
        try FileSystem.makeNewFolder(folder.path("sub"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link"), withDestinationPath: "sub")
        let file = try #require(FileSystem.entry(at: folder.path("a.bin")))
        #expect(file.kind == .regular && file.size == 300 && file.modified > 0)
        #expect(FileSystem.entry(at: folder.path("sub"))?.kind == .folder)
        #expect(FileSystem.entry(at: folder.path("link"))?.kind == .symbolicLink)
        #expect(FileSystem.entry(at: "/dev/null")?.kind == .other)
        #expect(FileSystem.entry(at: folder.path("missing")) == nil)
        #expect(FileSystem.entry(at: folder.path("bad\u{0}name")) == nil)

        // realpath resolves the link; a missing path is a noSuchFile error naming it.
        #expect(try FileSystem.realPath(folder.path("link")) == (try FileSystem.realPath(folder.path("sub"))))
        let missing = #expect(throws: AudioIOError.self) { try FileSystem.realPath(folder.path("missing/x")) }
        #expect(missing?.cause == .noSuchFile && missing?.function == "realpath")

        // A new folder must be new.
        let twice = #expect(throws: AudioIOError.self) { try FileSystem.makeNewFolder(folder.path("sub")) }
        #expect(twice?.cause == .alreadyExists)

        // Times are set on the entry itself.
        try FileSystem.setModificationTime(folder.path("a.bin"), nanoseconds: 1_500_000_000_250_000_000)
        #expect(FileSystem.entry(at: folder.path("a.bin"))?.modified == 1_500_000_000_250_000_000)
    }

    /// `notRegularFile` is `readDocument`'s finding, not every `EINVAL`'s (a path with a NUL is one too).
    @Test func onlyADocumentThatIsNotAFileIsNotARegularFile() {
        let device = #expect(throws: AudioIOError.self) { try FileSystem.readDocument(path: "/dev/null", maximumBytes: 10) }
        #expect(device?.cause == .notRegularFile)
        let nul = #expect(throws: AudioIOError.self) { try FileSystem.readDocument(path: "a\u{0}b", maximumBytes: 10) }
        #expect(nul?.code == EINVAL && nul?.cause == .other)
    }

    @Test func aTreeIsWalkedAndRemovedWithoutFollowingALinkOutOfIt() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        // Outside the tree: a file a link inside points at, which removing the tree must leave.
        try FileSystem.makeNewFolder(folder.path("outside"))
        try FileSystem.writeFile(path: folder.path("outside/keep.txt"), bytes: Array("keep".utf8))
        try FileSystem.makeFolders(folder.path("tree/a/b"))
        try FileSystem.writeFile(path: folder.path("tree/a/one.bin"), bytes: [UInt8](repeating: 0, count: 10))
        try FileSystem.writeFile(path: folder.path("tree/a/b/two.bin"), bytes: [UInt8](repeating: 0, count: 20))
        try FileManager.default.createSymbolicLink(atPath: folder.path("tree/a/b/out"), withDestinationPath: folder.path("outside"))

        var seen: [String: FileEntry.Kind] = [:]
        var bytes: Int64 = 0
        FileSystem.walk(folder.path("tree")) { path, entry in
            seen[String(path.dropFirst(folder.path("tree").count))] = entry.kind
            if entry.kind == .regular { bytes += entry.size }
        }
        #expect(seen == ["/a": .folder, "/a/one.bin": .regular, "/a/b": .folder, "/a/b/two.bin": .regular, "/a/b/out": .symbolicLink])
        #expect(bytes == 30)

        #expect(FileSystem.removeTree(folder.path("tree")))
        #expect(FileSystem.entry(at: folder.path("tree")) == nil)
        #expect(try FileSystem.readDocument(path: folder.path("outside/keep.txt"), maximumBytes: 10) == Array("keep".utf8))
        #expect(FileSystem.removeTree(folder.path("never-there")))
    }

    @Test func aDurableFileIsNewOrAppendedAndSyncedOnCommit() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.path("new.bin")
        let new = try DurableFile(path: path, opening: .new)
        try new.write([1, 2, 3])
        try new.commit()
        #expect(try FileSystem.readDocument(path: path, maximumBytes: 10) == [1, 2, 3])
        // `.new` refuses a path that is taken; writing after commit says the file is closed.
        let taken = #expect(throws: AudioIOError.self) { try DurableFile(path: path, opening: .new) }
        #expect(taken?.cause == .alreadyExists)
        #expect(throws: AudioIOError.self) { try new.write([4]) }

        // Appending, under the lock, with the permissions asked for a file it creates.
        let lines = folder.path("lines.txt")
        for line in ["one\n", "two\n"] {
            let file = try DurableFile(path: lines, opening: .appending, permissions: 0o600)
            try file.lockExclusively()
            try file.write(Array(line.utf8))
            try file.commit()
        }
        #expect(String(decoding: try FileSystem.readDocument(path: lines, maximumBytes: 100), as: UTF8.self) == "one\ntwo\n")
        let mode = try FileManager.default.attributesOfItem(atPath: lines)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // A discarded file leaves nothing; a link at the path is never written through.
        let discarded = try DurableFile(path: folder.path("gone.bin"), opening: .new)
        try discarded.write([9])
        discarded.discard()
        #expect(FileSystem.entry(at: folder.path("gone.bin")) == nil)
        try FileManager.default.createSymbolicLink(atPath: folder.path("planted"), withDestinationPath: lines)
        let planted = #expect(throws: AudioIOError.self) { try DurableFile(path: folder.path("planted"), opening: .appending) }
        #expect(planted?.cause == .symbolicLink)
        // An operator's file named through a link is appended to where the link leads, when asked.
        let through = try DurableFile(path: folder.path("planted"), opening: .appending, followsLinks: true)
        try through.write(Array("three\n".utf8))
        try through.commit()
        #expect(String(decoding: try FileSystem.readDocument(path: lines, maximumBytes: 100), as: UTF8.self) == "one\ntwo\nthree\n")
    }
}
