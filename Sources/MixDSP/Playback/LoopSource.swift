/// Audio held in memory and repeated for ever, with a crossfade at every seam.
///
/// With material m of length L and a crossfade of X frames (X <= L/2), the loop is one cycle c of
/// period L - X, computed once:
///   c[i] = m[i] * in(i/X) + m[L - X + i] * out(i/X)   for i < X   (the seam: tail fades into head)
///   c[i] = m[i]                                       for X <= i < L - X
/// and frame p of the source is m[p] for p < X (the first play starts clean) and c[p mod (L - X)]
/// after that, so frame p depends only on p. With X = 0 the material repeats as it is; a seamless
/// loop then needs material resampled circularly (see `LoopMaterial`).
///
/// Layout: the cycle (the material's `AudioBlock`, rewritten in place) and, with a crossfade, a block
/// holding the first X frames as they were. `init` allocates only that head block; `render` allocates
/// nothing. Read-only after `init`, so it may be rendered from several threads at once (as shared
/// prepared material is).
public final class LoopSource: FrameSource, ContiguousFrames {
    public let channelCount: Int
    public var frameCount: Int64? { nil }
    public let period: Int
    public let crossfade: Int
    private let cycle: AudioBlock
    private let head: AudioBlock?

    /// Takes ownership of `material` (its first `length` frames) and turns it into the cycle in place.
    public init(material: AudioBlock, length: Int, crossfade requested: Int, curve: Curve) {
        precondition(length > 0 && length <= material.capacity)
        let x = max(0, min(requested, length / 2))
        channelCount = material.channelCount
        crossfade = x
        period = length - x
        cycle = material
        if x > 0 {
            let head = AudioBlock(channelCount: channelCount, capacity: x)
            for c in 0..<channelCount {
                let m = material.channel(c).baseAddress!
                Kernels.copy(m, to: head.channel(c).baseAddress!, count: x)
                for i in 0..<x {
                    let t = Double(i) / Double(x)
                    let fadeIn = Float(curve.shape(t)), fadeOut = Float(curve.shape(1 - t))
                    m[i] = m[i] * fadeIn + m[length - x + i] * fadeOut
                }
            }
            self.head = head
        } else {
            self.head = nil
        }
    }

    /// How much louder (positive) or quieter (negative) in dB one cycle of the loop is than the material,
    /// for a seam of `crossfade` frames: the power of the cycle `init` would make against the power of the
    /// first `length` frames, over all channels. Reads `material`, allocates nothing.
    ///
    /// Noise-like material keeps its level with an equal-power seam of any length; a short sound whose
    /// energy is in its attack does not: the seam fades the attack in, so a 50 ms drip with its seam at
    /// half its length (its whole cycle a crossfade) plays 8 dB low.
    public static func levelChange(material: AudioBlock, length: Int, crossfade requested: Int, curve: Curve) -> Double {
        let x = max(0, min(requested, length / 2))
        var sourcePower = 0.0, cyclePower = 0.0
        for c in 0..<material.channelCount {
            let m = material.channel(c).baseAddress!
            for i in 0..<length { sourcePower += Double(m[i]) * Double(m[i]) }
            for i in 0..<x {
                let t = Double(i) / Double(x)
                let mixed = Double(m[i]) * curve.shape(t) + Double(m[length - x + i]) * curve.shape(1 - t)
                cyclePower += mixed * mixed
            }
            for i in x..<(length - x) { cyclePower += Double(m[i]) * Double(m[i]) }
        }
        guard sourcePower > 0, cyclePower > 0 else { return sourcePower == cyclePower ? 0 : -.infinity }
        return 10 * _log10((cyclePower / Double(length - x)) / (sourcePower / Double(length)))
    }

    /// The longest seam, at most `requested` and halving from there down to `minimum` frames, whose cycle
    /// stays within `tolerance` dB of the material's level (`levelChange`); `minimum` if none does.
    public static func seamKeepingLevel(material: AudioBlock, length: Int, requested: Int, minimum: Int,
                                        curve: Curve, tolerance: Double) -> Int {
        var x = max(0, min(requested, length / 2))
        while x > minimum {
            if abs(levelChange(material: material, length: length, crossfade: x, curve: curve)) <= tolerance { return x }
            x /= 2
        }
        return max(0, min(minimum, length / 2))
    }

    /// The frames as they lie in the cycle (or the first play's head), when they lie in one run.
    public func frames(channel: Int, at position: Int64, count: Int) -> UnsafePointer<Float>? {
        if position < Int64(crossfade), let head {
            return position + Int64(count) <= Int64(crossfade) ? UnsafePointer(head.channel(channel).baseAddress! + Int(position)) : nil
        }
        let index = Int(position % Int64(period))
        return index + count <= period ? UnsafePointer(cycle.channel(channel).baseAddress! + index) : nil
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        var done = 0
        var p = position
        while done < count {
            let source: AudioBlock, index: Int, run: Int
            if p < Int64(crossfade), let head {
                source = head; index = Int(p); run = min(count - done, crossfade - index)
            } else {
                source = cycle; index = Int(p % Int64(period)); run = min(count - done, period - index)
            }
            for c in 0..<channelCount {
                Kernels.copy(source.channel(c).baseAddress! + index, to: block.channel(c).baseAddress! + offset + done, count: run)
            }
            done += run; p += Int64(run)
        }
    }
}
