import DSPTestSupport
import Foundation
import Testing
@testable import MixIO

@Suite struct FileSystemTests {
    // MARK: - identity (stat)

    @Test func identityFollowsHardAndSymbolicLinks() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let file = folder.path("a.bin"), hard = folder.path("hard.bin"), soft = folder.path("soft.bin")
        try FileSystem.writeFile(path: file, bytes: [UInt8](repeating: 7, count: 1234))
        try FileManager.default.linkItem(atPath: file, toPath: hard)
        try FileManager.default.createSymbolicLink(atPath: soft, withDestinationPath: "a.bin")
        let other = folder.path("other.bin")
        try FileSystem.writeFile(path: other, bytes: [UInt8](repeating: 7, count: 1234))

        let a = try #require(FileSystem.identity(of: file))
        let h = try #require(FileSystem.identity(of: hard))
        let s = try #require(FileSystem.identity(of: soft))
        try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: false)
        let dotted = try #require(FileSystem.identity(of: folder.url.path + "/sub/../a.bin"))
        #expect(a.device == h.device && a.inode == h.inode)
        #expect(a.device == s.device && a.inode == s.inode)
        #expect(a.device == dotted.device && a.inode == dotted.inode)
        #expect(a.inode != (try #require(FileSystem.identity(of: other))).inode)
        #expect(a.size == 1234 && s.size == 1234)
        #expect(a.kind == .regular && s.kind == .regular)
    }

    // MARK: - location (one file however spelled, made or not)

    @Test func locationIsOneForEverySpellingOfAFileMadeOrNot() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let root = folder.url.path
        try FileManager.default.createDirectory(atPath: folder.path("dup"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.path("linked"), withDestinationPath: "dup")
        func location(_ path: String) throws -> FileLocation { try #require(FileSystem.location(of: path), "\(path)") }
        // Not made yet: the existing folder and the names below it.
        let spellings = ["dup/a.wav", "dup/../dup/a.wav", "./dup//a.wav", "linked/a.wav", "new/x/../../dup/a.wav", "dup/./a.wav"]
        let expected = try location(root + "/dup/a.wav")
        #expect(!expected.exists && expected.names == ["a.wav"])
        for path in spellings { #expect(try location(root + "/" + path) == expected, "\(path)") }
        #expect(try location(root + "/dup/b.wav") != expected)
        #expect(try location(root + "/new/a.wav") == (try location(root + "/new/b/../a.wav")))
        #expect(try location(root + "/new/a.wav").names == ["new", "a.wav"])
        // Made: device and inode, through links.
        try FileSystem.writeFile(path: folder.path("dup/a.wav"), bytes: [1, 2, 3])
        let made = try location(root + "/linked/a.wav")
        #expect(try made.exists && made == location(root + "/dup/a.wav"))
        try FileManager.default.linkItem(atPath: folder.path("dup/a.wav"), toPath: folder.path("hard.wav"))
        #expect(try location(root + "/hard.wav") == made)
        // A relative path is taken from the current folder.
        #expect(FileSystem.location(of: "") == nil && FileSystem.location(of: "a\u{0}b") == nil)
        #expect(try location(".") == (try location(FileManager.default.currentDirectoryPath)))
    }

    @Test func documentsAreReadOnlyAsRegularFilesWithinTheirLimit() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let file = folder.path("p.json")
        try FileSystem.writeFile(path: file, bytes: Array("{}".utf8))
        #expect(try FileSystem.readDocument(path: file, maximumBytes: 2) == Array("{}".utf8))
        #expect(throws: AudioIOError.self) { try FileSystem.readDocument(path: file, maximumBytes: 1) }
        for path in ["/dev/zero", "/dev/null", folder.url.path] {
            #expect(throws: AudioIOError.self) { try FileSystem.readDocument(path: path, maximumBytes: 1 << 20) }
        }
        #expect(mkfifo(folder.path("fifo"), 0o644) == 0)   // no writer: an open without O_NONBLOCK would wait for ever
        let error = try #require(throws: AudioIOError.self) { try FileSystem.readDocument(path: folder.path("fifo"), maximumBytes: 1 << 20) }
        #expect(error.reason == "not a regular file (a device, a pipe or a socket)")
    }

    @Test func identityKinds() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        #expect(FileSystem.identity(of: folder.url.path)?.kind == .folder)
        #expect(FileSystem.identity(of: "/dev/null")?.kind == .other)
        #expect(FileSystem.identity(of: folder.path("missing")) == nil)
        // A dangling symbolic link names nothing.
        try FileManager.default.createSymbolicLink(atPath: folder.path("dangling"), withDestinationPath: "missing")
        #expect(FileSystem.identity(of: folder.path("dangling")) == nil)
        do {
            _ = try FileSystem.status(of: folder.path("missing"))
            Issue.record("expected an error")
        } catch let error as AudioIOError {
            #expect(error.function == "stat" && error.cause == .noSuchFile && error.code == ENOENT)
            #expect(error.description == "cannot look at '\(folder.path("missing"))': No such file or directory (stat)")
        }
    }

    // MARK: - readFile, writeFile, removeFile

    @Test func readFileReturnsTheBytes() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try FileSystem.writeFile(path: folder.path("data"), bytes: bytes)
        #expect(try FileSystem.readDocument(path: folder.path("data"), maximumBytes: 1 << 20) == bytes)
        try FileSystem.writeFile(path: folder.path("empty"), bytes: [])
        #expect(try FileSystem.readDocument(path: folder.path("empty"), maximumBytes: 1 << 20) == [])
        // Files in /proc report size 0 but have content: read until the end.
        #expect(FileSystem.identity(of: "/proc/self/status")?.size == 0)
        let status = String(decoding: try FileSystem.readDocument(path: "/proc/self/status", maximumBytes: 1 << 20), as: UTF8.self)
        #expect(status.contains("VmRSS:"))
    }

    @Test func readFileErrorsSayWhy() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let missing = folder.path("nothing.json")
        #expect(throws: AudioIOError.self) { try FileSystem.readDocument(path: missing, maximumBytes: 1 << 20) }
        do {
            _ = try FileSystem.readDocument(path: missing, maximumBytes: 1 << 20)
        } catch let error as AudioIOError {
            #expect(error.cause == .noSuchFile)
            #expect(error.description == "cannot read '\(missing)': No such file or directory (open)")
        }
        do {
            _ = try FileSystem.readDocument(path: folder.path("nothing/inside.json"), maximumBytes: 1 << 20)
        } catch let error as AudioIOError {
            #expect(error.cause == .noSuchFile)
        }
        do {
            _ = try FileSystem.readDocument(path: folder.url.path, maximumBytes: 1 << 20)
            Issue.record("a folder was read")
        } catch let error as AudioIOError {
            #expect(error.cause == .isFolder && error.function == "read")
            #expect(error.description == "cannot read '\(folder.url.path)': Is a directory (read)")
        }
        // errno says why, whoever runs the tests.
        for (code, cause) in [(EACCES, AudioIOError.Cause.permissionDenied), (EPERM, .permissionDenied), (ENOENT, .noSuchFile),
                              (ENOTDIR, .noSuchFile), (EISDIR, .isFolder), (EIO, .other)] {
            #expect(AudioIOError(path: "x", function: "open", reason: "r", operation: "read", code: code).cause == cause)
        }
        // An unreadable file, for real: root reads everything, so this part runs as another user only.
        if geteuid() != 0 {
            let locked = folder.path("locked.json")
            try FileSystem.writeFile(path: locked, bytes: Array("{}".utf8))
            chmod(locked, 0)
            do {
                _ = try FileSystem.readDocument(path: locked, maximumBytes: 1 << 20)
                Issue.record("an unreadable file was read")
            } catch let error as AudioIOError {
                #expect(error.cause == .permissionDenied && error.function == "open")
            }
        }
    }

    @Test func removeFile() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let file = folder.path("gone.txt")
        try FileSystem.writeFile(path: file, bytes: Array("x".utf8))
        try FileSystem.removeFile(file)
        #expect(FileSystem.identity(of: file) == nil)
        do {
            try FileSystem.removeFile(file)
            Issue.record("removed twice")
        } catch let error as AudioIOError {
            #expect(error.description == "cannot remove '\(file)': No such file or directory (unlink)")
        }
    }

    @Test func paths() throws {
        // A NUL would end the C string: refused by every wrapper that hands a path to C, naming the function.
        for call in [{ _ = try FileSystem.readDocument(path: "a\u{0}b", maximumBytes: 1 << 20) }, { try FileSystem.removeFile("a\u{0}b") },
                     { _ = try FileSystem.status(of: "a\u{0}b") }] {
            do { try call(); Issue.record("a path with NUL was taken") } catch let error as AudioIOError {
                #expect(error.reason == "the path contains a NUL character" && error.code == EINVAL)
            }
        }
        #expect(FileSystem.identity(of: "/dev/null\u{0}") == nil)
        #expect(!FileSystem.temporaryFolder.hasSuffix("/"))
        #expect(CurrentProcess.id == ProcessInfo.processInfo.processIdentifier)
        #expect(try FileSystem.currentFolder() == FileManager.default.currentDirectoryPath)
        #expect(try FileSystem.symbolicLinkDestination(of: "/proc/self/exe").hasPrefix("/"))
    }

    // MARK: - SpillFile

    @Test func spillFileRoundTripLeavesNothing() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let spill = try SpillFile(in: folder.url.path, prefix: "spill-")
        // Unlinked at once: the folder is empty while the file is in use.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)

        var expected: [Float] = []
        for chunk in 0..<5 {
            let values = (0..<(10_000 + chunk * 333)).map { Float($0) * 0.5 + Float(chunk) }
            try values.withUnsafeBytes { try spill.append($0) }
            expected += values
        }
        #expect(spill.byteCount == Int64(expected.count * 4))

        var back = [Float](repeating: .nan, count: expected.count)
        try back.withUnsafeMutableBytes { try spill.read(at: 0, into: $0) }
        #expect(back == expected)
        // From the middle, twice (no read position to rewind).
        for _ in 0..<2 {
            var part = [Float](repeating: .nan, count: 777)
            try part.withUnsafeMutableBytes { try spill.read(at: 4 * 12_345, into: $0) }
            #expect(part == Array(expected[12_345..<(12_345 + 777)]))
        }
        // Past the end.
        do {
            var tooMuch = [Float](repeating: 0, count: 10)
            try tooMuch.withUnsafeMutableBytes { try spill.read(at: spill.byteCount - 8, into: $0) }
            Issue.record("read past the end")
        } catch let error as AudioIOError {
            #expect(error.function == "pread")
            #expect(error.description.hasPrefix("cannot read back a temporary file in '\(folder.url.path)': "))
        }
        try spill.close()
        #expect(throws: AudioIOError.self) { try spill.append(UnsafeRawBufferPointer(start: nil, count: 0)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test func spillFileInAMissingFolderNamesMkstemp() {
        let folder = "/nonexistent-\(UUID().uuidString)"
        do {
            _ = try SpillFile(in: folder)
            Issue.record("expected an error")
        } catch let error as AudioIOError {
            #expect(error.description == "cannot create a temporary file in '\(folder)': No such file or directory (mkstemp)")
        } catch {
            Issue.record("expected an AudioIOError, got \(error)")
        }
    }

    // MARK: - Terminal

    @Test func filesAreNotTerminals() throws {
        let fd = open("/dev/null", O_RDONLY)
        defer { close(fd) }
        #expect(!Terminal.isTerminal(fd))
        #expect(Terminal.width(of: fd) == nil)
        #expect(!Terminal.isTerminal(-1))
    }
}
