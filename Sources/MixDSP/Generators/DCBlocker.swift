/// Takes the DC out of a generator's output: a one-pole high-pass at 5 Hz on every channel,
///   y[n] = x[n] − x[n−1] + R·y[n−1],  R = exp(−2π·5 / rate)
/// (−0.26 dB at 20 Hz, −0.07 dB at 40 Hz; a constant offset is gone in a few hundred milliseconds, its time
/// constant being 32 ms). Drops, crackles and waves are not exactly zero-mean, so a long render's mean would
/// otherwise sit at -60 dBFS; after this it sits below -100 (see the tests).
///
/// Exact wherever rendering starts, as `WarmStart` makes the generators' own filters: time is cut into epochs of
/// 1 s, and the filter's state at the start of epoch k is, by definition, the state reached from zero at
/// k·1 s − 0.75 s (at frame 0 for the first epoch). Rendering on, a second state starts from zero 0.75 s before
/// each epoch's end and takes over there; after 0.75 s (23 time constants) the two differ by e^−23 of the signal,
/// far below a Float's resolution, so nothing is heard at the joins. Unlike `WarmStart`, the second state runs
/// over the samples already rendered, so the source is rendered once whatever the epochs, and the short epochs
/// cost only the second state's few operations a frame; a seek renders the source from at most 1.75 s before the
/// position (1.25 s on average), whatever the position. (With 4 s epochs a seek rendered up to 5 s of the source,
/// and landed its source's own seek up to a whole epoch of that source's filters away.)
///
/// Layout: the source, two states of 2 doubles per channel and a 1024-frame scratch block, allocated in `init`;
/// `render` allocates nothing. Not thread-safe: one thread at a time, as its source.
public final class DCBlocker: FrameSource {
    public let source: FrameSource
    public let sampleRate: Int
    public var channelCount: Int { source.channelCount }
    public var frameCount: Int64? { source.frameCount }

    /// The high-pass's corner frequency.
    public static let cornerHz = 5.0
    let epochFrames: Int64
    let warmUpFrames: Int64
    private let r: Double
    /// Per channel, (previous input, previous output).
    private var state: [Double]
    private var shadow: [Double]
    private let scratch: AudioBlock
    /// The frame after the last one rendered; nil before the first render.
    private var nextPosition: Int64?

    public init(_ source: FrameSource, sampleRate: Int) {
        precondition(sampleRate > 0)
        self.source = source
        self.sampleRate = sampleRate
        let rate = Int64(sampleRate)
        epochFrames = rate
        warmUpFrames = max(1, 3 * rate / 4)
        r = _exp(-2 * Double.pi * DCBlocker.cornerHz / Double(sampleRate))
        state = Array(repeating: 0, count: 2 * source.channelCount)
        shadow = state
        scratch = AudioBlock(channelCount: source.channelCount, capacity: 1024)
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        if nextPosition != position { try seek(to: position) }
        try source.render(into: block, offset: offset, count: count, at: position)
        filter(block, offset: offset, count: count, at: position)
        nextPosition = position + Int64(count)
    }

    /// Sets the states for rendering from `position`: from zero at its epoch's warm-up start, run over the source.
    private func seek(to position: Int64) throws {
        let epochStart = WarmStart.floorDiv(position, epochFrames) * epochFrames
        var at = max(0, epochStart - warmUpFrames)
        for i in state.indices { state[i] = 0; shadow[i] = 0 }
        while at < position {
            let n = Int(min(position - at, Int64(scratch.capacity)))
            try source.render(into: scratch, offset: 0, count: n, at: at)
            filter(scratch, offset: 0, count: n, at: at)
            at += Int64(n)
        }
    }

    /// Filters frames [position, position + count) of `block` in place, the shadow state running beside inside
    /// each epoch's last `warmUpFrames` and taking over at its end.
    private func filter(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        var done = 0
        while done < count {
            let pos = position + Int64(done)
            let epochEnd = (WarmStart.floorDiv(pos, epochFrames) + 1) * epochFrames
            let warmStart = epochEnd - warmUpFrames
            if pos < warmStart {
                let n = Int(min(Int64(count - done), warmStart - pos))
                run(block, offset: offset + done, count: n, shadowToo: false)
                done += n
            } else {
                if pos == warmStart { for i in shadow.indices { shadow[i] = 0 } }
                let n = Int(min(Int64(count - done), epochEnd - pos))
                run(block, offset: offset + done, count: n, shadowToo: true)
                done += n
                if pos + Int64(n) == epochEnd { swap(&state, &shadow) }
            }
        }
    }

    /// Runs the state over `count` frames of `block` from `offset`, writing its output in place, and with
    /// `shadowToo` the shadow beside it over the same input (read before it is overwritten). Each channel and each
    /// state is a recursion of its own, waiting every frame on its multiply-add; stereo runs its two channels (and
    /// the two states: up to four recursions) in one loop so their latencies overlap. Same arithmetic as one at a
    /// time: y = (x − x₋₁) + R·y₋₁ in Double.
    private func run(_ block: AudioBlock, offset: Int, count: Int, shadowToo: Bool) {
        let r = self.r
        state.withUnsafeMutableBufferPointer { sp in
            shadow.withUnsafeMutableBufferPointer { hp in
                let s = sp.baseAddress!, h = hp.baseAddress!
                if channelCount == 2 {
                    let a = block.channel(0).baseAddress! + offset, b = block.channel(1).baseAddress! + offset
                    var (xa, ya, xb, yb) = (s[0], s[1], s[2], s[3])
                    if shadowToo {
                        var (hxa, ha, hxb, hb) = (h[0], h[1], h[2], h[3])
                        for j in 0..<count {
                            let x0 = Double(a[j]), x1 = Double(b[j])
                            ha = x0 - hxa + r * ha
                            hb = x1 - hxb + r * hb
                            ya = x0 - xa + r * ya
                            yb = x1 - xb + r * yb
                            xa = x0; xb = x1; hxa = x0; hxb = x1
                            a[j] = Float(ya); b[j] = Float(yb)
                        }
                        (h[0], h[1], h[2], h[3]) = (hxa, ha, hxb, hb)
                    } else {
                        for j in 0..<count {
                            let x0 = Double(a[j]), x1 = Double(b[j])
                            ya = x0 - xa + r * ya
                            yb = x1 - xb + r * yb
                            xa = x0; xb = x1
                            a[j] = Float(ya); b[j] = Float(yb)
                        }
                    }
                    (s[0], s[1], s[2], s[3]) = (xa, ya, xb, yb)
                    return
                }
                for ch in 0..<channelCount {
                    let p = block.channel(ch).baseAddress! + offset
                    var (xp, yp) = (s[2 * ch], s[2 * ch + 1])
                    if shadowToo {
                        var (hx, hy) = (h[2 * ch], h[2 * ch + 1])
                        for j in 0..<count {
                            let x = Double(p[j])
                            hy = x - hx + r * hy
                            yp = x - xp + r * yp
                            xp = x; hx = x
                            p[j] = Float(yp)
                        }
                        (h[2 * ch], h[2 * ch + 1]) = (hx, hy)
                    } else {
                        for j in 0..<count {
                            let x = Double(p[j])
                            yp = x - xp + r * yp
                            xp = x
                            p[j] = Float(yp)
                        }
                    }
                    (s[2 * ch], s[2 * ch + 1]) = (xp, yp)
                }
            }
        }
    }
}
