import MixDSP

/// One processing stage of the master chain: it changes the bus in place, block by block.
///
/// `process` is called on the render thread once per block, in timeline order, and must not allocate
/// (a stage allocates what it needs in `init`). A stage that delays its output (the limiter's
/// look-ahead) says by how much in `latency`; the chain shifts the positions of later stages and taps.
public protocol MasterStage: AnyObject {
    /// Frames by which the stage's output lags its input.
    var latency: Int { get }
    /// Processes frames `[0, count)` of `bus`, which are frames `[position, position + count)` of the
    /// stage's input on the timeline.
    func process(_ bus: AudioBlock, count: Int, at position: Int64)
}

/// Gains computed from the timeline position (the master gain, fade-in and sleep-timer fade-out).
/// Two `blockFrames` buffers, allocated in `init`.
/// Layout: the `GainStack` and one two-channel `AudioBlock` (gains, scratch). `process` allocates
/// nothing. Not thread-safe (the buffers are scratch): the render thread only.
public final class GainStage: MasterStage {
    public let gains: GainStack
    public var latency: Int { 0 }
    private let buffers: AudioBlock

    public init(_ gains: GainStack, blockFrames: Int) {
        self.gains = gains
        buffers = AudioBlock(channelCount: 2, capacity: blockFrames)
    }

    public func process(_ bus: AudioBlock, count n: Int, at position: Int64) {
        let g = buffers.channel(0).baseAddress!, scratch = buffers.channel(1).baseAddress!
        if let k = gains.render(into: g, scratch: scratch, count: n, at: position) {
            for c in 0..<bus.channelCount { Kernels.scale(bus.channel(c).baseAddress!, by: k, count: n) }
        } else {
            for c in 0..<bus.channelCount { Kernels.multiply(bus.channel(c).baseAddress!, by: g, count: n) }
        }
    }
}

/// The look-ahead limiter (`Limiter` in MixDSP) as a stage: it delays the bus by its look-ahead.
/// Holds a reference to the `Limiter` (which allocated its memory in its own `init`); allocates nothing.
/// Not thread-safe: the render thread only.
public final class LimiterStage: MasterStage {
    public let limiter: Limiter
    public var latency: Int { limiter.latency }

    public init(_ limiter: Limiter) { self.limiter = limiter }

    public func process(_ bus: AudioBlock, count: Int, at position: Int64) {
        limiter.process(bus, count: count)
    }
}

/// A loopable render's wrap-around (`LoopOutput`), before the limiter: over the first `crossfadeFrames` of the
/// timeline the bus fades in along the curve while `tail` (the mix after the end, through the same master
/// gains, made before the render) fades out along its mirror. Elsewhere it passes the bus unchanged.
/// Layout: the tail (one `AudioBlock` of `crossfadeFrames`), the curve and the length. `process` allocates
/// nothing. Not thread-safe: the render thread only.
public final class LoopWrapStage: MasterStage {
    public let loop: LoopOutput
    private let tail: AudioBlock
    public var latency: Int { 0 }

    public init(_ loop: LoopOutput, tail: AudioBlock) {
        precondition(tail.capacity >= Int(loop.crossfadeFrames))
        self.loop = loop
        self.tail = tail
    }

    public func process(_ bus: AudioBlock, count n: Int, at position: Int64) {
        let c = loop.crossfadeFrames
        guard position < c, position + Int64(n) > 0 else { return }
        let first = Int(max(0, -position)), last = Int(min(Int64(n), c - position))
        let span = Double(c)
        for i in first..<last {
            let frame = position + Int64(i)
            // Midpoint sampling, so fade-in and fade-out are mirror images over the whole crossfade.
            let t = (Double(frame) + 0.5) / span
            let fadeIn = Float(loop.curve.shape(t)), fadeOut = Float(loop.curve.shape(1 - t))
            for ch in 0..<bus.channelCount {
                bus.channel(ch)[i] = bus.channel(ch)[i] * fadeIn + tail.channel(ch)[Int(frame)] * fadeOut
            }
        }
    }
}
