import MixDSP

/// The master chain: a list of stages that process the bus in order (gain and fades, limiter, ...),
/// with taps between them that listen (meters, the output encoder, waveform and loudness recorders).
///
/// The chain keeps track of each stage's latency, so every tap is told the timeline position of the
/// frames it receives, and receives only the frames of the render's range. Built before the render
/// loop (nothing is allocated per block); used from the render thread only.
/// Layout: an array of elements (each a reference to a stage or a tap), the range and the summed latency.
public final class MasterChain {
    /// A value holding one reference, to a stage or a tap; allocates nothing. Not `Sendable`: used on the
    /// render thread.
    public enum Element {
        case stage(MasterStage)
        case tap(MixTap)
    }

    public let elements: [Element]
    /// The frames taps receive: the render's range.
    public let range: Range<Int64>
    /// The sum of the stages' latencies: the render loop runs this many frames past the range's end.
    public let latency: Int

    public init(_ elements: [Element], range: Range<Int64>) {
        self.elements = elements
        self.range = range
        latency = elements.reduce(0) { total, element in
            if case .stage(let stage) = element { return total + stage.latency }
            return total
        }
    }

    /// The standard chain of a plan: master gain and fades, the limiter, and taps at each `TapPoint`
    /// (in the order given; at `.output`, after `meter` and before `output`).
    /// `wrap`, for a loopable render, comes right after the gains.
    public static func standard(gains: GainStage, wrap: LoopWrapStage? = nil, limiter: LimiterStage, meter: LevelTap, output: MixTap,
                                taps: [RenderTap], range: Range<Int64>) -> MasterChain {
        func at(_ point: TapPoint) -> [Element] { taps.filter { $0.point == point }.map { .tap($0.tap) } }
        return MasterChain(at(.mix) + [.stage(gains)] + (wrap.map { [.stage($0)] } ?? []) + at(.beforeLimiter) + [.stage(limiter), .tap(meter)]
                           + at(.output) + [.tap(output)], range: range)
    }

    /// Runs frames `[0, count)` of `bus`, which are frames `[position, position + count)` of the mix,
    /// through the chain.
    public func process(_ bus: AudioBlock, count n: Int, at position: Int64) throws {
        var delay: Int64 = 0
        for element in elements {
            switch element {
            case .stage(let stage):
                stage.process(bus, count: n, at: position - delay)
                delay += Int64(stage.latency)
            case .tap(let tap):
                // Bus frame i is frame position - delay + i of this point's timeline.
                let blockStart = position - delay
                let first = max(blockStart, range.lowerBound), last = min(blockStart + Int64(n), range.upperBound)
                if last > first {
                    try tap.receive(bus, offset: Int(first - blockStart), count: Int(last - first), at: first)
                }
            }
        }
    }

    /// Finishes every tap, in order; the first error is thrown after all were tried.
    public func finish() throws {
        var failure: Error?
        for case .tap(let tap) in elements {
            do { try tap.finish() } catch { if failure == nil { failure = error } }
        }
        if let failure { throw failure }
    }

    /// Abandons every tap (after a failed render).
    public func abandon() {
        for case .tap(let tap) in elements { tap.abandon() }
    }
}
