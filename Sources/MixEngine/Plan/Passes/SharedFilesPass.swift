import MixDSP
import MixIO

/// A short file that several events play once each (the same sound placed on many tracks, a playlist
/// item repeated) is decoded and resampled once, before the render, and shared from memory: each event
/// then costs a copy and a gain, not its own decoder and resampler. A thousand one-shots of one 3 s file
/// took 16 s and 430 MB for 2 s of audio when each streamed. Files up to `sharedFileLimitBytes` each
/// (decoded, at the output rate), and `sharedFilesBudgetBytes` in all, are shared, shortest first; the
/// rest stream as before, so memory stays bounded whatever the preset. An event's material says which file
/// it streams whole (`EventMaterial.streamedFile`); the pass asks no material for its type.
struct SharedFilesPass: PlanPass {
    static let sharedFileLimitBytes = 32 << 20
    static let sharedFilesBudgetBytes = 512 << 20

    func apply(to draft: inout PlanDraft, session: PlanningContext) throws {
        let context = draft.context
        var uses: [String: Int] = [:]
        for track in draft.tracks { for event in track.planned.events { if let path = event.material.streamedFile { uses[path, default: 0] += 1 } } }
        var shared: [String: PreparedFile] = [:]
        var budget = Self.sharedFilesBudgetBytes
        let candidates = uses.filter { $0.value > 1 }.keys.compactMap { path -> (String, AudioFileInfo, Int)? in
            guard let info = session.files[path] else { return nil }
            let frames = StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate, outputRate: context.sampleRate)
            let bytes = Int(clamping: frames) &* context.channelCount &* MemoryLayout<Float>.size
            return bytes <= Self.sharedFileLimitBytes ? (path, info, bytes) : nil
        }
        for (path, info, bytes) in candidates.sorted(by: { ($0.2, $0.0) < ($1.2, $1.0) }) where bytes <= budget {
            shared[path] = PreparedFile(file: info, context: context)
            budget -= bytes
        }
        guard !shared.isEmpty else { return }
        for t in draft.tracks.indices {
            for v in draft.tracks[t].planned.events.indices {
                if let path = draft.tracks[t].planned.events[v].material.streamedFile, let prepared = shared[path] {
                    draft.tracks[t].planned.events[v].material = prepared
                }
            }
        }
    }
}
