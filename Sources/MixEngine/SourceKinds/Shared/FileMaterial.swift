import MixDSP
import MixIO

/// The three ways the file-based kinds (`file`, `playlist`) play a file.

/// A file decoded and resampled as it plays, from its first frame: memory does not depend on its length.
/// Nothing is prepared; the decoder opens when the voice starts.
struct StreamedFile: VoiceMaterial {
    let path: String
    var preparation: (any MaterialRequest)? { nil }

    func makeSource(_ context: VoiceContext, prepared: FrameSource?) throws -> FrameSource {
        try StreamingSource(decoder: SoundFileReader(path: path), outputRate: context.sampleRate,
                            outputChannels: context.channelCount, makeConverter: context.makeConverter)
    }
}

/// A file decoded and resampled once, held in memory and played once (a looped playlist's item, which
/// plays again at every turn of the playlist).
struct HeldFile: VoiceMaterial, MaterialRequest {
    let file: AudioFileInfo
    let key: MaterialKey
    var preparation: (any MaterialRequest)? { self }
    var estimatedCost: Double { FileLoadCost.estimate(file, outputRate: key.sampleRate) }

    init(file: AudioFileInfo, context: VoiceContext) {
        self.file = file
        key = context.key(file: file, form: "once")
    }

    func load(_ context: VoiceContext) throws -> FrameSource {
        let (audio, length) = try LoopMaterial.load(decoder: SoundFileReader(path: file.path), outputRate: context.sampleRate,
                                                    outputChannels: context.channelCount, isCircular: false,
                                                    makeConverter: context.makeConverter)
        return MemorySource(audio: audio, length: length)
    }

    func makeSource(_ context: VoiceContext, prepared: FrameSource?) throws -> FrameSource { prepared! }
}

/// A file decoded and resampled once, circularly (its own tail before it, its head after it, so the seam
/// is what resampling the endless repetition would give), and repeated with a crossfade at each seam.
struct LoopedFile: VoiceMaterial, MaterialRequest {
    let file: AudioFileInfo
    let crossfadeFrames: Int
    let curve: Curve
    let key: MaterialKey
    var preparation: (any MaterialRequest)? { self }
    var estimatedCost: Double { FileLoadCost.estimate(file, outputRate: key.sampleRate) }

    init(file: AudioFileInfo, crossfadeFrames: Int, curve: Curve, context: VoiceContext) {
        self.file = file
        self.crossfadeFrames = crossfadeFrames
        self.curve = curve
        key = context.key(file: file, form: crossfadeFrames > 0 ? "loop, \(crossfadeFrames)-frame \(curve.rawValue) seam" : "loop, hard seam")
    }

    func load(_ context: VoiceContext) throws -> FrameSource {
        let (audio, length) = try LoopMaterial.load(decoder: SoundFileReader(path: file.path), outputRate: context.sampleRate,
                                                    outputChannels: context.channelCount, isCircular: true,
                                                    makeConverter: context.makeConverter)
        guard length > 0 else { throw AudioIOError(path: file.path, function: "sf_readf_float", reason: "the file holds no audio") }
        return LoopSource(material: audio, length: length, crossfade: crossfadeFrames, curve: curve)
    }

    func makeSource(_ context: VoiceContext, prepared: FrameSource?) throws -> FrameSource { prepared! }
}

enum FileLoadCost {
    /// Seconds of audio, ten times more when it must be resampled (decoding Vorbis runs at about 600x
    /// realtime here, resampling at medium quality about 70x).
    static func estimate(_ file: AudioFileInfo, outputRate: Int) -> Double {
        file.durationSeconds * (file.sampleRate == outputRate ? 1 : 10)
    }
}
