import MixIO

/// Prepared material kept on disk between processes (`mixrender batch --cache-dir`): a later batch, or another
/// process sharing the folder, reads the decoded and resampled audio instead of making it again.
///
/// An entry is found by what the audio depends on (`MaterialRequest.storeDescription`: the source's content
/// hash, the output rate and channels, the resampler, the layout and mixrender's version), hashed into its file
/// name, `<sha256>.f32`; the same description also lies beside it in `<sha256>.txt`, for a person looking. A
/// changed file, rate, channel count or resampler is another description, so another entry; the old one stays
/// until the folder is cleared. Entries are written whole and renamed into place (`PlanarAudioFile`), so two
/// processes may share the folder: each reads only whole files, and two writing one entry write the same audio.
///
/// Layout: the folder's path. `Sendable`; its methods may be called from several threads at once.
public final class MaterialStore: Sendable {
    public let folder: String

    /// Uses `folder`, making it (and missing parents) when it does not exist. Errors are `EngineError.setting(.cacheDir)`.
    public init(folder: String) throws {
        self.folder = folder
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
    }

    /// The entry's file for `description`.
    public func path(for description: String) -> String {
        folder + "/" + ContentHash.of(description) + ".f32"
    }

    /// The audio stored for `description`, or nil when there is none (or only a broken file, which is then
    /// made again and replaced).
    public func audio(for description: String) throws -> PreparedAudio? {
        try PlanarAudioFile.read(path(for: description)).map { PreparedAudio(audio: $0.audio, length: $0.length) }
    }

    /// Stores `audio` for `description`, replacing what was there.
    public func store(_ audio: PreparedAudio, for description: String) throws {
        let file = path(for: description)
        try PlanarAudioFile.write(audio.audio, length: audio.length, to: file)
        let note = file.dropLast(4) + ".txt"
        try? FileSystem.writeFile(path: String(note), bytes: Array((description + "\n").utf8))
    }
}
