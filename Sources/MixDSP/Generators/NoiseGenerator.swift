/// White, pink and brown noise from a seed: the same seed always gives the same noise.
///
/// The white noise underneath is counter-based (a SplitMix64 hash of seed, frame and channel), so
/// every channel is independent and the sequence does not depend on block sizes. Pink and brown
/// noise filter it with recursive filters, run through `WarmStart`: epochs of 2^18 frames, each started from a
/// zero state 2^15 frames before it (epoch 0 from frame 0, as the noise always began). Their slowest pole,
/// pink's 0.99886, decays by e^-37 over the warm-up, so a frame's sample is the same wherever rendering
/// started, and reaching a frame costs at most an epoch and a warm-up, whatever its position (at 99 hours as
/// at 0). Contiguous rendering costs 1/8 more for the shadow state. Every colour is scaled to about
/// -18 dBFS RMS.
///
/// Layout: the settings and the filter state (`WarmStart`: 7 `Double`s per channel, twice, and a scratch
/// block). Allocates them in `init`; `render` allocates nothing. Not thread-safe (the filter state
/// changes as it renders): one thread at a time.
public final class NoiseGenerator: FrameSource {
    /// A plain enum value (`Sendable`); allocates nothing.
    public enum Color: String, Sendable, CaseIterable { case white, pink, brown }

    public let color: Color
    public let seed: UInt64
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    /// The filters' state, `stateSize` doubles per channel, exact at any position.
    private var warm: WarmStart
    private static let stateSize = 7
    static let epochFrames: Int64 = 1 << 18
    static let warmUpFrames: Int64 = 1 << 15

    public init(color: Color, seed: UInt64, channelCount: Int) {
        self.color = color
        self.seed = seed
        self.channelCount = channelCount
        warm = WarmStart(stateSize: channelCount * NoiseGenerator.stateSize, epochFrames: NoiseGenerator.epochFrames,
                         warmUpFrames: NoiseGenerator.warmUpFrames, channelCount: channelCount, startsFromSilence: true)
    }

    /// Uniform white noise in [-1, 1) for frame `n`, channel `c`: a SplitMix64 hash of (seed, n, c).
    @inline(__always)
    static func white(seed: UInt64, frame n: Int64, channel c: Int) -> Double {
        var z = seed &+ (UInt64(bitPattern: n) &* 8 &+ UInt64(c)) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z = z ^ (z >> 31)
        // top 53 bits -> [0, 1) -> [-1, 1)
        return Double(z >> 11) * (1.0 / 9_007_199_254_740_992.0) * 2 - 1
    }

    // Scale factors that bring each colour to about -18 dBFS RMS (0.126); measured, see the tests.
    static let whiteScale = 0.218
    static let pinkScale = 0.0709
    static let brownScale = 2.188

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        if color == .white {
            for c in 0..<channelCount {
                let out = block.channel(c).baseAddress! + offset
                for i in 0..<count {
                    out[i] = Float(NoiseGenerator.white(seed: seed, frame: position + Int64(i), channel: c) * NoiseGenerator.whiteScale)
                }
            }
            return
        }
        warm.render(into: block, offset: offset, count: count, at: position) { state, from, n, out, at in
            self.filter(state: state, into: out, offset: at, count: n, start: from)
        }
    }

    /// Pink or brown noise for frames [start, start + count) into `block` at `offset`, from and updating `state`.
    private func filter(state st: UnsafeMutablePointer<Double>, into block: AudioBlock, offset: Int, count: Int, start: Int64) {
        if channelCount == 2 && color == .brown {
            generateBrownStereo(state: st, into: block, offset: offset, count: count, start: start)
            return
        }
        for c in 0..<channelCount {
            let out = block.channel(c).baseAddress! + offset
            let s = st + c * NoiseGenerator.stateSize
            switch color {
            case .white:
                preconditionFailure("white noise has no filter")
            case .pink:
                // Paul Kellet's refined pink filter: six one-pole sections plus a direct term.
                var (b0, b1, b2, b3, b4, b5, b6) = (s[0], s[1], s[2], s[3], s[4], s[5], s[6])
                for i in 0..<count {
                    let w = NoiseGenerator.white(seed: seed, frame: start + Int64(i), channel: c)
                    b0 = 0.99886 * b0 + w * 0.0555179
                    b1 = 0.99332 * b1 + w * 0.0750759
                    b2 = 0.96900 * b2 + w * 0.1538520
                    b3 = 0.86650 * b3 + w * 0.3104856
                    b4 = 0.55000 * b4 + w * 0.5329522
                    b5 = -0.7616 * b5 - w * 0.0168980
                    let pink = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362
                    b6 = w * 0.115926
                    out[i] = Float(pink * NoiseGenerator.pinkScale)
                }
                (s[0], s[1], s[2], s[3], s[4], s[5], s[6]) = (b0, b1, b2, b3, b4, b5, b6)
            case .brown:
                // Leaky integrator: b = (b + 0.02 w) / 1.02  (a -6 dB/octave slope above ~15 Hz)
                var b = s[0]
                for i in 0..<count {
                    let w = NoiseGenerator.white(seed: seed, frame: start + Int64(i), channel: c)
                    b = (b + 0.02 * w) / 1.02
                    out[i] = Float(b * NoiseGenerator.brownScale)
                }
                s[0] = b
            }
        }
    }

    /// Brown noise for two channels at once: the same operations on each channel as above, in the same
    /// order (so the same samples, bit for bit), with the two channels' integrators interleaved in one
    /// loop. Each sample waits for the previous one's division; two independent chains side by side
    /// hide half of that wait (measured: 9.4 -> 6.7 ns per stereo frame). Pink noise is limited by the
    /// number of operations rather than by waiting, and gains nothing from this.
    private func generateBrownStereo(state s: UnsafeMutablePointer<Double>, into block: AudioBlock, offset: Int,
                                     count: Int, start: Int64) {
        let left = block.channel(0).baseAddress! + offset, right = block.channel(1).baseAddress! + offset
        let r = s + NoiseGenerator.stateSize
        var bl = s[0], br = r[0]
        for i in 0..<count {
            let n = start + Int64(i)
            bl = (bl + 0.02 * NoiseGenerator.white(seed: seed, frame: n, channel: 0)) / 1.02
            br = (br + 0.02 * NoiseGenerator.white(seed: seed, frame: n, channel: 1)) / 1.02
            left[i] = Float(bl * NoiseGenerator.brownScale)
            right[i] = Float(br * NoiseGenerator.brownScale)
        }
        s[0] = bl; r[0] = br
    }
}
