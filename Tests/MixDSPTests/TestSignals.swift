import MixDSP

/// Signals made in code for the tests: deterministic, seeded.
enum TestSignals {
    /// A block filled from a closure (frame, channel) -> sample.
    static func block(channels: Int, frames: Int, _ f: (Int, Int) -> Float) -> AudioBlock {
        let b = AudioBlock(channelCount: channels, capacity: frames)
        for c in 0..<channels { for i in 0..<frames { b.channel(c)[i] = f(i, c) } }
        return b
    }

    /// Uniform noise in [-1, 1) from a seed (SplitMix64).
    struct Noise {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> Float {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Float(Double(z >> 11) / 9_007_199_254_740_992.0 * 2 - 1)
        }
    }

    static func rms(_ p: UnsafeMutableBufferPointer<Float>, _ range: Range<Int>) -> Double {
        var s = 0.0
        for i in range { s += Double(p[i]) * Double(p[i]) }
        return (s / Double(range.count)).squareRoot()
    }
}

func dB(_ x: Double) -> Double { decibels(fromGain: x) }
