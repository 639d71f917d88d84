import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO

/// The whole pipeline on the night mix: plan, prepare (decode and resample the loops once), the block
/// loop (sources, mix, limiter) and the encoder on its own thread; rendered to Ogg Vorbis, to 16-bit WAV
/// and to a null encoder, in alternation, each render in a fresh child process. Also counts
/// allocations per block and measures each render's peak RSS.
struct PipelineBench {
    let isQuick: Bool
    let runs: Int
    let seconds: Double
    let progress: Progress


    func run() throws -> ([Section], Target?) {
        // Removed (with the loops) when `run` returns: every render below reads the loops from it.
        let temporary = try TemporaryFolder(prefix: "mixrender-bench")
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.url.path
        progress.say("pipeline: writing the six Ogg Vorbis loops into \(folder) ...")
        var made: NightMix?
        let madeIn = try Timing.seconds { made = try NightMix.make(in: folder, isQuick: isQuick) }
        let mix = made!
        let outputs = RenderChild.Output.allCases
        func request(_ output: RenderChild.Output, seconds: Double) -> RenderChild.Request {
            RenderChild.Request(output: output, folder: folder, seconds: seconds, isQuick: isQuick)
        }
        for output in outputs {
            let warmUp = min(seconds, isQuick ? 10 : 30)
            progress.say("pipeline: warm-up render, \(output.title), \(fixed(warmUp, 0)) s")
            _ = try RenderChild.spawn(request(output, seconds: warmUp))
        }
        var results: [RenderChild.Output: [RenderChild.Result]] = [:]
        for round in 0..<runs {
            for output in outputs {
                progress.say("pipeline: run \(round + 1)/\(runs), \(output.title), \(fixed(seconds, 0)) s of audio")
                results[output, default: []].append(try RenderChild.spawn(request(output, seconds: seconds)))
            }
        }
        let components = try componentTimes(mix)
        return (sections(mix: mix, results: results, components: components, madeIn: madeIn), target(results[.ogg]!))
    }

    // MARK: - Components measured alone

    struct Components {
        var decodeSeconds: Double
        var resampleSeconds: Double
        var decodedAudioSeconds: Double
        var resampledAudioSeconds: Double
    }

    /// Decoding all six loops, and resampling the ones not at 48 kHz, each alone on one thread.
    private func componentTimes(_ mix: NightMix) throws -> Components {
        progress.say("pipeline: components (decode alone, resample alone)")
        var decode = 0.0, resample = 0.0, decodedAudio = 0.0, resampledAudio = 0.0
        for (source, path) in zip(mix.sources, mix.paths) {
            let reader = try AudioFile.open(path: path)
            let channels = reader.channelCount
            var decoded = [Float](repeating: 0, count: Int(reader.frameCount + 8192) * channels)
            var frames = 0
            decode += try Timing.seconds {
                try decoded.withUnsafeMutableBufferPointer { buffer in
                    while true {
                        let n = try reader.read(into: buffer.baseAddress! + frames * channels, frames: min(8192, buffer.count / channels - frames))
                        if n == 0 { break }
                        frames += n
                    }
                }
            }
            decodedAudio += source.seconds
            guard reader.sampleRate != 48_000 else { continue }
            let resampler = try makeSampleRateConverter(channelCount: channels, inputRate: reader.sampleRate, outputRate: 48_000,
                                                        quality: NightMix.resampler)
            let capacity = Int(Double(frames) * 48_000 / Double(reader.sampleRate)) + 8192
            var out = [Float](repeating: 0, count: capacity * channels)
            resample += try Timing.seconds {
                try decoded.withUnsafeBufferPointer { src in
                    try out.withUnsafeMutableBufferPointer { dst in
                        var used = 0, made = 0
                        while true {
                            let (u, m) = try resampler.process(input: src.baseAddress! + used * channels, inputFrames: frames - used,
                                                               output: dst.baseAddress! + made * channels,
                                                               outputCapacity: capacity - made, endOfInput: true)
                            used += u; made += m
                            if m == 0 { break }
                        }
                    }
                }
            }
            resampledAudio += source.seconds
        }
        return Components(decodeSeconds: decode, resampleSeconds: resample,
                          decodedAudioSeconds: decodedAudio, resampledAudioSeconds: resampledAudio)
    }

    // MARK: - Report

    private func sections(mix: NightMix, results: [RenderChild.Output: [RenderChild.Result]],
                          components: Components, madeIn: Double) -> [Section] {
        var time = Section(
            id: "pipeline", title: "Whole pipeline: night mix, \(fixed(seconds / 60, 1)) min of 48 kHz stereo, one process per render",
            labels: ["output"],
            columns: [Column(key: "wall", title: "wall s", format: .seconds),
                      Column(key: "realtime", title: "x realtime", format: .realtime),
                      Column(key: "prepare", title: "prepare", format: .fraction),
                      Column(key: "sources", title: "sources", format: .fraction),
                      Column(key: "mix", title: "mix", format: .fraction),
                      Column(key: "write", title: "write/wait", format: .fraction),
                      Column(key: "encode", title: "encode", format: .fraction),
                      Column(key: "outsideEncoder", title: "outside encoder", format: .fraction)])
        var memory = Section(
            id: "pipelineMemory", title: "Whole pipeline: memory",
            labels: ["output"],
            columns: [Column(key: "allocationsPerBlock", title: "allocs/block (render loop)", format: .count),
                      Column(key: "maxAllocationsInABlock", title: "max in one block", format: .count),
                      Column(key: "encoderAllocationsPerBlock", title: "allocs/block (other threads)", format: .count),
                      Column(key: "blocks", title: "blocks counted", format: .count),
                      Column(key: "peakMiB", title: "peak RSS MiB", format: .mebibytes)])
        for output in RenderChild.Output.allCases {
            let r = results[output]!
            let share = { (f: (RenderChild.Result) -> Double) in Spread(r.map { f($0) / $0.wall }) }
            let labels = [output.title]
            time.add(labels, [
                "wall": Spread(r.map(\.wall)),
                "realtime": Spread(r.map { seconds / $0.wall }),
                "prepare": share(\.prepare), "sources": share(\.sources), "mix": share(\.mix), "write": share(\.write),
                "encode": share(\.encode), "outsideEncoder": share { $0.wall - $0.encode },
            ])
            memory.add(labels, [
                "allocationsPerBlock": Spread(r.map { Double($0.renderAllocations) / Double(max($0.blocks, 1)) }),
                "maxAllocationsInABlock": Spread(exactly: Double(r.map(\.maxRenderAllocationsInABlock).max()!)),
                "encoderAllocationsPerBlock": Spread(r.map { Double($0.encoderAllocations) / Double(max($0.blocks, 1)) }),
                "blocks": Spread(exactly: Double(r[0].blocks)),
                "peakMiB": Spread(r.map(\.peakMiB)),
            ])
        }
        let first = results[.ogg]![0]
        let list = mix.sources.map { "\($0.name) \(fixed(Double($0.sampleRate) / 1000, 2)) kHz \(fixed($0.seconds, 1)) s \(fixed($0.gainDb, 0)) dB" }
        time.notes = [
            "workload: " + list.joined(separator: ", ") + "; all stereo Ogg Vorbis q4 written by the bench (\(fixed(madeIn, 1)) s), "
                + "looped with hard seams (resampled once, circularly, \(NightMix.resampler.rawValue)); master fades linear "
                + "\(fixed(min(20, seconds / 4), 0)) s in, \(fixed(min(120, seconds / 3), 0)) s out; "
                + "mix peak \(fixed(first.mixPeakDb, 1)) dBFS, limiter (ceiling -1 dBFS) reduced \(fixed(max(0, first.maxGainReductionDb), 2)) dB "
                + "for \(fixed(first.limitedSeconds, 2)) s.",
            "shares are of the render's wall time (RenderTimings): prepare = decode + resample the loops once (both cores); "
                + "sources = loops copied into the block; mix = gains, fades, sums, limiter, meters; write/wait = handing blocks "
                + "to the encoder thread, waiting when its queue is full (all on the render thread); encode = inside the encoder "
                + "(its own thread, overlapping the rest). outside encoder = 1 - encode / wall.",
            "runs alternate the rows, each render in a fresh process; one short warm-up render of each output first.",
        ]
        let decodeRT = components.decodedAudioSeconds / components.decodeSeconds
        let resampleRT = components.resampledAudioSeconds / components.resampleSeconds
        let oggPrepare = Spread(results[.ogg]!.map(\.prepare)).median
        time.notes.append("prepare, taken apart (each alone, one thread): decoding the six loops \(fixed(components.decodeSeconds, 2)) s "
            + "(\(fixed(decodeRT, 0))x realtime), resampling the \(mix.sources.filter { $0.sampleRate != 48_000 }.count) others "
            + "\(fixed(components.resampleSeconds, 2)) s (\(fixed(resampleRT, 0))x realtime); sum \(fixed(components.decodeSeconds + components.resampleSeconds, 2)) s "
            + "against \(fixed(oggPrepare, 2)) s of prepare wall time on two cores.")
        let encodeRT = Spread(results[.ogg]!.map { seconds / $0.encode })
        time.notes.append("the Vorbis encoder alone ran at \(fixed(encodeRT.median, 0))x realtime [\(fixed(encodeRT.min, 0))-\(fixed(encodeRT.max, 0))] (seconds of audio / seconds inside encoder.write).")
        memory.notes = [
            "allocations: every malloc/calloc/realloc/aligned allocation, counted by patching the GOT of each loaded library; "
                + "render loop = the thread that calls Renderer.render, from the end of the first block to the end of the last; "
                + "other threads = the same span on every other thread (the encoder thread: libsndfile and libvorbis).",
            "peak RSS = VmHWM of the render's own process (about \(fixed(first.startMiB, 0)) MiB before the render starts); "
                + "the resampled loops alone hold \(fixed(mix.loopMemoryMiB, 0)) MiB of float frames.",
        ]
        return [time, memory]
    }

    private func target(_ ogg: [RenderChild.Result]) -> Target {
        let outside = Spread(ogg.map { 1 - $0.encode / $0.wall })
        let prepare = Spread(ogg.map { $0.prepare / $0.wall })
        let rest = Spread(ogg.map { ($0.wall - $0.encode - $0.prepare) / $0.wall })
        let isMet = outside.median < 0.15
        let note = "of the wall time, prepare (decode + resample, before the first block can be encoded) is "
            + "\(fixed(100 * prepare.median, 1))%, the rest outside the encoder \(fixed(100 * rest.median, 1))% "
            + "(the encoder thread waiting for blocks, its start-up and final flush)."
        return Target(name: "night mix to Ogg: time outside the Vorbis encoder",
                      definition: "share of wall time = 1 - (seconds inside the encoder) / (wall seconds of the render)",
                      value: Figure(outside, .fraction), threshold: 0.15, comparison: "below", isMet: isMet,
                      status: isQuick ? "indicative" : isMet ? "met" : "missed",
                      note: (isQuick ? "quick mode: loops a tenth as long but a mix 30 times shorter, so prepare weighs 3 times more than in the 30-minute mix; " : isMet ? "" : "MISSED: ")
                        + note)
    }
}
