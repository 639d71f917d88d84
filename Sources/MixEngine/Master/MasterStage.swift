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
