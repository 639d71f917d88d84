import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
        guard LocalFiles.isSHA256Hex(sha256.utf8) else { throw SoundUploadError.invalidName(sha256) }
        let destination = uploadsFolder + "/" + sha256
        if LocalFiles.kind(destination) == .regular { return .existing }

        let temporary = uploadsFolder + "/" + Self.partialUploadPrefix + LocalFiles.hex(LocalFiles.randomBytes(12))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SoundUploadError.cannotWrite(LocalFiles.reason()) }
        var isOpen = true
        do {
            var hasher = SHA256()
            var count = 0
            for try await chunk in body {
                count += chunk.count
                guard count <= maximumBytes else { throw SoundUploadError.tooLarge(maximumBytes: maximumBytes) }
                let failure: Int32? = chunk.withContiguousStorageIfAvailable { buffer in
                    let raw = UnsafeRawBufferPointer(buffer)
                    hasher.update(bufferPointer: raw)
                    return LocalFiles.writeAll(descriptor, raw)
                } ?? Array(chunk).withUnsafeBytes { raw in
                    hasher.update(bufferPointer: raw)
                    return LocalFiles.writeAll(descriptor, raw)
                }
                if let failure { throw SoundUploadError.cannotWrite(LocalFiles.reason(failure)) }
            }
            let actual = LocalFiles.hex(hasher.finalize())
            guard actual == sha256 else { throw SoundUploadError.hashMismatch(expected: sha256, actual: actual) }
            guard fsync(descriptor) == 0 else { throw SoundUploadError.cannotWrite(LocalFiles.reason()) }
            isOpen = false
            guard close(descriptor) == 0 else { throw SoundUploadError.cannotWrite(LocalFiles.reason()) }
            // Another upload of the same sound may have finished meanwhile: its bytes are these bytes.
            if LocalFiles.kind(destination) == .regular {
                unlink(temporary)
                return .existing
            }
            guard rename(temporary, destination) == 0 else { throw SoundUploadError.cannotWrite(LocalFiles.reason()) }
            LocalFiles.syncFolder(uploadsFolder)
            return .created
        } catch {
            if isOpen { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }

    /// Deletes the temporary files of uploads that stopped (a server killed while one was written) untouched for
    /// `age` seconds; returns how many.
    @discardableResult
    func sweepPartialUploads(olderThan age: TimeInterval = 3600, now: Date = Date()) -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: uploadsFolder) else { return 0 }
        var removed = 0
        for entry in entries where entry.hasPrefix(Self.partialUploadPrefix) {
            let path = uploadsFolder + "/" + entry
            guard let (_, modified) = LocalFiles.sizeAndModification(path),
                  now.timeIntervalSince(modified) > age, unlink(path) == 0 else { continue }
            removed += 1
        }
        return removed
    }
}
