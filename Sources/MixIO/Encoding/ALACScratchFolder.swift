import Glibc

/// A folder of its own for each ALAC encoder's scratch file, so that no two encoders share one and no file
/// planted in a shared folder is written through.
///
/// libsndfile's ALAC encoder (1.2.0, `alac_writer_init`) writes the whole encoded stream to a scratch file in
/// `TMPDIR` and copies it into the CAF when closing (`alac_close`). It names that file itself
/// (`psf_open_tmpfile`): `<two numbers>-alac.tmp`, the numbers from a generator seeded once per process with the
/// clock (`psf_rand_int32`; in Debian's build, the second), opened with `fopen(..., "wb+")`, which takes an
/// existing file or a symbolic link. Two processes that start writing ALAC in the same second share one scratch
/// file, and one of them writes a CAF that does not decode, reported as a success: 4 pairs in 6 of two renders
/// started together, 10 in 40 in another run (`scripts/docs-figures.sh --check --quick` renders two at a time, and
/// failed in CI on it). A link planted at a predictable name would be truncated and written through.
///
/// So libsndfile opens each ALAC encoder (`sf_open_virtual`, inside `open`) with `TMPDIR` naming a folder made
/// for it in the temporary folder by `mkdtemp` (mode 0700). Once open, the scratch file is unlinked and the
/// folder removed: libsndfile keeps the file open and reads it back through its `FILE *`, and its own `remove`
/// when closing finds nothing, which it ignores. Nothing is left behind, even by a process that is killed.
///
/// **Room.** The scratch file holds the whole encoded audio (about 2.8 GB for the night preset's eight hours of 16-bit
/// stereo). libsndfile does not survive a failed write to it: `alac_encode_block` returns without emptying its
/// block, and the next write runs past the block's buffer (a render to a CAF crashed, signal 11, when its scratch
/// file was on a full 1 MiB file system). So an encoder whose length is known is refused, before anything is
/// written, when the temporary folder has less room (`statvfs`, what an unprivileged user may use) than the
/// audio uncompressed, ALAC's worst case, and 1 MiB more. Another process can still fill it meanwhile.
///
/// The environment is the process's, and `setenv` is not safe beside another thread's `getenv`: `TMPDIR` is
/// changed only while holding `environmentLock`, and the project's one reader of it,
/// `FileSystem.temporaryFolder`, reads it holding the same lock. Other threads' `getenv` of other variables stay
/// safe: once `TMPDIR` exists, glibc replaces its pointer in place and keeps the strings it replaced.
///
/// No state but the lock; allocates the folder's path.
enum ALACScratchFolder {
    /// Held while `TMPDIR` is changed, and by `FileSystem.temporaryFolder` while it reads it.
    static let environmentLock = Locked(())

    /// Calls `open` (which opens one ALAC encoder) with `TMPDIR` naming a new folder in `FileSystem.temporaryFolder`,
    /// then empties and removes that folder. `bytesNeeded` is the room its scratch file may take (nil: unknown,
    /// not checked). Errors name `displayPath`, the file being written.
    static func opening<Result>(displayPath: String, bytesNeeded: Int64?, _ open: () throws -> Result) throws -> Result {
        let temporary = FileSystem.temporaryFolder
        if let bytesNeeded, let free = LibC.freeBytes(in: temporary), free < bytesNeeded + (1 << 20) {
            throw AudioIOError(path: displayPath, function: "statvfs",
                               reason: "the temporary folder '\(temporary)' has \(free >> 20) MiB free, and libsndfile's "
                                   + "ALAC encoder keeps the whole file there while writing it (up to \((bytesNeeded >> 20) + 1) MiB); "
                                   + "free some room, or set TMPDIR to a folder with more",
                               operation: "create")
        }
        let folder: String
        do {
            folder = try LibC.mkdtemp(temporary + "/mixrender-alac-XXXXXX", displayPath: temporary, operation: "create")
        } catch let error as AudioIOError {
            // The file's writer names the file; the folder that failed is said in the reason.
            throw AudioIOError(path: displayPath, function: "mkdtemp", reason: "the ALAC encoder's scratch folder cannot be "
                                   + "made in the temporary folder '\(temporary)' (\(error.reason)); set TMPDIR to a folder you can write",
                               operation: "create", code: error.code)
        }
        defer { removeQuietly(folder) }
        return try environmentLock.withLock { _ in
            let previous = LibC.getenv("TMPDIR")
            LibC.setenv("TMPDIR", folder)
            // Unset before, it is left as "/tmp", what every reader takes for an unset one: unsetting it and
            // adding it again at the next encoder would have glibc reallocate the array of variables, which
            // another thread's `getenv` may be reading.
            defer { LibC.setenv("TMPDIR", previous ?? "/tmp") }
            return try open()
        }
    }

    /// Unlinks what is in `folder` (libsndfile's scratch file, still open in it) and removes it. A failure
    /// leaves an empty folder or a scratch file behind, which harms nothing: it is not reported.
    private static func removeQuietly(_ folder: String) {
        for name in (try? FileSystem.folderEntries(folder)) ?? [] {
            try? LibC.unlink(folder + "/" + name, operation: "remove the scratch file")
        }
        LibC.rmdir(folder)
    }
}
