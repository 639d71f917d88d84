import Dispatch
import DSPTestSupport
import MixDSP
import MixEngine
import MixIO

/// Where preparing the night mix's six loops goes: decoding alone, resampling alone (each libsamplerate and
/// libsoxr quality, on the decoded audio held in memory), and the whole `LoopMaterial.load` (circular, as a
/// looped file is prepared), per loop and in total, one thread; then `PreparedMaterial.prepare` of all six
/// on every core, as a render does it.
struct PreparationBench {
    let runs: Int
    let isQuick: Bool
    let progress: Progress

    static let qualities: [ResamplerChoice] = [.medium, .best, .fast, .soxrHQ, .soxrVHQ]

    func run() throws -> Section {
        let folder = try TemporaryFolder(prefix: "mixrender-bench")
        progress.say("writing the six loops ...")
        let mix = try NightMix.make(in: folder.url.path, isQuick: isQuick)

        var section = Section(id: "preparation", title: "Preparing the night mix's six loops (to 48 kHz stereo), per stage",
                              labels: ["loop", "stage"],
                              columns: [Column(key: "wall", title: "s", format: .seconds),
                                        Column(key: "realtime", title: "x realtime", format: .realtime),
                                        Column(key: "ofLoad", title: "/ load medium", format: .ratio),
                                        Column(key: "vsMedium", title: "medium / this", format: .ratio)])
        // stage -> per-loop medians, for the totals.
        var totals: [String: Double] = [:]
        var order: [String] = []
        func add(_ loop: String, _ stage: String, _ times: [Double], seconds: Double, load: Double?, medium: Double?) {
            let median = Spread(times).median
            var figures = ["wall": Spread(times), "realtime": Spread(times.map { seconds / $0 })]
            if let load { figures["ofLoad"] = Spread(times.map { $0 / load }) }
            if let medium { figures["vsMedium"] = Spread(times.map { medium / $0 }) }
            section.add([loop, stage], figures)
            if totals[stage] == nil { order.append(stage) }
            totals[stage, default: 0] += median
        }
        var totalSeconds = 0.0
        for (source, path) in zip(mix.sources, mix.paths) {
            progress.say("\(source.name) ...")
            let name = "\(source.name) \(source.sampleRate / 1000)k"
            totalSeconds += source.seconds
            // Decoding alone, into one preallocated buffer.
            let (decoded, frames, channels) = try Self.decode(path)
            defer { decoded.deallocate() }
            var decodeTimes: [Double] = []
            _ = try Self.decodeTime(path)
            for _ in 0..<runs { decodeTimes.append(try Self.decodeTime(path)) }
            // The whole load, medium (the default) and soxr-hq.
            func loadTimes(_ quality: ResamplerChoice) throws -> [Double] {
                let context = RenderFormat(sampleRate: 48_000, channelCount: 2, resampler: quality)
                func once() throws -> Double {
                    try Timing.seconds {
                        _ = try LoopMaterial.load(decoder: AudioFile.open(path: path), outputRate: 48_000, outputChannels: 2,
                                                  isCircular: true, makeConverter: context.makeConverter)
                    }
                }
                _ = try once()
                return try (0..<runs).map { _ in try once() }
            }
            let loadMedium = try loadTimes(.medium)
            let loadMedian = Spread(loadMedium).median
            add(name, "decode", decodeTimes, seconds: source.seconds, load: loadMedian, medium: nil)
            if source.sampleRate != 48_000 {
                var resampleMedium: Double?
                for quality in Self.qualities {
                    let times = try Self.resampleTimes(decoded, frames: frames, channels: channels, from: source.sampleRate,
                                                       quality: quality, runs: runs)
                    if quality == .medium { resampleMedium = Spread(times).median }
                    add(name, "resample \(quality.rawValue)", times, seconds: source.seconds, load: loadMedian,
                        medium: resampleMedium)
                }
            }
            add(name, "load medium", loadMedium, seconds: source.seconds, load: loadMedian, medium: loadMedian)
            add(name, "load soxr-hq", try loadTimes(.soxrHQ), seconds: source.seconds, load: loadMedian, medium: loadMedian)
        }
        let totalLoad = totals["load medium"]!, totalMediumResample = totals["resample medium"]!
        for stage in order {
            let t = totals[stage]!
            let medium: Double? = stage.hasPrefix("resample") ? totalMediumResample : stage.hasPrefix("load") ? totalLoad : nil
            section.add(["all six (sum of medians)", stage],
                        ["wall": Spread([t]), "realtime": Spread([totalSeconds / t]), "ofLoad": Spread([t / totalLoad])]
                            .merging(medium.map { ["vsMedium": Spread([$0 / t])] } ?? [:]) { a, _ in a })
        }
        // As a render prepares: all six at once on every core, longest first.
        for quality in [ResamplerChoice.medium, .soxrHQ] {
            progress.say("PreparedMaterial, \(quality.rawValue) ...")
            var preset = try mix.preset(seconds: 60)
            preset.output.resampler = quality
            let plan = try Planner(presetFile: "bench night mix").plan(preset, analysis: Analyzer().analyse(preset))
            func once() throws -> Double { try PreparedMaterial().prepare(for: plan).seconds }
            _ = try once()
            let times = try (0..<runs).map { _ in try once() }
            section.add(["all six, PreparedMaterial (all cores)", "prepare \(quality.rawValue)"],
                        ["wall": Spread(times), "realtime": Spread(times.map { totalSeconds / $0 }),
                         "ofLoad": Spread(times.map { $0 / totalLoad })])
        }
        section.notes = [
            "loops: NightMix's six (\(mix.sources.map { "\($0.name) \(fixed($0.seconds, 1)) s" }.joined(separator: ", "))), "
                + "stereo Ogg Vorbis q4 written by SoundFileWriter; x realtime is seconds of loop per second.",
            "decode: AudioFile.open and read to the end in 8192-frame blocks into one buffer; resample: the decoded "
                + "audio (in memory) through each converter in 8192-frame input chunks, to the end of the filter's tail; "
                + "load: LoopMaterial.load, circular, decoding included. One thread, one stage at a time (a warm-up, then the runs).",
            "/ load medium: the stage's time over LoopMaterial.load at medium (the default) for that loop; "
                + "medium / this: the medium figure of the same kind over this one (above 1 = faster).",
            "PreparedMaterial rows: prepare(for:) of the whole plan on every core (concurrentPerform, longest first), "
                + "wall clock; / load medium is over the one-thread sum of load medium.",
        ]
        return section
    }

    /// Decodes the whole file into one buffer (interleaved, at its rate).
    static func decode(_ path: String) throws -> (UnsafeMutablePointer<Float>, Int, Int) {
        let reader = try AudioFile.open(path: path)
        let n = reader.channelCount
        var capacity = Int(max(reader.frameCount, 0)) + 8192
        var buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity * n)
        var frames = 0
        while true {
            if capacity - frames < 8192 {
                let bigger = UnsafeMutablePointer<Float>.allocate(capacity: 2 * capacity * n)
                bigger.update(from: buffer, count: frames * n)
                buffer.deallocate(); buffer = bigger; capacity *= 2
            }
            let got = try reader.read(into: buffer + frames * n, frames: 8192)
            if got == 0 { break }
            frames += got
        }
        return (buffer, frames, n)
    }

    static func decodeTime(_ path: String) throws -> Double {
        var result: UnsafeMutablePointer<Float>?
        let t = try Timing.seconds { result = try decode(path).0 }
        result?.deallocate()
        return t
    }

    /// Seconds to resample `frames` frames at `quality` to 48 kHz: one warm-up, then `runs` runs.
    static func resampleTimes(_ input: UnsafeMutablePointer<Float>, frames: Int, channels: Int, from rate: Int,
                              quality: ResamplerChoice, runs: Int) throws -> [Double] {
        let capacity = Int(Double(frames) * 48_000 / Double(rate)) + 16_384
        let output = UnsafeMutablePointer<Float>.allocate(capacity: capacity * channels)
        defer { output.deallocate() }
        func once() throws -> Double {
            let converter = try makeSampleRateConverter(channelCount: channels, inputRate: rate, outputRate: 48_000, quality: quality)
            return try Timing.seconds {
                var used = 0, made = 0
                while true {
                    let chunk = min(8192, frames - used)
                    let (u, m) = try converter.process(input: input + used * channels, inputFrames: chunk,
                                                       output: output + made * channels, outputCapacity: min(16_384, capacity - made),
                                                       endOfInput: used + chunk == frames)
                    used += u; made += m
                    if m == 0 && used == frames { break }
                }
            }
        }
        _ = try once()
        return try (0..<runs).map { _ in try once() }
    }
}
