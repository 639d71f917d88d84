import Dispatch
import Foundation
import MixDSP
import MixEngine
import MixIO

/// The reference night-mix workload, made in code: six looped sources at mixed rates, written once as
/// Ogg Vorbis files into a temporary folder, mixed with per-track gains and linear master fades.
///
/// Like the peers' workload (../shared/peers: six stereo Vorbis q4 loops at 44.1, 48 and 22.05 kHz,
/// gains -3 -6 -9 -12 -4 -8 dB, 20 s linear fade-in, 120 s linear fade-out, 48 kHz stereo out), except
/// that the loops have unequal, non-commensurate lengths (47 ... 71 s, primes), so the mix never
/// repeats and nothing can be mixed once and reused.
struct NightMix {
    struct Source {
        var name: String
        var sampleRate: Int
        var seconds: Double
        var gainDb: Double
        var description: String
    }

    static let sources: [Source] = [
        Source(name: "rain", sampleRate: 44_100, seconds: 47, gainDb: -3, description: "pink noise, 400 Hz-9 kHz"),
        Source(name: "wind", sampleRate: 44_100, seconds: 53, gainDb: -6, description: "brown noise, 0.1 Hz swell"),
        Source(name: "crickets", sampleRate: 44_100, seconds: 59, gainDb: -9, description: "4400/4450 Hz sines, chirping"),
        Source(name: "surf", sampleRate: 48_000, seconds: 61, gainDb: -12, description: "white noise, 400-1000 Hz, 0.15 Hz swell"),
        Source(name: "drone", sampleRate: 48_000, seconds: 67, gainDb: -4, description: "55/55.25 Hz sines"),
        Source(name: "rumble", sampleRate: 22_050, seconds: 71, gainDb: -8, description: "brown noise below 150 Hz"),
    ]

    /// Set by `bench --resampler`: the resampler of the night mix's preset, here and in render children.
    static let resamplerVariable = "MIXRENDER_BENCH_RESAMPLER"

    /// The resampler of the night mix: `bench --resampler`, else the presets' default.
    static var resampler: ResamplerChoice {
        getenv(resamplerVariable).flatMap { ResamplerChoice(rawValue: String(cString: $0)) } ?? .default
    }

    let folder: String
    let sources: [Source]
    let paths: [String]

    /// Generates the six loops (a tenth of the length with `isQuick`) and writes them as Ogg Vorbis q4
    /// (libsndfile quality 0.4) into `folder`, in parallel.
    static func make(in folder: String, isQuick: Bool) throws -> NightMix {
        let chosen = sources.map { s -> Source in var s = s; if isQuick { s.seconds /= 10 }; return s }
        let paths = chosen.map { path(for: $0, in: folder) }
        let failures = Locked<[Int: any Error]>([:])
        DispatchQueue.concurrentPerform(iterations: chosen.count) { k in
            do { try write(chosen[k], index: k, to: paths[k]) } catch { failures.withLock { $0[k] = error } }
        }
        if let failure = failures.withLock({ $0.sorted { $0.key < $1.key }.first?.value }) { throw failure }
        return NightMix(folder: folder, sources: chosen, paths: paths)
    }

    /// The loops `make` wrote into `folder` earlier (for a render in a child process).
    static func existing(in folder: String, isQuick: Bool) -> NightMix {
        let chosen = sources.map { s -> Source in var s = s; if isQuick { s.seconds /= 10 }; return s }
        return NightMix(folder: folder, sources: chosen, paths: chosen.map { path(for: $0, in: folder) })
    }

    private static func path(for source: Source, in folder: String) -> String {
        "\(folder)/\(source.name)_\(source.sampleRate / 1000)k.ogg"
    }

    /// The mix as a preset document (docs/presets.md), for a `mixrender` child to render: every source looped with
    /// a hard seam (resampled circularly), at its gain plus `gainOffsetsDb[k]` (none when nil), linear master fades
    /// (20 s in and 120 s out, shorter in a short mix), 48 kHz stereo, 16-bit or Vorbis q4 by the output's file,
    /// the night mix's resampler. `preset(seconds:)` reads the same document: the mix is written down once.
    func document(seconds: Double, gainOffsetsDb: [Double]? = nil) throws -> String {
        let tracks = sources.indices.map { k -> [String: Any] in
            ["name": sources[k].name, "file": paths[k], "gainDb": sources[k].gainDb + (gainOffsetsDb?[k] ?? 0),
             "loop": ["crossfade": 0]]
        }
        let document: [String: Any] = [
            "version": 1, "name": "bench night mix", "duration": seconds,
            "output": ["sampleRate": 48_000, "channels": 2, "bitDepth": 16, "quality": 0.4,
                       "resampler": Self.resampler.rawValue],
            "master": ["fadeIn": ["duration": min(20, seconds / 4), "curve": "linear"],
                       "fadeOut": ["duration": min(120, seconds / 3), "curve": "linear"]],
            "tracks": tracks,
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The preset `document(seconds:)` describes.
    func preset(seconds: Double) throws -> Preset {
        try PresetLoader.parse(Data(try document(seconds: seconds).utf8), file: "bench night mix", baseDirectory: "")
    }

    func plan(seconds: Double) throws -> RenderPlan {
        let loaded = try preset(seconds: seconds)
        return try Planner(presetFile: "bench night mix").plan(loaded, analysis: Analyzer().analyse(loaded))
    }

    /// Frames of 48 kHz stereo float the resampled loops hold in memory, in MiB.
    var loopMemoryMiB: Double {
        sources.reduce(0) { $0 + $1.seconds * 48_000 * 2 * 4 } / 1_048_576
    }

    // MARK: - Signals

    private static func write(_ source: Source, index: Int, to path: String) throws {
        let rate = source.sampleRate
        let frames = Int(source.seconds * Double(rate))
        let audio = AudioBlock(channelCount: 2, capacity: frames)
        let seed = UInt64(1000 + index)
        let time = { (i: Int) in Double(i) / Double(rate) }
        /// Seeded noise, band-limited, with a gain; swelling (level base + depth sin(2π hz t)) if told.
        func filteredNoise(_ color: NoiseGenerator.Color, highpass: Double, lowpass: Double, gain: Float,
                           swell: (base: Double, depth: Double, hz: Double)? = nil) throws {
            try NoiseGenerator(color: color, seed: seed, channelCount: 2).render(into: audio, offset: 0, count: frames, at: 0)
            filter(audio, frames, rate, highpass: highpass, lowpass: lowpass, gain: gain)
            if let swell {
                modulate(audio, frames) { i in Float(swell.base + swell.depth * sin(2 * Double.pi * swell.hz * time(i))) }
            }
        }
        /// Each sample from a formula of (channel, time in seconds).
        func tone(_ sample: (Int, Double) -> Double) {
            for c in 0..<2 {
                let p = audio.channel(c)
                for i in 0..<frames { p[i] = Float(sample(c, time(i))) }
            }
        }
        switch source.name {
        case "rain":
            try filteredNoise(.pink, highpass: 400, lowpass: 9000, gain: 2)
        case "wind":
            try filteredNoise(.brown, highpass: 40, lowpass: 1200, gain: 1, swell: (base: 0.7, depth: 0.3, hz: 0.1))
        case "crickets":
            tone { c, t in
                let chirp = max(0, sin(2 * Double.pi * 20 * t)) * (0.5 + 0.5 * sin(2 * Double.pi * 0.5 * t))
                return 0.2 * chirp * sin(2 * Double.pi * (c == 0 ? 4400.0 : 4450.0) * t)
            }
        case "surf":
            try filteredNoise(.white, highpass: 400, lowpass: 1000, gain: 3, swell: (base: 0.6, depth: 0.4, hz: 0.15))
        case "drone":
            tone { c, t in 0.3 * sin(2 * Double.pi * (c == 0 ? 55.0 : 55.25) * t) }
        default:
            try filteredNoise(.brown, highpass: 25, lowpass: 150, gain: 2)
        }
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(
            format: .oggVorbis, sampleRate: rate, channelCount: 2, vorbisQuality: 0.4, title: source.name))
        let chunk = 4096
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: 2 * chunk)
        defer { interleaved.deallocate() }
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            Kernels.interleave(audio, offset: done, count: n, into: interleaved)
            try writer.write(interleaved: interleaved, frames: n)
            done += n
        }
        try writer.finish()
    }

    /// One-pole high-pass then low-pass, and a gain.
    private static func filter(_ audio: AudioBlock, _ frames: Int, _ rate: Int, highpass: Double, lowpass: Double, gain: Float) {
        let a = Float(exp(-2 * Double.pi * highpass / Double(rate)))
        let b = Float(1 - exp(-2 * Double.pi * lowpass / Double(rate)))
        for c in 0..<2 {
            let p = audio.channel(c)
            var lowIn: Float = 0, high: Float = 0, previous: Float = 0
            for i in 0..<frames {
                let x = p[i]
                high = a * (high + x - previous); previous = x
                lowIn += b * (high - lowIn)
                p[i] = gain * lowIn
            }
        }
    }

    private static func modulate(_ audio: AudioBlock, _ frames: Int, _ gain: (Int) -> Float) {
        for i in 0..<frames {
            let g = gain(i)
            audio.channel(0)[i] *= g; audio.channel(1)[i] *= g
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
