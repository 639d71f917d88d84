/// Helpers shared by the procedural generators (rain, wind): a state-variable filter, smooth random curves
/// (from `SeededRandom`, the one counter-based hash every seeded thing uses), and `WarmStart`, which runs recursive filters so that any frame's
/// output is the same wherever rendering started.

/// A smooth random curve in [0, 1]: values drawn at knots `period` seconds apart from (seed, knot), joined by
/// a smoothstep (s = 3f² − 2f³), so its slope is zero at every knot. A pure function of time.
@inline(__always) func valueNoise(seed: UInt64, seconds t: Double, period: Double) -> Double {
    let x = t / period
    let knot = Int64(x)                     // t >= 0 here, so truncation is the floor
    let f = x - Double(knot)
    let a = SeededRandom.unit(SeededRandom.bits(seed: seed, stream: 0x5EED, index: knot))
    let b = SeededRandom.unit(SeededRandom.bits(seed: seed, stream: 0x5EED, index: knot &+ 1))
    let s = f * f * (3 - 2 * f)
    return a + (b - a) * s
}

/// Coefficients of a state-variable filter (Andrew Simper's trapezoidal SVF), stable while its cutoff moves:
///   g = tan(π fc / fs), k = 1/Q, a1 = 1/(1 + g(g + k)), a2 = g a1, a3 = g a2.
/// Its band output (`v1`) peaks at Q; `k · v1` is a band-pass with unity gain at fc. Four `Double`s.
struct SVF {
    var a1: Double, a2: Double, a3: Double, k: Double
    init(cutoffHz: Double, q: Double, sampleRate: Double) {
        let g = _tan(Double.pi * min(max(cutoffHz, 1), 0.45 * sampleRate) / sampleRate)
        k = 1 / q
        a1 = 1 / (1 + g * (g + k))
        a2 = g * a1
        a3 = g * a2
    }

    /// One sample through the filter with state (ic1, ic2): returns (band, low).
    @inline(__always) func tick(_ v0: Double, _ ic1: inout Double, _ ic2: inout Double) -> (band: Double, low: Double) {
        svfStep(v0, &ic1, &ic2, a1: a1, a2: a2, a3: a3)
    }
}

/// What a state-variable filter's step needs of its values: `Double` for one filter, a vector of `Double`s for
/// several side by side (`SVFLanes`).
protocol FilterValue {
    static func + (a: Self, b: Self) -> Self
    static func - (a: Self, b: Self) -> Self
    static func * (a: Self, b: Self) -> Self
}
extension Double: FilterValue {}
extension SIMD2: FilterValue where Scalar == Double {}
extension SIMD4: FilterValue where Scalar == Double {}

/// The trapezoidal SVF's step, for `SVF` and `SVFLanes` alike: one sample through the filter with coefficients
/// (a1, a2, a3) and state (ic1, ic2); returns (band, low). Each lane of a vector computes exactly what a `Double`
/// does, in the same order (v + v is 2·v exactly).
@inline(__always) func svfStep<V: FilterValue>(_ v0: V, _ ic1: inout V, _ ic2: inout V, a1: V, a2: V, a3: V) -> (band: V, low: V) {
    let v3 = v0 - ic2
    let v1 = a1 * ic1 + a2 * v3
    let v2 = ic2 + a2 * ic1 + a3 * v3
    ic1 = v1 + v1 - ic1
    ic2 = v2 + v2 - ic2
    return (v1, v2)
}

/// Independent state-variable filters side by side, one per lane of `V` (the channels of a generator, or its
/// different filters at the same stage): each lane computes exactly what `SVF.tick` computes for its filter, in
/// the same order, so the output is the same bit for bit, with the lanes' serial chains running in parallel.
struct SVFLanes<V: SIMD & FilterValue> where V.Scalar == Double {
    var a1: V, a2: V, a3: V, k: V

    /// One sample per lane through the filters with state (ic1, ic2): returns (band, low).
    @inline(__always) func tick(_ v0: V, _ ic1: inout V, _ ic2: inout V) -> (band: V, low: V) {
        svfStep(v0, &ic1, &ic2, a1: a1, a2: a2, a3: a3)
    }
}

extension SVFLanes where V == SIMD2<Double> {
    /// `a` in lane 0, `b` in lane 1.
    init(_ a: SVF, _ b: SVF) {
        (a1, a2, a3, k) = (V(a.a1, b.a1), V(a.a2, b.a2), V(a.a3, b.a3), V(a.k, b.k))
    }
}

extension SVFLanes where V == SIMD4<Double> {
    /// `a`, `b`, `c`, `d` in lanes 0 to 3.
    init(_ a: SVF, _ b: SVF, _ c: SVF, _ d: SVF) {
        (a1, a2, a3, k) = (V(a.a1, b.a1, c.a1, d.a1), V(a.a2, b.a2, c.a2, d.a2), V(a.a3, b.a3, c.a3, d.a3), V(a.k, b.k, c.k, d.k))
    }
}

/// Runs a generator's recursive filters so that the output at any frame is a function of that frame
/// alone, whatever block sizes were used and wherever rendering started: exact partial renders, cheap seeks.
///
/// Time is cut into epochs of `epochFrames`. The filter state at the start of epoch k is, by definition,
/// the state reached by starting from zero at `k·epochFrames − warmUpFrames` and running over the
/// generator's own input. While rendering contiguously, a second ("shadow") state is started from zero
/// `warmUpFrames` before each epoch boundary and replaces the running state at the boundary; the two
/// differ there only by what is left of the running state's past after `warmUpFrames`, which the
/// generators keep far below Float resolution (their filters' slowest decay is tens of milliseconds;
/// the warm-up is one second). A seek runs at most `epochFrames + warmUpFrames` frames, whatever the
/// position; contiguous rendering costs `warmUpFrames / epochFrames` more for the shadow.
///
/// Epoch 0 is warmed up over the frames before 0 (the generator's input is defined there) unless
/// `startsFromSilence`: then its state is zero at frame 0, as a generator that has always started there had it.
///
/// Layout: two state arrays of `stateSize` doubles and a scratch block; allocates them in `init`,
/// nothing while rendering. Not thread-safe: one thread at a time.
struct WarmStart {
    let epochFrames: Int64
    let warmUpFrames: Int64
    /// Whether epoch 0 starts from a zero state at frame 0 rather than warmed up over the frames before it.
    let startsFromSilence: Bool
    private(set) var state: [Double]
    private var shadow: [Double]
    private let scratch: AudioBlock
    /// The frame after the last one rendered; nil before the first render (or after a seek is needed).
    private var nextPosition: Int64?

    init(stateSize: Int, epochFrames: Int64, warmUpFrames: Int64, channelCount: Int, startsFromSilence: Bool = false) {
        precondition(warmUpFrames > 0 && warmUpFrames < epochFrames)
        self.epochFrames = epochFrames
        self.warmUpFrames = warmUpFrames
        self.startsFromSilence = startsFromSilence
        state = Array(repeating: 0, count: stateSize)
        shadow = Array(repeating: 0, count: stateSize)
        scratch = AudioBlock(channelCount: channelCount, capacity: 1024)
    }

    /// The floor of a / b for b > 0.
    @inline(__always) static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Renders frames [position, position + count) into `block` at `offset` by calling
    /// `run(state, from, count, block, offset)`, which must write `count` frames computed from `from` on
    /// and update `state`; it is also called with the scratch block to run states forward silently.
    mutating func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64,
                         _ run: (UnsafeMutablePointer<Double>, Int64, Int, AudioBlock, Int) -> Void) {
        if nextPosition != position { seek(to: position, run) }
        var done = 0
        while done < count {
            let pos = position + Int64(done)
            let epochEnd = (WarmStart.floorDiv(pos, epochFrames) + 1) * epochFrames
            let warmStart = epochEnd - warmUpFrames
            if pos < warmStart {
                let n = Int(min(Int64(count - done), warmStart - pos))
                state.withUnsafeMutableBufferPointer { run($0.baseAddress!, pos, n, block, offset + done) }
                done += n
            } else {
                if pos == warmStart { for i in shadow.indices { shadow[i] = 0 } }
                let n = Int(min(Int64(min(count - done, scratch.capacity)), epochEnd - pos))
                state.withUnsafeMutableBufferPointer { run($0.baseAddress!, pos, n, block, offset + done) }
                shadow.withUnsafeMutableBufferPointer { run($0.baseAddress!, pos, n, scratch, 0) }
                done += n
                if pos + Int64(n) == epochEnd { swap(&state, &shadow) }
            }
        }
        nextPosition = position + Int64(count)
    }

    /// Sets the state (and the shadow, inside a warm-up) for rendering from `position`.
    private mutating func seek(to position: Int64, _ run: (UnsafeMutablePointer<Double>, Int64, Int, AudioBlock, Int) -> Void) {
        let epochStart = WarmStart.floorDiv(position, epochFrames) * epochFrames
        for i in state.indices { state[i] = 0 }
        let scratch = self.scratch
        let warmedFrom = startsFromSilence && epochStart == 0 ? 0 : epochStart - warmUpFrames
        state.withUnsafeMutableBufferPointer { s in
            WarmStart.runSilently(s.baseAddress!, from: warmedFrom, to: position, scratch, run)
        }
        let nextWarmStart = epochStart + epochFrames - warmUpFrames
        if position > nextWarmStart {
            for i in shadow.indices { shadow[i] = 0 }
            shadow.withUnsafeMutableBufferPointer { s in
                WarmStart.runSilently(s.baseAddress!, from: nextWarmStart, to: position, scratch, run)
            }
        }
    }

    private static func runSilently(_ s: UnsafeMutablePointer<Double>, from start: Int64, to end: Int64, _ scratch: AudioBlock,
                                    _ run: (UnsafeMutablePointer<Double>, Int64, Int, AudioBlock, Int) -> Void) {
        var pos = start
        while pos < end {
            let n = Int(min(end - pos, Int64(scratch.capacity)))
            run(s, pos, n, scratch, 0)
            pos += Int64(n)
        }
    }
}

/// A generator whose recursive filters run on from where its last render ended, and are started afresh a short
/// warm-up before a position elsewhere (surf, fire: slowest time constant a few ms, so 0.1 s brings them within
/// 1e-6 of a render from the start). `WarmStart` is the exact, epoch-based alternative for slower filters.
protocol ShortWarmUp: AnyObject {
    /// The frame the filters' state is at: where the last render ended.
    var nextPosition: Int64 { get set }
    var warmUpFrames: Int64 { get }
    /// Clears the filters' state.
    func resetFilters()
    /// Runs the filters over `count` frames from `nextPosition` into `block` (advancing `nextPosition`).
    func runFilters(into block: AudioBlock, offset: Int, count: Int)
}

extension ShortWarmUp {
    /// Brings the filters to `position`: on at once from where they are when it is just ahead, else from a clear
    /// state `warmUpFrames` before it. Renders the frames in between into `block` (overwritten later).
    func warmUp(to position: Int64, block: AudioBlock, offset: Int, count: Int) {
        guard position != nextPosition else { return }
        if position < nextPosition || position - nextPosition > warmUpFrames {
            resetFilters()
            nextPosition = max(0, position - warmUpFrames)
        }
        while nextPosition < position {
            runFilters(into: block, offset: offset, count: Int(min(position - nextPosition, Int64(count))))
        }
    }
}
