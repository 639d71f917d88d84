import MixDSP
import MixIO

/// What a planned event plays. A kind's planner puts one in each `PlannedEvent`; when the event starts,
/// the render loop asks it for a `FrameSource`.
///
/// Material that is expensive to make (a file decoded and resampled whole, for a loop) is not made by
/// the event: the event names it with a `MaterialRequest`, `PreparedMaterial` makes it once before the
/// render (on all cores) and keeps it for every render that shares that `PreparedMaterial`, and the event
/// gets it back in `makeSource`.
///
/// Conforming types are plain values (`Sendable`); `makeSource` runs on the render thread, once per event.
public protocol EventMaterial: Sendable {
    /// The prepared material this event plays, or nil when it makes its source on its own (a stream
    /// decoded as it plays, a generator).
    var preparation: (any MaterialRequest)? { get }
    /// The source for an event about to start. `prepared` is what `preparation` made (nil without one);
    /// prepared sources are shared, so they must be read-only while rendering.
    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource
    /// Writes what decides this material's sound into a cache key (see `CacheKey`): its kind and every
    /// parameter its source is made from; for a file, its content (`key.file`), never its path. Two
    /// materials that write the same must sound the same in the same context. Every kind supplies its own.
    func describe(into key: inout CacheKeyWriter)
    /// The file this material streams whole, from its start and once, if it does: a file that several events
    /// play so may be decoded once and shared from memory instead (`SharedFilesPass`). nil for every other.
    var streamedFile: String? { get }
}

extension EventMaterial {
    /// Most events make their source on their own.
    public var preparation: (any MaterialRequest)? { nil }
    public var streamedFile: String? { nil }
}

/// Material to make once before rendering and share between renders, such as a file decoded and
/// resampled for a loop. Two requests with the same `key` make the same material.
///
/// Making it is two steps, so that the audio in between can be kept on disk by a store shared between
/// processes (`MaterialStore`, `--cache-dir`): `decode` makes the audio (the expensive part), `makeShared`
/// turns it into the source events play. `storeDescription` says what the audio depends on, the source's
/// content as a hash, so that a store can find it again in a later process.
///
/// Conforming types are values (`Sendable`): `PreparedMaterial` calls `decode` and `storeDescription` on worker
/// threads, several requests at once, so they must share no mutable state. `decode` allocates the material.
public protocol MaterialRequest: Sendable {
    var key: MaterialKey { get }
    /// Roughly how much work `decode` is (seconds of audio, times ten when it must be resampled), so the
    /// longest jobs start first.
    var estimatedCost: Double { get }
    /// How many frames `decode`'s audio is expected to hold, at the context's rate (for a file, its header's
    /// count converted to the output rate). A store refuses an entry claiming far more or far fewer before
    /// allocating it (`MaterialStore.frameBounds`), and a lease counts it against the material's byte budget
    /// before `decode` runs. Cheap: reads no audio.
    func expectedFrames(_ context: RenderFormat) -> Int
    /// Makes the audio: planar, at the context's rate and channels. Called on a worker thread.
    func decode(_ context: RenderFormat) throws -> PreparedAudio
    /// Everything `decode`'s result depends on, as text naming the source by a hash of its content (never its
    /// path), or nil when the material is not to be stored. Called on a worker thread; may read the file.
    func storeDescription(_ context: RenderFormat) throws -> String?
    /// The source every event and render that plays this material shares, made from `audio` (taking it over):
    /// its `render` only reads, possibly from several threads at once.
    func makeShared(_ audio: PreparedAudio) throws -> FrameSource
}

extension MaterialRequest {
    /// Decodes and makes the shared source, with no store.
    public func load(_ context: RenderFormat) throws -> FrameSource { try makeShared(decode(context)) }
}

/// Audio made by a `MaterialRequest`: planar `Float` at the output rate, its first `length` frames.
/// A value holding the block (a class: the samples are shared, not copied, when the value is). `Sendable`:
/// it is handed from the worker thread that made it to the one that keeps it, and read only after that.
public struct PreparedAudio: @unchecked Sendable {
    public var audio: AudioBlock
    public var length: Int
    public init(audio: AudioBlock, length: Int) { self.audio = audio; self.length = length }
    /// The memory it holds: every channel's capacity as `Float`s.
    public var bytes: Int { audio.capacity * audio.channelCount * MemoryLayout<Float>.size }
}

/// What prepared material is, for sharing it: the same key is the same audio. A value; `label` (the path,
/// for messages) takes no part in equality, so one file reached by two paths is one entry.
/// It holds three `String`s, two `Int`s and a quality, allocating only the strings when made;
/// `Sendable`, safe to share.
public struct MaterialKey: Hashable, Sendable, CustomStringConvertible {
    /// What it is made from: for a file, which file it is on disk (device and inode, size, modification
    /// time) and what its header says (format, rate, channels, frames).
    public var origin: String
    /// A name for it in messages: the path it was planned from.
    public var label: String
    /// The output format it was made for.
    public var sampleRate: Int
    public var channelCount: Int
    public var resampler: ResamplerChoice
    /// How it is laid out for playing, in the words of the kind that made it: `once`, `loop 48000 equalPower`.
    public var form: String

    public init(origin: String, label: String = "", sampleRate: Int, channelCount: Int, resampler: ResamplerChoice, form: String) {
        self.origin = origin
        self.label = label
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.resampler = resampler
        self.form = form
    }

    /// A file's origin: which file it is on disk and what its header says, so a file replaced or rewritten
    /// is not mistaken for the one prepared (without `stat`'s answer, its path stands in).
    public static func origin(of file: AudioFileInfo) -> String {
        let header = "[\(file.formatName), \(file.sampleRate) Hz, \(file.channelCount) ch, \(file.frameCount) frames]"
        guard let id = file.identity else { return "path \(file.path) \(header)" }
        return "file \(id.device):\(id.inode), \(id.size) bytes, modified \(id.modified) \(header)"
    }

    public static func == (a: MaterialKey, b: MaterialKey) -> Bool {
        a.origin == b.origin && a.sampleRate == b.sampleRate && a.channelCount == b.channelCount
            && a.resampler == b.resampler && a.form == b.form
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(origin); hasher.combine(sampleRate); hasher.combine(channelCount)
        hasher.combine(resampler); hasher.combine(form)
    }

    public var description: String { "\(label) (\(origin)) at \(sampleRate) Hz, \(channelCount) ch, \(resampler.rawValue), \(form)" }
}

/// The output format events render in, and how to make a resampler for it.
/// A value of two `Int`s and a quality; making one allocates nothing (`makeConverter` makes a closure,
/// which allocates a `SampleRateResampler` each time it is called). `Sendable`, safe to share.
public struct RenderFormat: Sendable {
    public let sampleRate: Int
    public let channelCount: Int
    public let resampler: ResamplerChoice

    public init(sampleRate: Int, channelCount: Int, resampler: ResamplerChoice) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.resampler = resampler
    }

    /// Makes converters at the context's quality (libsamplerate or libsoxr, `makeSampleRateConverter`).
    public var makeConverter: ConverterFactory {
        let quality = resampler
        return { channels, inputRate, outputRate in
            try makeSampleRateConverter(channelCount: channels, inputRate: inputRate, outputRate: outputRate, quality: quality)
        }
    }

    /// The key of material made from `file` for this context.
    public func key(file: AudioFileInfo, form: String) -> MaterialKey {
        MaterialKey(origin: MaterialKey.origin(of: file), label: file.path, sampleRate: sampleRate, channelCount: channelCount,
                    resampler: resampler, form: form)
    }
}
