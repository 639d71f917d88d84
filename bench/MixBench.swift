import MixDSP

/// The mixing hot loop: N stereo tracks, each with a per-sample gain envelope (one gain buffer per
/// track, shared by its two channels) and a constant per-channel gain (level times balance), summed
/// into a stereo block of 4096 frames, against a plain read-add-write over the same buffers.
///
/// Two regimes:
/// - `memory`: each track is long (the inputs together are several times the last-level cache) and
///   is mixed block by block into the same output block, like the renderer reading long loops: the
///   inputs stream from DRAM, the output stays in cache.
/// - `cache`: each track is one 4096-frame block, mixed over and over: everything stays in L1/L2,
///   like the renderer's per-block buffers.
///
/// Kernels, all adding into the output block:
/// - `baseline`: `Kernels.add` (out[i] += x[i]) once over every input buffer: the 2N track channels
///   and the N gain buffers. It reads every input byte once and does no arithmetic worth the name:
///   what the memory system allows for these buffers in this access pattern.
/// - `per-track`: `Kernels.addProduct` per track and channel (the loop the renderer used before).
/// - `fused`: `Kernels.mix`, all tracks in one pass over the output, per channel.
///
/// Figure of merit: baseline time / kernel time, per alternating round (1 = as fast as the plain
/// streaming read-add-write; the fused kernel does more arithmetic on the same bytes).
struct MixBench {
    enum Regime: String { case memory, cache }

    let timing: Timing
    let isQuick: Bool
    let blockFrames = 4096
    static let trackCounts = [1, 4, 8, 16]

    /// The section, and the figures at 8 tracks in the memory regime (the target).
    func run() -> (Section, MixTargetInput?) {
        var section = Section(
            id: "mix", title: "Mixing hot loop: N stereo tracks x per-sample gain into a stereo 4096-frame block",
            labels: ["regime", "tracks", "kernel"],
            columns: [Column(key: "framesPerSecond", title: "Mframes/s", format: .framesPerSecond),
                      Column(key: "nsPerFrame", title: "ns/frame", format: .nanoseconds),
                      Column(key: "inputGBps", title: "input GB/s", format: .gigabytesPerSecond),
                      Column(key: "ofBaseline", title: "baseline time / time", format: .ratio)])
        let memoryBytes = isQuick ? 64 << 20 : 192 << 20
        section.notes = [
            "memory: inputs total \(memoryBytes >> 20) MiB per N (last-level cache here: \(cacheSummary())), streamed once per run; cache: one 4096-frame block per track, reused.",
            "input GB/s counts the bytes each kernel must read: 2 channels + 1 gain buffer per track per frame (12 B x N).",
            "baseline = Kernels.add over every input buffer; per-track = Kernels.addProduct per track and channel (before); fused = Kernels.mix (after).",
        ]
        var target: MixTargetInput?
        for regime in [Regime.memory, .cache] {
            for n in MixBench.trackCounts {
                let frames = regime == .cache ? blockFrames
                    : max(blockFrames, memoryBytes / (12 * n) / blockFrames * blockFrames)
                let workload = MixWorkload(trackCount: n, frames: frames, blockFrames: blockFrames)
                let times = timing.alternate([workload.baseline, workload.perTrack, workload.fused])
                let names = ["baseline", "per-track", "fused"]
                for (k, name) in names.enumerated() {
                    let perFrame = times[k].map { $0 / Double(frames) }
                    var figures: [String: Spread] = [
                        "framesPerSecond": Spread(perFrame.map { 1 / $0 }),
                        "nsPerFrame": Spread(perFrame.map { $0 * 1e9 }),
                        "inputGBps": Spread(perFrame.map { Double(12 * n) / $0 / 1e9 }),
                    ]
                    if k > 0 {
                        let ratio = Spread(zip(times[0], times[k]).map { $0 / $1 })
                        figures["ofBaseline"] = ratio
                        if regime == .memory && n == 8 && name == "fused" {
                            let gbps = { (t: [Double]) in Spread(t.map { Double(12 * n * frames) / $0 / 1e9 }) }
                            target = MixTargetInput(ratio: ratio, fusedGBps: gbps(times[k]), baselineGBps: gbps(times[0]))
                        }
                    }
                    section.add([regime.rawValue, String(n), name], figures)
                }
                blackHole(workload.checksum())
            }
        }
        return (section, target)
    }

    private func cacheSummary() -> String {
        let l3 = (try? String(contentsOfFile: "/sys/devices/system/cpu/cpu0/cache/index3/size", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return l3.map { "L3 \($0)" } ?? "unknown"
    }
}

/// Buffers and kernels of one mixing measurement. All allocation happens in `init`.
final class MixWorkload {
    let trackCount: Int
    let frames: Int
    let blockFrames: Int
    private let arena: BufferArena
    /// sources[t * 2 + c]
    private let sources: [UnsafeMutablePointer<Float>]
    private let gains: [UnsafeMutablePointer<Float>]
    private let output: AudioBlock
    /// Constant gain of track t on channel c (level x balance): scales[t * 2 + c].
    private let scales: [Float]
    private let terms: UnsafeMutableBufferPointer<MixTerm>

    init(trackCount n: Int, frames: Int, blockFrames: Int) {
        trackCount = n
        self.frames = frames
        self.blockFrames = blockFrames
        // Interleave each track's channels and gains in memory order, as separate allocations would be.
        arena = BufferArena(counts: Array(repeating: frames, count: 3 * n))
        var s: [UnsafeMutablePointer<Float>] = [], g: [UnsafeMutablePointer<Float>] = []
        for t in 0..<n {
            s.append(arena.buffers[3 * t]); s.append(arena.buffers[3 * t + 1]); g.append(arena.buffers[3 * t + 2])
            BufferArena.fill(s[2 * t], count: frames, seed: UInt32(3 * t + 1))
            BufferArena.fill(s[2 * t + 1], count: frames, seed: UInt32(3 * t + 2))
            BufferArena.fill(g[t], count: frames, seed: UInt32(3 * t + 3), in: 0.25...1)
        }
        sources = s; gains = g
        output = AudioBlock(channelCount: 2, capacity: blockFrames)
        scales = (0..<(2 * n)).map { k in Float(0.5 + 0.03 * Double(k % 7)) }
        terms = .allocate(capacity: n)
    }

    deinit { terms.deallocate() }

    /// Plain read-add-write of every input buffer into the output block.
    func baseline() {
        let l = output.channel(0).baseAddress!, r = output.channel(1).baseAddress!
        var offset = 0
        while offset < frames {
            let m = min(blockFrames, frames - offset)
            for t in 0..<trackCount {
                Kernels.add(sources[2 * t] + offset, into: l, count: m)
                Kernels.add(sources[2 * t + 1] + offset, into: r, count: m)
                Kernels.add(gains[t] + offset, into: t % 2 == 0 ? l : r, count: m)
            }
            offset += m
        }
    }

    /// One track and channel at a time: out += (k * g[i]) * x[i].
    func perTrack() {
        let out = [output.channel(0).baseAddress!, output.channel(1).baseAddress!]
        var offset = 0
        while offset < frames {
            let m = min(blockFrames, frames - offset)
            for t in 0..<trackCount {
                for c in 0..<2 {
                    Kernels.addProduct(sources[2 * t + c] + offset, gains: gains[t] + offset, by: scales[2 * t + c],
                                       into: out[c], count: m)
                }
            }
            offset += m
        }
    }

    /// All tracks in one pass over each output channel.
    func fused() {
        var offset = 0
        while offset < frames {
            let m = min(blockFrames, frames - offset)
            for c in 0..<2 {
                for t in 0..<trackCount {
                    terms[t] = MixTerm(source: sources[2 * t + c] + offset, gains: gains[t] + offset, scale: scales[2 * t + c])
                }
                Kernels.mix(UnsafeBufferPointer(terms), into: output.channel(c).baseAddress!, count: m)
            }
            offset += m
        }
    }

    func checksum() -> Float { output.channel(0)[0] + output.channel(1)[blockFrames - 1] }
}
