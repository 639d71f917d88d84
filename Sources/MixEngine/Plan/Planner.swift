import MixDSP
import MixIO

/// Turns a validated `Preset` into a `RenderPlan`: every time becomes an integer frame position at
/// the output rate, every fade an envelope, and every source file is opened once to learn its
/// length, rate and channels, so a missing or broken file is reported before any audio is written.
public struct Planner {
    /// The preset's file name, for error messages.
    public var presetFile: String

    public init(presetFile: String) { self.presetFile = presetFile }

    public func plan(_ preset: Preset) throws -> RenderPlan {
        let notes = Notes(presetFile: presetFile)
        let rate = preset.output.sampleRate
        let channels = preset.output.channelCount
        let total = frames(preset.durationSeconds, rate)
        guard total > 0 else { throw PresetError(file: presetFile, jsonPath: "duration", message: "the render is shorter than one frame") }

        var masterEnvelopes: [Envelope] = []
        if let f = preset.master.fadeIn {
            masterEnvelopes.append(.fadeIn(start: 0, length: min(frames(f.seconds, rate), total), curve: f.curve))
        }
        if let f = preset.master.fadeOut {
            masterEnvelopes.append(.fadeOut(end: total, length: min(frames(f.seconds, rate), total), curve: f.curve))
        }
        let master = GainStack(constant: Float(gain(fromDecibels: preset.master.gainDb)), envelopes: masterEnvelopes)

        var tracks: [PlannedTrack] = []
        for (index, spec) in preset.tracks.enumerated() {
            if let track = try planTrack(spec, index: index, rate: rate, channels: channels, total: total, notes: notes) {
                tracks.append(track)
            } else {
                notes.warn("tracks[\(index)]", "starts at or after the end of the render; it will not sound")
            }
        }
        var plan = RenderPlan(sampleRate: rate, channelCount: channels, frameCount: total,
                              resampler: preset.output.resampler, tracks: tracks, master: master,
                              limiter: preset.master.limiter)
        plan.warnings = notes.warnings
        plan.sourceFiles = notes.files
        return plan
    }

    /// What planning gathers besides the plan: warnings, and what each source file is.
    final class Notes {
        let presetFile: String
        var warnings: [String] = []
        var files: [String: AudioFileInfo] = [:]
        init(presetFile: String) { self.presetFile = presetFile }
        func warn(_ path: String, _ message: String) { warnings.append("\(presetFile): \(path): \(message)") }
    }

    /// "3.2 s", for messages.
    func seconds(_ s: Double) -> String { "\((s * 1000).rounded() / 1000) s" }

    /// round(seconds x rate)
    func frames(_ seconds: Double, _ rate: Int) -> Int64 { Int64((seconds * Double(rate)).rounded()) }

    /// Length of a file at the output rate, after opening it (once per file) to check it is audio.
    func length(of path: String, jsonPath: String, rate: Int, notes: Notes) throws -> Int64 {
        let info: AudioFileInfo
        if let known = notes.files[path] { info = known } else {
            do { info = try AudioFileInfo.read(path: path) } catch {
                throw PresetError(file: presetFile, jsonPath: jsonPath, message: "\(error)")
            }
            notes.files[path] = info
        }
        guard info.frameCount > 0 else {
            throw PresetError(file: presetFile, jsonPath: jsonPath, message: "'\(path)' holds no audio (0 frames)")
        }
        return StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate, outputRate: rate)
    }

    func planTrack(_ spec: TrackSpec, index: Int, rate: Int, channels: Int, total: Int64,
                   notes: Notes) throws -> PlannedTrack? {
        let path = "tracks[\(index)]"
        let start = frames(spec.startSeconds, rate)
        let explicitEnd = spec.endSeconds.map { frames($0, rate) }
        var voices: [PlannedVoice] = []
        var end: Int64

        switch spec.source {
        case .noise(let color, let seed):
            end = explicitEnd ?? total
            voices.append(PlannedVoice(start: start, end: end, sourceOffset: 0, source: .noise(color: color, seed: seed), gains: GainStack()))

        case .file(let file):
            let length = try self.length(of: file, jsonPath: "\(path).file", rate: rate, notes: notes)
            if let loop = spec.loop {
                end = explicitEnd ?? total
                let requested = frames(loop.crossfade.seconds, rate)
                if requested > length / 2 {
                    notes.warn("\(path).loop.crossfade", "\(seconds(loop.crossfade.seconds)) is longer than half the loop; "
                         + "using \(seconds(Double(length / 2) / Double(rate)))")
                }
                let crossfade = Int(min(requested, length / 2))
                voices.append(PlannedVoice(start: start, end: end, sourceOffset: 0,
                                           source: .loop(path: file, crossfadeFrames: crossfade, curve: loop.crossfade.curve),
                                           gains: GainStack()))
            } else {
                end = min(explicitEnd ?? (start + length), start + length)
                voices.append(PlannedVoice(start: start, end: end, sourceOffset: 0, source: .stream(path: file), gains: GainStack()))
            }

        case .playlist(let files, let crossfade):
            let lengths = try files.enumerated().map { k, file in
                try self.length(of: file, jsonPath: "\(path).playlist.files[\(k)]", rate: rate, notes: notes)
            }
            let isLooping = spec.loop != nil
            let limit = explicitEnd ?? (isLooping ? total : Int64.max)
            let x = frames(crossfade.seconds, rate)
            var position = start
            var k = 0
            var previousOverlap: Int64 = 0
            while position < min(limit, total) {
                let item = k % files.count
                let isLast = !isLooping && k == files.count - 1
                let next = (k + 1) % files.count
                // The overlap with the next item: the crossfade, at most half of either item.
                let overlap = isLast ? 0 : min(x, lengths[item] / 2, lengths[next] / 2)
                if !isLast && overlap < x && k < files.count {
                    notes.warn("\(path).playlist.crossfade", "\(seconds(crossfade.seconds)) is longer than half of "
                         + "files[\(item)] or files[\(next)]; using \(seconds(Double(overlap) / Double(rate))) there")
                }
                var envelopes: [Envelope] = []
                if previousOverlap > 0 { envelopes.append(.fadeIn(start: position, length: previousOverlap, curve: crossfade.curve)) }
                if overlap > 0 { envelopes.append(.fadeOut(end: position + lengths[item], length: overlap, curve: crossfade.curve)) }
                voices.append(PlannedVoice(start: position, end: position + lengths[item], sourceOffset: 0,
                                           source: isLooping ? .memory(path: files[item]) : .stream(path: files[item]),
                                           gains: GainStack(envelopes: envelopes)))
                position += lengths[item] - overlap
                previousOverlap = overlap
                k += 1
                if isLast { break }
            }
            end = min(limit, voices.last.map { $0.end } ?? start)
        }

        end = min(end, total)
        guard end > start else { return nil }
        for i in voices.indices { voices[i].end = min(voices[i].end, end) }
        voices.removeAll { $0.end <= $0.start }

        var envelopes: [Envelope] = []
        if !spec.envelope.isEmpty {
            envelopes.append(Envelope(points: spec.envelope.map {
                Envelope.Point(position: frames($0.seconds, rate), value: Float(gain(fromDecibels: $0.gainDb)), curve: $0.curve)
            }))
        }
        let span = end - start
        if frames((spec.fadeIn?.seconds ?? 0) + (spec.fadeOut?.seconds ?? 0), rate) > span {
            notes.warn(path, "fade-in and fade-out overlap in the track's \(seconds(Double(span) / Double(rate)))")
        }
        if let f = spec.fadeIn { envelopes.append(.fadeIn(start: start, length: min(frames(f.seconds, rate), span), curve: f.curve)) }
        if let f = spec.fadeOut { envelopes.append(.fadeOut(end: end, length: min(frames(f.seconds, rate), span), curve: f.curve)) }

        return PlannedTrack(name: spec.name ?? "track \(index + 1)", start: start, end: end, voices: voices,
                            gains: GainStack(constant: Float(gain(fromDecibels: spec.gainDb)), envelopes: envelopes),
                            balance: balanceGains(pan: spec.pan, channelCount: channels))
    }
}
