/// The targets, each a ratio measured in the same run.
enum Targets {
    static func mixing(_ m: MixTargetInput, isQuick: Bool) -> Target {
        let isMet = m.ratio.median >= 0.70
        var note = "fused kernel \(fixed(m.fusedGBps.median, 1)) GB/s of input against the baseline's "
            + "\(fixed(m.baselineGBps.median, 1)) GB/s over the same buffers (memory regime)"
        note += isMet ? "." : "; MISSED: see the cache-regime rows for the kernel's arithmetic limit."
        return Target(name: "mixing kernel, 8 tracks, against the memory-bandwidth baseline",
                      definition: "baseline time / fused kernel time, per alternating round, inputs streamed from memory",
                      value: Figure(m.ratio, .ratio), threshold: 0.70, comparison: "atLeast", isMet: isMet,
                      status: isQuick ? "indicative" : isMet ? "met" : "missed", note: note)
    }
}

struct MixTargetInput {
    var ratio: Spread
    var fusedGBps: Spread
    var baselineGBps: Spread
}
