import DSPTestSupport
import Foundation
import Testing
@testable import MixIO

@Suite struct AtomicOutputFileTests {
    private func contents(_ folder: TemporaryFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    @Test func temporaryFileIsHiddenBesideTheDestination() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let output = try AtomicOutputFile(destination: folder.path("night.ogg"))
        #expect(output.hiddenPath == folder.path(".night.ogg.\(CurrentProcess.id).partial.ogg"))
        #expect(try contents(folder).isEmpty)   // nothing is named before the commit
        if output.isUnnamed {
            #expect(output.temporaryPath.hasPrefix("/proc/self/fd/"))
            #expect(!InterruptCleanup.registeredPaths.contains(output.hiddenPath))
        } else {
            #expect(output.temporaryPath == output.hiddenPath)
            #expect(InterruptCleanup.registeredPaths.contains(output.temporaryPath))
        }
        output.discard()
        #expect(!InterruptCleanup.registeredPaths.contains(output.hiddenPath))
    }

    /// Where the file system can make unnamed files (the test folder's can: tmpfs or ext4), the file being
    /// written has no name at all, so a process killed mid-write (SIGKILL, where no cleanup runs) leaves
    /// nothing; the name appears only at the commit.
    @Test func aFileBeingWrittenHasNoName() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let output = try AtomicOutputFile(destination: folder.path("night.wav"))
        #expect(output.isUnnamed, "O_TMPFILE is not available in \(folder.url.path)")
        try FileSystem.writeFile(path: output.temporaryPath, bytes: Array("data".utf8))
        #expect(try contents(folder).isEmpty)
        try output.commit()
        #expect(try contents(folder) == ["night.wav"])
        #expect(try FileSystem.readDocument(path: folder.path("night.wav"), maximumBytes: 1 << 30) == Array("data".utf8))
    }

    @Test func commitRenamesAndLeavesOnlyTheDestination() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let destination = folder.path("out.json")
        try FileSystem.writeFile(path: destination, bytes: Array("old".utf8))   // replaced
        let output = try AtomicOutputFile(destination: destination)
        try FileSystem.writeFile(path: output.temporaryPath, bytes: Array("new".utf8))
        try output.commit()
        #expect(try contents(folder) == ["out.json"])
        #expect(try FileSystem.readDocument(path: destination, maximumBytes: 1 << 30) == Array("new".utf8))
        #expect(!InterruptCleanup.registeredPaths.contains(output.temporaryPath))
    }

    @Test func discardAndDroppingLeaveNothing() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let output = try AtomicOutputFile(destination: folder.path("a.wav"))
        try FileSystem.writeFile(path: output.temporaryPath, bytes: [1, 2, 3])
        output.discard()
        #expect(try contents(folder).isEmpty)

        var temporary = ""
        do {
            let dropped = try AtomicOutputFile(destination: folder.path("b.wav"))
            temporary = dropped.temporaryPath
            try FileSystem.writeFile(path: temporary, bytes: [1, 2, 3])
        }
        #expect(try contents(folder).isEmpty)
        #expect(!InterruptCleanup.registeredPaths.contains(temporary))
    }

    @Test func failedCommitRemovesTheTemporaryFile() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let destination = folder.path("c.flac")
        let output = try AtomicOutputFile(destination: destination)
        try FileSystem.writeFile(path: output.temporaryPath, bytes: [1])
        // The destination becomes a non-empty folder: rename cannot replace it.
        try FileManager.default.createDirectory(atPath: destination + "/inside", withIntermediateDirectories: true)
        do {
            try output.commit()
            Issue.record("expected an error")
        } catch let error as AudioIOError {
            #expect(error.function == "rename")
            #expect(error.description.hasPrefix("cannot write '\(destination)': "))
            #expect(error.description.hasSuffix(" (rename)"))
        }
        #expect(try contents(folder) == ["c.flac"])
    }

    @Test func unusableDestinationsAreRefused() throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        func refusal(_ destination: String) -> String? {
            do { _ = try AtomicOutputFile(destination: destination); return nil } catch { return "\(error)" }
        }
        let missing = folder.path("no/such/folder/out.ogg")
        #expect(refusal(missing) == "cannot write '\(missing)': folder '\(folder.path("no/such/folder"))' does not exist")
        #expect(refusal(folder.url.path) == "cannot write '\(folder.url.path)': it is a folder")
        #expect(AudioIOError(path: "x", function: "", reason: "folder '/y' is not writable", operation: "write").description
                == "cannot write 'x': folder '/y' is not writable")
        #expect(throws: AudioIOError(path: missing, function: "", reason: "folder '\(folder.path("no/such/folder"))' does not exist",
                                     operation: "write", code: ENOENT)) {
            try AtomicOutputFile(destination: missing)
        }
        // A file where the folder should be.
        try FileSystem.writeFile(path: folder.path("file"), bytes: [])
        #expect(refusal(folder.path("file/out.ogg")) == "cannot write '\(folder.path("file/out.ogg"))': folder '\(folder.path("file"))' does not exist")
        #expect(try contents(folder) == ["file"])
    }

    @Test func relativeDestinationsNameTheirFolderInFull() {
        let current = FileManager.default.currentDirectoryPath
        #expect(AtomicOutputFile.split("night.ogg") == (current, "night.ogg"))
        #expect(AtomicOutputFile.split("out/night.ogg") == (current + "/out", "night.ogg"))
        #expect(AtomicOutputFile.split("out//night.ogg") == (current + "/out", "night.ogg"))
        #expect(AtomicOutputFile.split("/night.ogg") == ("/", "night.ogg"))
        #expect(AtomicOutputFile.split("/a/b/") == ("/a", "b"))
        #expect(AtomicOutputFile.pathExtension("night.ogg") == "ogg")
        #expect(AtomicOutputFile.pathExtension("night.tar.gz") == "gz")
        #expect(AtomicOutputFile.pathExtension("night") == "")
        #expect(AtomicOutputFile.pathExtension(".hidden") == "")
        #expect(AtomicOutputFile.pathExtension("night.") == "")
    }
}
