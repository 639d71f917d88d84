import MixDSP
import MixIO

/// The two ways the file-based kinds (`file`, `playlist`) play a file.

/// A file decoded and resampled as it plays, from its first frame: memory does not depend on its length.
/// Nothing is prepared; the decoder opens when the event starts. A value (`Sendable`).
struct StreamedFile: EventMaterial {
    let path: String
    var streamedFile: String? { path }

    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "streamed file")
        key.file("content", path: path)
    }

    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource {
        try StreamingSource(decoder: AudioFile.open(path: path), outputRate: context.sampleRate,
                            outputChannels: context.channelCount, makeConverter: context.makeConverter)
    }
}

/// A file decoded and resampled once, before the render, and held in memory: played once from its first
/// frame (a looping playlist's item, which plays again at every turn), or, with a `seam`, decoded
/// circularly (its own tail before it, its head after it, so the seam is what resampling the endless
/// repetition would give) and repeated with that crossfade at each seam. A value (`Sendable`); the
/// material it makes is shared by every event and render with the same key.
struct PreparedFile: EventMaterial, MaterialRequest {
    /// A loop's seam: the crossfade from the end of one repetition into the start of the next.
    struct Seam: Sendable, Equatable {
        var crossfadeFrames: Int
        var curve: Curve
    }

    let file: AudioFileInfo
    let seam: Seam?
    let key: MaterialKey
    var preparation: (any MaterialRequest)? { self }

    init(file: AudioFileInfo, seam: Seam? = nil, context: RenderFormat) {
        self.file = file
        self.seam = seam
        let form: String
        switch seam {
        case nil: form = "once"
        case let seam? where seam.crossfadeFrames > 0: form = "loop, \(seam.crossfadeFrames)-frame \(seam.curve.rawValue) seam"
        case _?: form = "loop, hard seam"
        }
        key = context.key(file: file, form: form)
    }

    /// Seconds of audio, ten times more when it must be resampled (decoding Vorbis runs at about 600x
    /// realtime here, resampling at medium quality about 70x).
    var estimatedCost: Double { file.durationSeconds * (file.sampleRate == key.sampleRate ? 1 : 10) }

    /// The header's frame count at the output rate.
    func expectedFrames(_ context: RenderFormat) -> Int {
        Int(StreamingSource.outputLength(inputFrames: min(max(0, file.frameCount), 1 << 40), inputRate: file.sampleRate,
                                         outputRate: context.sampleRate))
    }

    func decode(_ context: RenderFormat) throws -> PreparedAudio {
        let (audio, length) = try LoopMaterial.load(decoder: AudioFile.open(path: file.path), outputRate: context.sampleRate,
                                                    outputChannels: context.channelCount, isCircular: seam != nil,
                                                    makeConverter: context.makeConverter)
        return PreparedAudio(audio: audio, length: length)
    }

    /// The file's content (SHA-256), the output rate, channels and resampler, whether it was resampled circularly,
    /// and mixrender's version (a new version may decode or resample differently). The seam is not in it: it is
    /// applied to the audio afterwards, by `makeShared`.
    func storeDescription(_ context: RenderFormat) throws -> String? {
        let content = try ContentHash.file(path: file.path)
        return "prepared file; mixrender \(MixrenderVersion.string); content sha256 \(content.sha256), \(content.bytes) bytes; "
            + "\(context.sampleRate) Hz, \(context.channelCount) ch, resampler \(context.resampler.rawValue); "
            + (seam != nil ? "circular" : "once")
    }

    func makeShared(_ prepared: PreparedAudio) throws -> FrameSource {
        guard let seam else { return MemorySource(audio: prepared.audio, length: prepared.length) }
        guard prepared.length > 0 else { throw AudioIOError(path: file.path, function: "sf_readf_float", reason: "the file holds no audio") }
        return LoopSource(material: prepared.audio, length: prepared.length, crossfade: seam.crossfadeFrames, curve: seam.curve)
    }

    func makeSource(_ context: RenderFormat, prepared: FrameSource?) throws -> FrameSource { prepared! }

    func describe(into key: inout CacheKeyWriter) {
        key.field("material", "prepared file")
        key.file("content", path: file.path)
        if let seam {
            key.field("seamFrames", seam.crossfadeFrames)
            key.field("seamCurve", seam.curve.rawValue)
        } else {
            key.field("form", "once")
        }
    }
}
