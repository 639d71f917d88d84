import MixIO

/// Prepared material kept on disk between processes (`mixrender batch --cache-dir`, `mixrender render --cache-dir`): a later batch, or another
/// process sharing the folder, reads the decoded and resampled audio instead of making it again.
///
/// An entry is found by what the audio depends on (`MaterialRequest.storeDescription`: the source's content
/// hash, the output rate and channels, the resampler, the layout and mixrender's version), hashed into its file
/// name, `<sha256>.f32`; the same description also lies beside it in `<sha256>.txt`, for a person looking. A
/// changed file, rate, channel count or resampler is another description, so another entry.
///
/// **Nothing read is trusted** (git checks every object it reads; so does this). Each entry carries the hash of
/// the description it was made for and a SHA-256 of its whole contents (`PlanarAudioFile`); `audio(for:...)`
/// checks the header against what the caller says the audio is (its channels and a range of frame counts,
/// before allocating anything), the key, the checksum and that every sample is finite. A bad entry is removed
/// and reported by throwing `DamagedEntry` (one line), and the caller makes the audio again from its source.
///
/// **A budget.** The entries (`.f32` and their `.txt`) may take `budgetBytes` on disk; past it, the least
/// recently used go first (a read sets an entry's modification time, which is the order). Trimming runs after
/// each store under an exclusive lock on `<folder>/.lock` (`FileLock`), so two processes never trim at once.
/// Entries are written whole and renamed into place, so a reader never sees half a file; a reader whose entry
/// is removed meanwhile keeps reading the file it opened (Linux frees it at its last close), and one that
/// finds it gone makes the audio again. An entry larger than the whole budget is not kept.
///
/// **Measurements.** A loudness measurement (a normalisation's outcome, a track's loudness) is kept too, as a small
/// JSON file `<key>.measure.json` (`measurement(for:read:)`, `storeMeasurement`): the key is the measurement's
/// (`LoudnessMeasuring`: what was measured and the render key's text of the measured range, files by content), the
/// file names it and the measurement in words, and holds the numbers. It is read under the same rule: at most
/// `measurementBytes`, a regular file and not a link, parsed by the engine's own `JSONParser`, its key checked and its
/// numbers checked by the caller's `read`; a bad one is removed and reported as `DamagedEntry`, and measured again.
/// Measurements are entries like the audio: written whole and renamed into place, counted in the budget, trimmed.
///
/// Layout: the folder's path and the budget. `Sendable`; its methods may be called from several threads (and
/// processes) at once.
public final class MaterialStore: Sendable {
    public let folder: String
    /// The bytes the folder's entries may take; `Int64.max` keeps everything.
    public let budgetBytes: Int64

    /// A cache entry that failed a check: removed, to be made again. `description` is one line naming the file
    /// and what is wrong with it. A value of two strings; `Sendable`.
    public struct DamagedEntry: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        /// False when it could not be removed (a folder where an entry should be is left to the folder's owner).
        public var wasRemoved = true
        public var description: String { "cache entry '\(path)' \(reason); " + (wasRemoved ? "removed" : "could not be removed") }
    }

    /// Why a measurement read back is refused (`measurement(for:read:)`'s `read` throws it): one phrase, such as
    /// "says a gain of +90 dB, more than the +30 dB allowed". A value of one string; `Sendable`.
    public struct Refusal: Error, Sendable {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// The most a measurement's file may hold: a few numbers and a line of words.
    public static let measurementBytes = 4096

    /// Uses `folder`, making it (and missing parents) when it does not exist, and trims it to `budgetBytes`.
    /// Errors are `EngineError.setting(.cacheDir)`.
    public init(folder: String, budgetBytes: Int64 = .max) throws {
        self.folder = folder
        self.budgetBytes = max(0, budgetBytes)
        do {
            try FileSystem.makeFolders(folder)
        } catch {
            throw EngineError.setting(.cacheDir, reason: "cannot use '\(folder)': \(error)")
        }
        guard FileSystem.identity(of: folder)?.kind == .folder else {
            throw EngineError.setting(.cacheDir, reason: "'\(folder)' is not a folder")
        }
        guard FileSystem.isWritable(folder) else {
            throw EngineError.setting(.cacheDir, reason: "cannot write in '\(folder)' (permission denied)")
        }
        do { try trim() } catch {
            throw EngineError.setting(.cacheDir, reason: "cannot trim '\(folder)' to its budget: \(error)")
        }
    }

    /// The entry's file for `description`.
    public func path(for description: String) -> String {
        folder + "/" + ContentHash.of(description) + ".f32"
    }

    /// The frame counts an entry may claim for audio expected to be `expected` frames long at `sampleRate`:
    /// from half to twice that, plus a second (a container's frame count can be off; decoders read to the
    /// end). What a request's key says it holds bounds what is allocated for its entry.
    public static func frameBounds(expected: Int, sampleRate: Int) -> ClosedRange<Int> {
        let expected = min(max(0, expected), Int.max / 4), rate = min(max(1, sampleRate), Int.max / 4)
        return (expected / 2)...(expected * 2 + rate)
    }

    /// The audio stored for `description`, or nil when there is none (or an entry of an older format, which
    /// is then made again and replaced). `channelCount` and `frames` are what the audio must be: checked before
    /// anything is allocated. Throws `DamagedEntry` for an entry that fails a check (after removing it), and
    /// the read's error (naming the file) when it cannot be read.
    public func audio(for description: String, channelCount: Int, frames: ClosedRange<Int>) throws -> PreparedAudio? {
        let file = path(for: description)
        let key = ContentHash.digest(of: description)
        switch try PlanarAudioFile.read(file, key: key, channelCount: channelCount, frames: frames, touch: true) {
        case let .audio(audio, length):
            return PreparedAudio(audio: audio, length: length)
        case .absent, .outdated:
            return nil
        case let .damaged(reason):
            remove(file)
            throw DamagedEntry(path: file, reason: reason)
        }
    }

    /// Stores `audio` for `description`, replacing what was there, then trims the folder to its budget.
    /// Throws (keeping nothing) when the entry alone is larger than the budget or the audio is not finite.
    public func store(_ audio: PreparedAudio, for description: String) throws {
        let file = path(for: description)
        let bytes = Int64(audio.length) * Int64(audio.audio.channelCount) * 4 + 104
        if bytes > budgetBytes {
            throw EngineError.setting(.cacheDir, reason: "\(bytes >> 20) MiB is more than the folder's budget of \(budgetBytes >> 20) MiB")
        }
        try PlanarAudioFile.write(audio.audio, length: audio.length, key: ContentHash.digest(of: description), to: file)
        let note = file.dropLast(4) + ".txt"
        try? FileSystem.writeFile(path: String(note), bytes: Array((description + "\n").utf8))
        try trim()
    }

    /// The measurement's file for `key` (64 lowercase hex digits, a SHA-256).
    public func measurementPath(for key: String) -> String {
        folder + "/" + key + Self.measurementSuffix
    }

    static let measurementSuffix = ".measure.json"

    /// The measurement kept for `key`, as `read` makes it from the document's `value`, or nil when there is none.
    /// The file is read only when it is a regular file (not a link, a folder or a FIFO) of at most
    /// `measurementBytes`, parsed by `JSONParser`, and must be an object naming `key`; `read` checks the value
    /// (its types, that its numbers are finite and in range) and throws a `Refusal` for one it will not take.
    /// A file that fails any of this is removed and reported by throwing `DamagedEntry`; a read that fails for
    /// another reason (permission) throws its error, naming the file. A good file's modification time is set to
    /// now (the budget's least-recently-used order).
    public func measurement<T>(for key: String, maximumBytes: Int = measurementBytes, read: (JSONValue) throws -> T) throws -> T? {
        let file = measurementPath(for: key)
        func damaged(_ reason: String) -> DamagedEntry {
            DamagedEntry(path: file, reason: reason, wasRemoved: remove(file))
        }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readDocument(path: file, maximumBytes: maximumBytes, followsLinks: false, touches: true)
        } catch let error as AudioIOError {
            switch error.cause {
            case .noSuchFile: return nil
            case .symbolicLink: throw damaged("is a symbolic link, not a cache entry")
            case .isFolder: throw damaged("is a folder, not a cache entry")
            case .notRegularFile: throw damaged("is not a regular file")
            case .tooLarge: throw damaged("is longer than \(maximumBytes) bytes, more than any measurement")
            case .permissionDenied, .alreadyExists, .other: throw error
            }
        }
        // Nothing of the file's text is repeated in a reason: it may hold anything.
        guard let document = try? JSONParser.parse(bytes) else { throw damaged("is not a measurement (not JSON)") }
        guard case .object = document else { throw damaged("is not a measurement (not a JSON object)") }
        guard case .string(let claimed)? = document["key"], claimed == key else {
            throw damaged("belongs to another measurement (the key in it is not this one's)")
        }
        guard let value = document["value"] else { throw damaged("holds no measurement") }
        do {
            return try read(value)
        } catch let refusal as Refusal {
            throw damaged(refusal.reason)
        } catch {
            throw damaged("holds a measurement that cannot be read")
        }
    }

    /// Keeps `value` as the measurement for `key`, described as `what` (a line for a person looking), replacing what
    /// was there: written under a temporary name and renamed into place, then the folder is trimmed to its budget.
    public func storeMeasurement(_ value: JSONValue, for key: String, what: String, maximumBytes: Int = measurementBytes) throws {
        let document: JSONValue = .object(["measurement": .string(what), "key": .string(key), "value": value])
        let style: JSONStyle = maximumBytes > Self.measurementBytes ? .compact : .readable
        let text = document.document(style)
        guard text.utf8.count <= maximumBytes else {
            throw EngineError.setting(.cacheDir, reason: "a measurement of \(text.utf8.count) bytes is more than \(maximumBytes)")
        }
        try document.write(to: measurementPath(for: key), style: style)
        try trim()
    }

    /// Removes the least recently used entries (by modification time, oldest first) until the entries take
    /// at most `budgetBytes`, under the folder's lock. Returns how many it removed. Only files named as entries
    /// are counted or removed.
    @discardableResult
    public func trim() throws -> Int {
        guard budgetBytes < .max else { return 0 }
        return try FileLock.withExclusiveLock(folder + "/.lock") {
            var entries: [(path: String, bytes: Int64, used: Int64)] = []
            var total: Int64 = 0
            for name in try FileSystem.folderEntries(folder) where Self.isEntryName(name) {
                let file = folder + "/" + name
                guard let id = FileSystem.identity(of: file), id.kind == .regular else { continue }
                let note = name.hasSuffix(".f32") ? FileSystem.identity(of: String(file.dropLast(4)) + ".txt")?.size ?? 0 : 0
                entries.append((file, id.size + note, id.modified))
                total += id.size + note
            }
            guard total > budgetBytes else { return 0 }
            var removed = 0
            for entry in entries.sorted(by: { ($0.used, $0.path) < ($1.used, $1.path) }) where total > budgetBytes {
                remove(entry.path)
                total -= entry.bytes
                removed += 1
            }
            return removed
        }
    }

    /// Whether `name` is an entry's file name: 64 lowercase hex digits and `.f32` (audio) or `.measure.json`.
    static func isEntryName(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        guard (utf8.count == 68 && name.hasSuffix(".f32")) || (utf8.count == 64 + measurementSuffix.utf8.count && name.hasSuffix(measurementSuffix))
        else { return false }
        return utf8[0..<64].allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Removes an entry and an audio entry's note; one already gone (another process removed it) is fine.
    /// Returns false when the entry is still there (a folder in its place).
    @discardableResult
    private func remove(_ file: String) -> Bool {
        let removed = (try? FileSystem.removeFile(file)) != nil
        if file.hasSuffix(".f32") { try? FileSystem.removeFile(String(file.dropLast(4)) + ".txt") }
        return removed || FileSystem.identity(of: file) == nil
    }
}
