/// Rain from a seed: a bed of filtered noise and individual drops, each an impulse through a short resonant
/// filter (a damped sinusoid), their density following the intensity; from light rain to a downpour.
///
/// Model:
///   bed: per channel its own counter-based white noise, through a high-pass at 350 Hz and a low-pass at
///       1500·2^(3·brightness) Hz (two state-variable filters, Q 0.7), at 20·(1 − intensity) dB below its
///       level at intensity 1;
///   drops: a Poisson process of `dropsPerSecond` (default 4 + 396·intensity^1.5), laid out per 10 ms slot
///       from a hash of (seed, slot), so any slot's drops are known without running from frame 0. Each drop
///       is the impulse response of a two-pole resonator, a·r^n·sin(ωn + φ): 80% small drops at 1.8–6.5 kHz
///       (×2^(brightness − ½)) decaying in 1.5–5 ms, 20% larger "plops" at 350–1200 Hz decaying in 4–10 ms;
///       its level log-uniform over 30 dB, its onset phase φ in 0.2–1.3 rad (a tick), panned at random
///       (equal-power, favouring the sides). A drop sounds until it is 60 dB down (at most 70 ms).
///   At intensity 1 (brightness ½, default density) the level is about -18 dBFS RMS; see the tests.
/// The bed's filters run through `WarmStart` (epochs of 16 s, a warm-up of 1 s); a drop is always computed
/// from its own onset, by the same recursion whether it is rendered or skipped over. So the output at any
/// frame is the same whatever the block sizes and wherever rendering started, bit for bit; a seek costs at
/// most 17 s of bed (about 10 ms) and 70 ms of drops.
///
/// Layout: the settings, the bed's filter state (4 doubles per channel, twice), a 1024-frame scratch block
/// and a pool of 384 drops, allocated in `init`; `render` allocates nothing. Not thread-safe: one thread at a time.
public final class RainGenerator: FrameSource {
    public let intensity: Double
    public let brightness: Double
    public let dropsPerSecond: Double
    public let seed: UInt64
    public let sampleRate: Int
    public let channelCount: Int
    public var frameCount: Int64? { nil }

    /// The highest drop density accepted (more is a hiss the bed already makes).
    public static let maximumDropsPerSecond = 2000.0
    /// The default density for an intensity: a few drops a second at 0, 400 at 1.
    public static func defaultDropsPerSecond(intensity: Double) -> Double { 4 + 396 * _pow(min(max(intensity, 0), 1), 1.5) }

    // Levels, measured (see the tests): the bed alone at intensity 1 is about -19.5 dBFS RMS, the default
    // drops at intensity 1 about -23.3 dBFS, together about -18 dBFS.
    static let bedScale = 0.442
    static let dropScale = 0.40

    static let stateSize = 4
    static let maximumDropsPerSlot = 48
    static let maximumDropSeconds = 0.07

    /// One drop sounding: its complex phasor z (the output is its imaginary part), the rotation that
    /// advances it a frame, its channel gains, and the frame it has reached and the one it ends at.
    struct Drop {
        var re: Double, im: Double
        var rotRe: Double, rotIm: Double
        var left: Double, right: Double
        var next: Int64, end: Int64
    }

    private var warm: WarmStart
    private let noiseSeed: UInt64, dropSeed: UInt64
    private let highPass: SVF, lowPass: SVF
    private let bedGain: Double
    private let slotFrames: Int64, maximumDropFrames: Int64
    private let perFrameRate: Double
    private let drops: UnsafeMutablePointer<Drop>
    private let dropCapacity: Int
    private var dropCount = 0
    /// The frame after the last one whose drops were rendered; nil when the pool must be rebuilt.
    private var nextDropPosition: Int64?

    public init(intensity: Double, brightness: Double = 0.5, dropsPerSecond: Double? = nil, seed: UInt64,
                sampleRate: Int, channelCount: Int) {
        let i = min(max(intensity, 0), 1)
        self.intensity = i
        self.brightness = min(max(brightness, 0), 1)
        self.dropsPerSecond = min(max(dropsPerSecond ?? RainGenerator.defaultDropsPerSecond(intensity: i), 0),
                                  RainGenerator.maximumDropsPerSecond)
        self.seed = seed
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        let rate = Double(sampleRate)
        noiseSeed = SeededRandom.bits(seed: seed, stream: 1, index: 0x5241_494E)        // "RAIN"
        dropSeed = SeededRandom.bits(seed: seed, stream: 2, index: 0x4452_4F50)         // "DROP"
        highPass = SVF(cutoffHz: 350, q: 0.7, sampleRate: rate)
        lowPass = SVF(cutoffHz: 1500 * _pow(2, 3 * self.brightness), q: 0.7, sampleRate: rate)
        bedGain = RainGenerator.bedScale * gain(fromDecibels: -20 * (1 - i))
        slotFrames = Int64(max(1, sampleRate / 100))
        maximumDropFrames = Int64((RainGenerator.maximumDropSeconds * rate).rounded(.up))
        perFrameRate = self.dropsPerSecond / rate
        dropCapacity = Int((maximumDropFrames + slotFrames - 1) / slotFrames + 2) * RainGenerator.maximumDropsPerSlot
        drops = .allocate(capacity: dropCapacity)
        warm = WarmStart(stateSize: channelCount * RainGenerator.stateSize, epochFrames: Int64(sampleRate) * 16,
                         warmUpFrames: Int64(sampleRate), channelCount: channelCount)
    }

    deinit { drops.deallocate() }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        warm.render(into: block, offset: offset, count: count, at: position) { s, from, n, out, at in
            self.bed(s, from: from, count: n, into: out, offset: at)
        }
        addDrops(into: block, offset: offset, count: count, at: position)
    }

    /// The bed: frames [from, from + count) of each channel's noise through the two filters.
    private func bed(_ s: UnsafeMutablePointer<Double>, from: Int64, count: Int, into block: AudioBlock, offset: Int) {
        for ch in 0..<channelCount {
            let out = block.channel(ch).baseAddress! + offset
            let st = s + ch * RainGenerator.stateSize
            var (h1, h2, l1, l2) = (st[0], st[1], st[2], st[3])
            for j in 0..<count {
                let x = NoiseGenerator.white(seed: noiseSeed, frame: from + Int64(j), channel: ch)
                let (band, low) = highPass.tick(x, &h1, &h2)
                let high = x - highPass.k * band - low
                out[j] = Float(lowPass.tick(high, &l1, &l2).low * bedGain)
            }
            (st[0], st[1], st[2], st[3]) = (h1, h2, l1, l2)
        }
    }

    /// Calls `body` with each drop of slot `slot` in onset order (the slot's Poisson process, its gaps
    /// drawn from the hash of (seed, slot, index)), with its onset frame.
    @inline(__always)
    private func forEachDrop(inSlot slot: Int64, _ body: (Drop) -> Void) {
        guard perFrameRate > 0 else { return }
        let slotStart = slot * slotFrames
        var t = Double(slotStart)
        for m in 0..<RainGenerator.maximumDropsPerSlot {
            let u = SeededRandom.unit(SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m), index: slot))
            t += -Double.log(1 - u) / perFrameRate              // exponential gap: a Poisson process
            let onset = Int64(t.rounded(.down))                // the floor: slots before frame 0 too
            guard onset < slotStart + slotFrames else { return }
            body(makeDrop(onset: onset, slot: slot, index: m))
        }
    }

    private func makeDrop(onset: Int64, slot: Int64, index m: Int) -> Drop {
        let a = SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 1), index: slot)
        let b = SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 2), index: slot)
        let u1 = SeededRandom.unit(a), u2 = SeededRandom.unit(a << 26 | a >> 38), u3 = SeededRandom.unit(b), u4 = SeededRandom.unit(b << 26 | b >> 38)
        let isPlop = (a & 0xFF) < 51                             // about 20%
        let rate = Double(sampleRate)
        let hz = isPlop ? 350 * _pow(1200.0 / 350, u1) : 1800 * _pow(6500.0 / 1800, u1) * _pow(2, brightness - 0.5)
        let tau = (isPlop ? 0.004 + 0.006 * u2 : 0.0015 + 0.0035 * u2) * rate
        let level = RainGenerator.dropScale * gain(fromDecibels: -30 * u3)
        let phase = 0.2 + 1.1 * SeededRandom.unit(b & 0xFFFF_FFFF | (b >> 40) << 32)
        // Pan: 0 (left) ... π/2 (right), equal power, pushed towards the sides (u → 4u³ below ½) so the
        // channels stay decorrelated even where drops are louder than the bed.
        let side = u4 < 0.5 ? 4 * u4 * u4 * u4 : 1 - 4 * (1 - u4) * (1 - u4) * (1 - u4)
        let angle = side * 0.5 * Double.pi
        let omega = 2 * Double.pi * min(hz, 0.45 * rate) / rate
        let r = _exp(-1 / tau)
        let life = min(Int64((6.9 * tau).rounded(.up)), maximumDropFrames)
        return Drop(re: level * _cos(phase), im: level * _sin(phase), rotRe: r * _cos(omega), rotIm: r * _sin(omega),
                    left: _cos(angle), right: _sin(angle), next: onset, end: onset + life)
    }

    /// Adds drop `d`'s frames from `d.next` to `min(d.end, end)` into the block (whose frame 0 is at `origin`),
    /// or only advances it when `block` is nil.
    @inline(__always)
    private func play(_ d: inout Drop, until end: Int64, into block: AudioBlock?, offset: Int, origin: Int64) {
        let stop = min(d.end, end)
        guard d.next < stop else { return }
        var (re, im) = (d.re, d.im)
        let (cr, ci) = (d.rotRe, d.rotIm)
        let n = Int(stop - d.next)
        if let block {
            let first = offset + Int(d.next - origin)
            if channelCount >= 2 {
                let l = block.channel(0).baseAddress! + first, r = block.channel(1).baseAddress! + first
                for j in 0..<n {
                    l[j] += Float(im * d.left)
                    r[j] += Float(im * d.right)
                    (re, im) = (re * cr - im * ci, re * ci + im * cr)
                }
            } else {
                let m = block.channel(0).baseAddress! + first
                for j in 0..<n {
                    m[j] += Float(im * 0.707_106_781_186_547_5)
                    (re, im) = (re * cr - im * ci, re * ci + im * cr)
                }
            }
        } else {
            for _ in 0..<n { (re, im) = (re * cr - im * ci, re * ci + im * cr) }
        }
        (d.re, d.im) = (re, im)
        d.next = stop
    }

    private func addDrops(into block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        let end = position + Int64(count)
        if nextDropPosition != position {
            // Rebuild the pool: the drops started in the last 70 ms that still sound, each run from its onset.
            dropCount = 0
            let first = WarmStart.floorDiv(position - maximumDropFrames, slotFrames)
            let last = WarmStart.floorDiv(position - 1, slotFrames)
            if first <= last {
                for slot in first...last {
                    forEachDrop(inSlot: slot) { d in
                        guard d.next < position && d.end > position && dropCount < dropCapacity else { return }
                        var d = d
                        play(&d, until: position, into: nil, offset: 0, origin: 0)
                        drops[dropCount] = d
                        dropCount += 1
                    }
                }
            }
        }
        // The drops sounding, in onset order; those that end here leave the pool (keeping its order).
        var kept = 0
        for k in 0..<dropCount {
            var d = drops[k]
            play(&d, until: end, into: block, offset: offset, origin: position)
            if d.end > end { drops[kept] = d; kept += 1 }
        }
        dropCount = kept
        // The drops starting in this block, in onset order.
        for slot in WarmStart.floorDiv(position, slotFrames)...WarmStart.floorDiv(end - 1, slotFrames) {
            forEachDrop(inSlot: slot) { d in
                guard d.next >= position && d.next < end else { return }
                var d = d
                play(&d, until: end, into: block, offset: offset, origin: position)
                if d.end > end && dropCount < dropCapacity { drops[dropCount] = d; dropCount += 1 }
            }
        }
        nextDropPosition = end
    }
}
