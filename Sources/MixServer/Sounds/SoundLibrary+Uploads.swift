import Foundation
import MixIO

/// What `store` did with an upload.
enum SoundUploadOutcome: Sendable, Equatable {
    /// The sound is new: its bytes hashed to its name and are now in place.
    case created
    /// A sound with that hash was there already (the body was not read).
    case existing
}

/// Why an upload was refused; nothing of it is left behind.
enum SoundUploadError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName(String)
    case tooLarge(maximumBytes: Int)
    case hashMismatch(expected: String, actual: String)
    case cannotWrite(String)

    var description: String {
        switch self {
        case .invalidName(let name):
            "sound '\(name.prefix(80))': the name must be 64 lowercase hexadecimal digits (its SHA-256)"
        case .tooLarge(let maximum):
            "sound: larger than the \(maximum) bytes the server takes"
        case .hashMismatch(let expected, let actual):
            "sound \(expected): the bytes uploaded hash to \(actual)"
        case .cannotWrite(let reason):
            "sound: cannot be stored (\(reason))"
        }
    }
}

extension SoundLibrary {
    /// The prefix of an upload's file while it is written (never a valid sound name, so never resolved).
    static let partialUploadPrefix = ".upload-"

    /// Stores an uploaded sound named by its SHA-256 (`sha256`, 64 lowercase hex digits), reading `body` chunk by
    /// chunk into a temporary file beside the uploads while hashing it. Refuses, and deletes what it wrote, when the
    /// body passes `maximumBytes` or hashes to another value; otherwise syncs the file and renames it into place,
    /// so a sound is either whole or absent. When the sound is there already the body is not read.
    /// Errors of `body` itself (a client gone) are rethrown as they are, after the cleanup.
    func store<Body: AsyncSequence>(sha256: String, body: Body, maximumBytes: Int) async throws -> SoundUploadOutcome
    where Body.Element: Collection, Body.Element.Element == UInt8 {
        guard HexDigits.isSHA256(sha256.utf8) else { throw SoundUploadError.invalidName(sha256) }
        let destination = uploadsFolder + "/" + sha256
        if FileSystem.entry(at: destination)?.kind == .regular { return .existing }

        let file: DurableFile
        do {
            file = try DurableFile(path: uploadsFolder + "/" + RandomBytes.name(prefix: Self.partialUploadPrefix), opening: .new)
        } catch {
            throw SoundUploadError.cannotWrite(error.fileReason)
        }
        do {
            var hasher = ContentHash()
            var count = 0
            for try await chunk in body {
                count += chunk.count
                guard count <= maximumBytes else { throw SoundUploadError.tooLarge(maximumBytes: maximumBytes) }
                do {
                    try chunk.withContiguousStorageIfAvailable { buffer in
                        let raw = UnsafeRawBufferPointer(buffer)
                        hasher.update(raw)
                        try file.write(raw)
                    } ?? Array(chunk).withUnsafeBytes { raw in
                        hasher.update(raw)
                        try file.write(raw)
                    }
                } catch {
                    throw SoundUploadError.cannotWrite(error.fileReason)
                }
            }
            let actual = hasher.hex
            guard actual == sha256 else { throw SoundUploadError.hashMismatch(expected: sha256, actual: actual) }
            do {
                try file.commit()
                // Another upload of the same sound may have finished meanwhile: its bytes are these bytes.
                if FileSystem.entry(at: destination)?.kind == .regular {
                    file.discard()
                    return .existing
                }
                try FileSystem.rename(file.path, to: destination)
            } catch {
                throw SoundUploadError.cannotWrite(error.fileReason)
            }
            try? FileSystem.sync(uploadsFolder)
            return .created
        } catch {
            file.discard()
            throw error
        }
    }

    /// Deletes the temporary files of uploads that stopped (a server killed while one was written) untouched for
    /// `age` seconds; returns how many.
    @discardableResult
    func sweepPartialUploads(olderThan age: TimeInterval = 3600, now: Date = Date()) -> Int {
        StaleEntries.sweep(in: uploadsFolder, prefix: Self.partialUploadPrefix, olderThan: age, now: now)
    }
}
