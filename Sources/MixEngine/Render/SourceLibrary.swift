import Dispatch
import MixDSP
import MixIO

/// Makes the sources a plan's voices play, through MixIO: files decoded and resampled once for
/// loops and looped playlists (shared by every voice that plays them), streams opened when a voice
/// starts, generators made on demand.
final class SourceLibrary {
    let plan: RenderPlan
    private var materials: [VoiceSource: FrameSource] = [:]
    /// Seconds spent decoding and resampling up front (wall clock).
    private(set) var prepareSeconds: Double = 0

    init(plan: RenderPlan) { self.plan = plan }

    var makeConverter: ConverterFactory {
        let quality = plan.resampler
        return { channels, inputRate, outputRate in
            try Resampler(channelCount: channels, inputRate: inputRate, outputRate: outputRate, quality: quality)
        }
    }

    /// Decodes and resamples every in-memory source once, in parallel across the machine's cores.
    func prepare() throws {
        let clock = ContinuousClock()
        let started = clock.now
        var unique: [VoiceSource] = []
        for track in plan.tracks {
            for voice in track.voices {
                switch voice.source {
                case .loop, .memory: if !unique.contains(voice.source) { unique.append(voice.source) }
                case .stream, .noise: break
                }
            }
        }
        let results = UnsafeMutableBufferPointer<Result<FrameSource, Error>?>.allocate(capacity: unique.count)
        results.initialize(repeating: nil)
        // Deinitialise too: deallocating alone would keep every loaded source (all of its audio) alive.
        defer { _ = results.deinitialize(); results.deallocate() }
        let converter = makeConverter
        let (rate, channels) = (plan.sampleRate, plan.channelCount)
        // Longest first, so that the last job a core picks up is a short one.
        let costs = unique.map { estimatedCost($0) }
        let order = unique.indices.sorted { costs[$0] > costs[$1] }
        DispatchQueue.concurrentPerform(iterations: unique.count) { k in
            let i = order[k]
            results[i] = Result { try SourceLibrary.load(unique[i], rate: rate, channels: channels, makeConverter: converter) }
        }
        for (i, source) in unique.enumerated() { materials[source] = try results[i]!.get() }
        prepareSeconds = (clock.now - started).seconds
    }

    /// Roughly how long loading takes: seconds of audio, ten times more when it must be resampled
    /// (decoding Vorbis runs at about 600x realtime here, resampling at medium quality about 70x).
    private func estimatedCost(_ source: VoiceSource) -> Double {
        let path: String
        switch source {
        case .loop(let p, _, _), .memory(let p): path = p
        case .stream, .noise: return 0
        }
        guard let info = plan.sourceFiles[path] else { return 0 }
        return info.durationSeconds * (info.sampleRate == plan.sampleRate ? 1 : 10)
    }

    private static func load(_ source: VoiceSource, rate: Int, channels: Int,
                             makeConverter: ConverterFactory) throws -> FrameSource {
        switch source {
        case .loop(let path, let crossfade, let curve):
            let (audio, length) = try LoopMaterial.load(decoder: SoundFileReader(path: path), outputRate: rate,
                                                        outputChannels: channels, isCircular: true, makeConverter: makeConverter)
            guard length > 0 else { throw AudioIOError(path: path, function: "sf_readf_float", reason: "the file holds no audio") }
            return LoopSource(material: audio, length: length, crossfade: crossfade, curve: curve)
        case .memory(let path):
            let (audio, length) = try LoopMaterial.load(decoder: SoundFileReader(path: path), outputRate: rate,
                                                        outputChannels: channels, isCircular: false, makeConverter: makeConverter)
            return MemorySource(audio: audio, length: length)
        case .stream, .noise:
            preconditionFailure("not an in-memory source")
        }
    }

    /// The source for a voice that is about to start.
    func source(for voice: PlannedVoice) throws -> FrameSource {
        switch voice.source {
        case .loop, .memory:
            return materials[voice.source]!
        case .stream(let path):
            return try StreamingSource(decoder: SoundFileReader(path: path), outputRate: plan.sampleRate,
                                       outputChannels: plan.channelCount, makeConverter: makeConverter)
        case .noise(let color, let seed):
            return NoiseGenerator(color: NoiseGenerator.Color(rawValue: color.rawValue)!, seed: seed, channelCount: plan.channelCount)
        }
    }
}
