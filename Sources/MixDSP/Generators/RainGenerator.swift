/// Rain from a seed: a dense hiss, many small drops (broadband clicks, a minority ringing as bubbles) and
/// the larger drops' thudding splashes, their sizes drawn as in real rain and their number easing and swelling
/// over seconds; from light rain to a downpour. Fitted to a binaural recording of heavy rain (see the tests).
///
/// Model:
///   drops: a Poisson process of `dropsPerSecond` (default 4 + 396·intensity^1.5) times the gust curve's power
///       g(t)², laid out per 10 ms slot from a hash of (seed, slot), so any slot's drops are known without
///       running from frame 0. Each drop's diameter is Marshall-Palmer-like, D = 0.5 mm + Exp(Λ) (at most
///       5.5 mm), Λ = 4.1·R^-0.21 /mm for a rain rate R = 2·25^intensity mm/h: many small drops, few large.
///   small drops (D < 1.5 mm): an impulse through a two-pole resonator, its first difference (so it sums to 0:
///       no DC, no lows), amplitude ∝ D times a distance factor log-uniform over 20 dB, random polarity:
///       75% clicks (2.5-7 kHz·2^(brightness − ½), Q 1-3: broadband), 25% Minnaert bubbles
///       (1.5-12 kHz·2^(brightness − ½), Q 8-24). Panned at random, favouring the sides.
///   splashes (D ≥ 1.5 mm: about 9% of the drops at intensity 0.6, ~17 a second): an envelope
///       a·(e^(−n/τ) − e^(−n/τa)), τ 30-120 ms, τa 6 ms, a ∝ (min(D, 3 mm)/1.5 mm)^1.2 times a distance factor
///       log-uniform over 12 dB, panned within the middle half, over the channel's impact noise (its own white
///       noise through a band-pass at 578 Hz, Q 3, a low-pass at 434 Hz, Q 0.46, a soft knee x/√(1 + (x/c)²) at
///       c = 2.5 × its RMS, so a splash's rare noise peaks are rounded as a struck surface's are, and a
///       high-pass at 700 Hz, Q 1.07, which also removes what the knee adds low: a thud around 550 Hz) plus a
///       little of the hiss (the spray).
///   hiss: per channel its own white noise through a high-pass at 525 Hz (Q 0.7) and a low-pass at
///       6.4 kHz·4^(brightness − ½) (Q 0.61), 20·(1 − intensity) dB below its level at intensity 1, times g(t).
///   gust: g(t) = 10^(±0.6 dB/20) from a smooth random curve (`valueNoise`, knots 2.5 s apart), taken per slot
///       and joined linearly: with the splashes' own randomness, the level moves over seconds as real rain's.
///   At intensity 1 (brightness ½, default density) the level is about -18 dBFS RMS; see the tests.
/// The two noises' filters run through `WarmStart` (epochs of 2 s, a warm-up of 0.1 s: the slowest filter, the
/// 578 Hz band-pass at Q 3, decays with a time constant of 1.65 ms, so the warm-up is 60 of them); a drop or a
/// splash is always computed from its own onset, by the same recursion whether it is rendered or skipped over. So
/// the output at any frame is the same whatever the block sizes and wherever rendering started, bit for bit; a
/// seek costs at most 2.1 s of noise and 0.8 s of splashes, wherever it lands.
///
/// Layout: the settings, the filters' state (10 doubles per channel, twice), a 1024-frame block of the two
/// noises and one of the splashes' envelopes (left, right), 256 frames of the white noise the noises are made
/// from (four doubles a frame: two channels of each), a pool of 240 drops and one of 3936 splashes
/// (room for every drop of the slots a drop or a splash can last), allocated in `init`; `render` allocates
/// nothing. Not thread-safe: one thread at a time.
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

    // Levels, measured (see the tests): with these the default rain at intensity 1 is about -18 dBFS RMS,
    // the splashes' thud about 10 dB over the hiss, spray and drops (the recording's balance).
    static let hissScale = 0.0350
    static let impactScale = 3.449
    static let sprayScale = 0.0375
    static let dropScale = 0.0375
    // The model's figures (see the doc comment); fitted to the recording at intensity 0.6.
    static let splashDiameter = 1.5, largestDiameter = 5.5, loudestDiameter = 3.0
    static let gustDecibels = 0.6, gustPeriod = 2.5
    static let splashTau = 0.03...0.12, splashRange = 12.0, splashExponent = 1.2, splashWidth = 0.5
    static let attackSeconds = 0.006
    static let impactKnee = 2.5
    static let bubbleShare = 0.25, dropRange = 20.0
    static let clickHz = 2500.0, clickSpan = 2.8, bubbleHz = 1500.0, bubbleSpan = 8.0

    static let stateSize = 10
    static let maximumDropsPerSlot = 48
    static let maximumDropSeconds = 0.03
    static let maximumSplashSeconds = 0.8
    static let chunk = 1024
    static let whiteFrames = 256

    /// One drop sounding: its complex phasor z (the output is its imaginary part), the rotation that
    /// advances it a frame, its channel gains, and the frame it has reached and the one it ends at.
    struct Drop {
        var re: Double, im: Double
        var rotRe: Double, rotIm: Double
        var left: Double, right: Double
        var next: Int64, end: Int64
    }

    /// One splash sounding: its envelope and the factor that advances it a frame, its channel gains, and the
    /// frame it has reached and the one it ends at.
    struct Splash {
        var level: Double, decay: Double
        var rise: Double, riseDecay: Double
        var left: Double, right: Double
        var next: Int64, end: Int64
    }

    private var warm: WarmStart
    private let noiseSeed: UInt64, impactSeed: UInt64, dropSeed: UInt64, gustSeed: UInt64
    /// The noises' filters, by stage: the hiss's high-pass and the impact noise's band-pass (lanes: hiss, hiss,
    /// impact, impact), the low-passes of both, and the impact noise's high-pass (one lane per channel).
    private let noiseBank: (first: SVFLanes<SIMD4<Double>>, second: SVFLanes<SIMD4<Double>>, last: SVFLanes<SIMD2<Double>>)
    private let hissGain: Double, bodyGain: Double, sprayGain: Double, dropGain: Double
    private let lambda: Double
    /// 1/c² for the impact noise's soft knee c = `impactKnee` × its RMS (the white noise's RMS after the
    /// band-pass and the low-pass: 0.02168 at 44.1 kHz, ∝ 1/√rate).
    private let kneeScale: Double
    private let slotFrames: Int64, maximumDropFrames: Int64, maximumSplashFrames: Int64
    private let perFrameRate: Double
    private let noise: AudioBlock
    private let envelopes: UnsafeMutablePointer<Double>      // 2 × chunk: left, right
    private let white: UnsafeMutablePointer<Double>          // 4 × whiteFrames: the noises' white noise, by frame
    private let drops: UnsafeMutablePointer<Drop>
    private let dropCapacity: Int
    private var dropCount = 0
    private let splashes: UnsafeMutablePointer<Splash>
    private let splashCapacity: Int
    private var splashCount = 0
    /// The frame after the last one whose drops (splashes) were rendered; nil when the pool must be rebuilt.
    private var nextDropPosition: Int64?
    private var nextSplashPosition: Int64?

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
        impactSeed = SeededRandom.bits(seed: seed, stream: 3, index: 0x5448_5544)       // "THUD"
        gustSeed = SeededRandom.bits(seed: seed, stream: 4, index: 0x4755_5354)         // "GUST"
        let hissHigh = SVF(cutoffHz: 525, q: 0.7, sampleRate: rate)
        let hissLow = SVF(cutoffHz: 6386 * _pow(4, self.brightness - 0.5), q: 0.61, sampleRate: rate)
        let bodyHigh = SVF(cutoffHz: 700, q: 1.07, sampleRate: rate)
        let bodyBand = SVF(cutoffHz: 578, q: 3, sampleRate: rate)
        let bodyLow = SVF(cutoffHz: 434, q: 0.46, sampleRate: rate)
        noiseBank = (SVFLanes(hissHigh, hissHigh, bodyBand, bodyBand), SVFLanes(hissLow, hissLow, bodyLow, bodyLow),
                     SVFLanes(bodyHigh, bodyHigh))
        hissGain = RainGenerator.hissScale * gain(fromDecibels: -20 * (1 - i))
        bodyGain = RainGenerator.impactScale
        sprayGain = RainGenerator.sprayScale
        dropGain = RainGenerator.dropScale
        let knee = RainGenerator.impactKnee * 0.02168 * (44_100 / rate).squareRoot()
        kneeScale = 1 / (knee * knee)
        let rainRate = 2 * _pow(25, i)
        lambda = 4.1 * _pow(rainRate, -0.21)
        slotFrames = Int64(max(1, sampleRate / 100))
        maximumDropFrames = Int64((RainGenerator.maximumDropSeconds * rate).rounded(.up))
        maximumSplashFrames = Int64((RainGenerator.maximumSplashSeconds * rate).rounded(.up))
        perFrameRate = self.dropsPerSecond / rate
        dropCapacity = Int((maximumDropFrames + slotFrames - 1) / slotFrames + 2) * RainGenerator.maximumDropsPerSlot
        drops = .allocate(capacity: dropCapacity)
        splashCapacity = Int((maximumSplashFrames + slotFrames - 1) / slotFrames + 2) * RainGenerator.maximumDropsPerSlot
        splashes = .allocate(capacity: splashCapacity)
        envelopes = .allocate(capacity: 2 * RainGenerator.chunk)
        white = .allocate(capacity: 4 * RainGenerator.whiteFrames)
        noise = AudioBlock(channelCount: 2 * channelCount, capacity: RainGenerator.chunk)
        warm = WarmStart(stateSize: channelCount * RainGenerator.stateSize, epochFrames: Int64(sampleRate) * 2,
                         warmUpFrames: max(1, Int64(sampleRate) / 10), channelCount: 2 * channelCount)
    }

    deinit { drops.deallocate(); splashes.deallocate(); envelopes.deallocate(); white.deallocate() }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        var done = 0
        while done < count {
            let n = min(count - done, RainGenerator.chunk)
            let pos = position + Int64(done)
            warm.render(into: noise, offset: 0, count: n, at: pos) { s, from, n, out, at in
                self.noises(s, from: from, count: n, into: out, offset: at)
            }
            splashEnvelopes(count: n, at: pos)
            mix(into: block, offset: offset + done, count: n, at: pos)
            addDrops(into: block, offset: offset + done, count: n, at: pos)
            done += n
        }
    }

    /// The gust curve's gain at the start of `slot` (a pure function of the slot).
    @inline(__always) private func gust(_ slot: Int64) -> Double {
        let t = Double(max(slot, 0) * slotFrames) / Double(sampleRate)
        return gain(fromDecibels: RainGenerator.gustDecibels * (2 * valueNoise(seed: gustSeed, seconds: t, period: RainGenerator.gustPeriod) - 1))
    }

    /// Writes the output: hiss · gain · g(t) + (impact noise + spray) · the splashes' envelope.
    private func mix(into block: AudioBlock, offset: Int, count: Int, at position: Int64) {
        let end = position + Int64(count)
        var slot = WarmStart.floorDiv(position, slotFrames)
        var g0 = gust(slot)
        let inverse = 1 / Double(slotFrames)
        var p = position
        while p < end {
            let slotStart = slot * slotFrames
            let stop = min(end, slotStart + slotFrames)
            let g1 = gust(slot + 1)
            let a = Int(p - position), b = Int(stop - position)
            for ch in 0..<channelCount {
                let out = block.channel(ch).baseAddress! + offset
                let hiss = noise.channel(ch).baseAddress!, body = noise.channel(channelCount + ch).baseAddress!
                let env = envelopes + (ch & 1) * RainGenerator.chunk
                let e: Double = channelCount == 1 ? 0.707_106_781_186_547_5 : 1
                for j in a..<b {
                    let g = g0 + (g1 - g0) * (Double(position + Int64(j) - slotStart) * inverse)
                    let h = Double(hiss[j])
                    out[j] = Float(h * hissGain * g + (Double(body[j]) * bodyGain + h * sprayGain) * env[j] * e)
                }
            }
            p = stop
            slot += 1
            g0 = g1
        }
    }

    /// The noises: frames [from, from + count) of each channel's hiss (into channel ch) and impact noise
    /// (into channel channelCount + ch), unscaled. Two channels at a time, their four filter chains in the lanes
    /// of one vector (hiss and impact noise of both), so the chains' serial recursions run side by side; each
    /// lane computes what one channel's chain computes alone, bit for bit. A lone last channel fills both lanes.
    private func noises(_ s: UnsafeMutablePointer<Double>, from: Int64, count: Int, into block: AudioBlock, offset: Int) {
        var ch = 0
        while ch < channelCount {
            let other = min(ch + 1, channelCount - 1)
            let hissOut = (block.channel(ch).baseAddress! + offset, block.channel(other).baseAddress! + offset)
            let bodyOut = (block.channel(channelCount + ch).baseAddress! + offset,
                           block.channel(channelCount + other).baseAddress! + offset)
            let (p, q) = (s + ch * RainGenerator.stateSize, s + other * RainGenerator.stateSize)
            // A channel's state: the hiss's high-pass (0, 1) and low-pass (2, 3), the impact noise's high-pass (4, 5),
            // band-pass (6, 7) and low-pass (8, 9). Lanes: hiss of ch, hiss of other, impact of ch, impact of other.
            var firstIC1 = SIMD4(p[0], q[0], p[6], q[6]), firstIC2 = SIMD4(p[1], q[1], p[7], q[7])
            var secondIC1 = SIMD4(p[2], q[2], p[8], q[8]), secondIC2 = SIMD4(p[3], q[3], p[9], q[9])
            var lastIC1 = SIMD2(p[4], q[4]), lastIC2 = SIMD2(p[5], q[5])
            let first = noiseBank.first, second = noiseBank.second, last = noiseBank.last
            let isHiss = SIMD4<Int64>(0, 0, 1, 1) .== 0
            var done = 0
            while done < count {
                // The white noises first, scalar (as vectors, their 64-bit multiplies would be emulated).
                let m = min(count - done, RainGenerator.whiteFrames)
                for j in 0..<m {
                    let n = from + Int64(done + j)
                    white[4 * j] = NoiseGenerator.white(seed: noiseSeed, frame: n, channel: ch)
                    white[4 * j + 1] = NoiseGenerator.white(seed: noiseSeed, frame: n, channel: other)
                    white[4 * j + 2] = NoiseGenerator.white(seed: impactSeed, frame: n, channel: ch)
                    white[4 * j + 3] = NoiseGenerator.white(seed: impactSeed, frame: n, channel: other)
                }
                for j in 0..<m {
                    let x = UnsafeRawPointer(white + 4 * j).loadUnaligned(as: SIMD4<Double>.self)
                    // The hiss's high-pass and the impact noise's band-pass, then the low-passes of both.
                    let (band, low) = first.tick(x, &firstIC1, &firstIC2)
                    let highPassed = x - first.k * band - low, bandPassed = band * first.k
                    let (_, y) = second.tick(bandPassed.replacing(with: highPassed, where: isHiss), &secondIC1, &secondIC2)
                    hissOut.0[done + j] = Float(y[0])
                    hissOut.1[done + j] = Float(y[1])
                    // The impact noise: its rare peaks rounded, then the high-pass that removes what that adds low.
                    let thudLow = SIMD2(y[2], y[3])
                    let thud = thudLow / (SIMD2(repeating: 1) + thudLow * thudLow * kneeScale).squareRoot()
                    let (bb, bl) = last.tick(thud, &lastIC1, &lastIC2)
                    let body = thud - last.k * bb - bl
                    bodyOut.0[done + j] = Float(body[0])
                    bodyOut.1[done + j] = Float(body[1])
                }
                done += m
            }
            func store(_ st: UnsafeMutablePointer<Double>, lane: Int) {
                (st[0], st[1], st[2], st[3]) = (firstIC1[lane], firstIC2[lane], secondIC1[lane], secondIC2[lane])
                (st[6], st[7], st[8], st[9]) = (firstIC1[lane + 2], firstIC2[lane + 2], secondIC1[lane + 2], secondIC2[lane + 2])
                (st[4], st[5]) = (lastIC1[lane], lastIC2[lane])
            }
            store(q, lane: 1)
            store(p, lane: 0)
            ch += 2
        }
    }

    /// Calls `body` with each drop of slot `slot` in onset order (the slot's Poisson process, its gaps
    /// drawn from the hash of (seed, slot, index)): its onset frame, its index and its diameter in mm.
    @inline(__always)
    private func forEachDrop(inSlot slot: Int64, _ body: (Int64, Int, Double) -> Void) {
        let rate = perFrameRate * { $0 * $0 }(gust(slot))
        guard rate > 0 else { return }
        let slotStart = slot * slotFrames
        var t = Double(slotStart)
        for m in 0..<RainGenerator.maximumDropsPerSlot {
            let u = SeededRandom.unit(SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m), index: slot))
            t += -Double.log(1 - u) / rate                     // exponential gap: a Poisson process
            let onset = Int64(t.rounded(.down))                // the floor: slots before frame 0 too
            guard onset < slotStart + slotFrames else { return }
            let v = SeededRandom.unit(SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 3), index: slot))
            body(onset, m, min(0.5 - Double.log(1 - v) / lambda, RainGenerator.largestDiameter))   // Marshall-Palmer: exponential in D
        }
    }

    private func makeDrop(onset: Int64, slot: Int64, index m: Int, diameter: Double) -> Drop {
        let a = SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 1), index: slot)
        let b = SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 2), index: slot)
        let u1 = SeededRandom.unit(a), u2 = SeededRandom.unit(a << 26 | a >> 38), u3 = SeededRandom.unit(b), u4 = SeededRandom.unit(b << 26 | b >> 38)
        let isBubble = Double(a & 0xFFFF) < RainGenerator.bubbleShare * 65536
        let rate = Double(sampleRate)
        let tilt = _pow(2, brightness - 0.5)
        let hz = (isBubble ? RainGenerator.bubbleHz * _pow(RainGenerator.bubbleSpan, u1)
                             : RainGenerator.clickHz * _pow(RainGenerator.clickSpan, u1)) * tilt
        let cycles = isBubble ? 8 + 16 * u2 : 1 + 2 * u2
        let omega = 2 * Double.pi * min(hz, 0.45 * rate) / rate
        let tau = max(cycles / Double.pi / min(hz, 0.45 * rate) * rate, 0.5)     // Q = π·cycles: τ = Q/(π f)
        let level = dropGain * diameter * gain(fromDecibels: -RainGenerator.dropRange * u3) * ((b >> 20) & 1 == 0 ? 1 : -1)
                // Pan: 0 (left) ... π/2 (right), equal power, pushed towards the sides (u → 4u³ below ½) so the
        // channels stay decorrelated even where drops are louder than the bed.
        let side = u4 < 0.5 ? 4 * u4 * u4 * u4 : 1 - 4 * (1 - u4) * (1 - u4) * (1 - u4)
        let angle = side * 0.5 * Double.pi
        let r = _exp(-1 / tau)
        let life = min(Int64((6.9 * tau).rounded(.up)), maximumDropFrames)
        // z0 = level·(1 − rot)/|1 − rot|: the waveform sums to 0 (the first difference of a damped sine), so a
        // click has no DC and no lows.
        let (rotRe, rotIm) = (r * _cos(omega), r * _sin(omega))
        let (dRe, dIm) = (1 - rotRe, -rotIm)
        let norm = level / (dRe * dRe + dIm * dIm).squareRoot()
        return Drop(re: norm * dRe, im: norm * dIm, rotRe: rotRe, rotIm: rotIm,
                    left: _cos(angle), right: _sin(angle), next: onset, end: onset + life)
    }

    private func makeSplash(onset: Int64, slot: Int64, index m: Int, diameter: Double) -> Splash {
        let a = SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 1), index: slot)
        let b = SeededRandom.bits(seed: dropSeed, stream: UInt64(4 * m + 2), index: slot)
        let u2 = SeededRandom.unit(a << 26 | a >> 38), u3 = SeededRandom.unit(b), u4 = SeededRandom.unit(b << 26 | b >> 38)
        let size = min(diameter, RainGenerator.loudestDiameter) / RainGenerator.splashDiameter   // loudness saturates
        let level = _pow(size, RainGenerator.splashExponent) * gain(fromDecibels: -RainGenerator.splashRange * u3)
        let tau = (RainGenerator.splashTau.lowerBound + (RainGenerator.splashTau.upperBound - RainGenerator.splashTau.lowerBound) * u2) * Double(sampleRate)
        let angle = (0.5 + RainGenerator.splashWidth * (u4 - 0.5)) * 0.5 * Double.pi
        let life = min(Int64((6.9 * tau).rounded(.up)), maximumSplashFrames)
        // The envelope a·(e^(−n/τ) − e^(−n/τa)), τa = 3 ms: a thud's rise, and no step to spread the impact
        // noise's spectrum down to the lows.
        return Splash(level: level, decay: _exp(-1 / tau), rise: level, riseDecay: _exp(-1 / (RainGenerator.attackSeconds * Double(sampleRate))),
                      left: _cos(angle), right: _sin(angle),
                      next: onset, end: onset + life)
    }

    /// Adds splash `s`'s envelope from `s.next` to `min(s.end, end)` into `envelopes` (whose frame 0 is at
    /// `origin`), or only advances it when `write` is false.
    @inline(__always)
    private func play(_ s: inout Splash, until end: Int64, write: Bool, origin: Int64) {
        let stop = min(s.end, end)
        guard s.next < stop else { return }
        var e = s.level, f = s.rise
        let d = s.decay, fd = s.riseDecay
        let n = Int(stop - s.next)
        if write {
            let first = Int(s.next - origin)
            let l = envelopes + first, r = envelopes + RainGenerator.chunk + first
            for j in 0..<n {
                l[j] += (e - f) * s.left
                r[j] += (e - f) * s.right
                e *= d
                f *= fd
            }
        } else {
            for _ in 0..<n { e *= d; f *= fd }
        }
        s.level = e
        s.rise = f
        s.next = stop
    }

    /// The splashes' envelopes over frames [position, position + count) into `envelopes`.
    private func splashEnvelopes(count: Int, at position: Int64) {
        for j in 0..<(2 * RainGenerator.chunk) { envelopes[j] = 0 }
        let end = position + Int64(count)
        if nextSplashPosition != position {
            // Rebuild the pool: the splashes started in the last 0.8 s that still sound, each run from its onset.
            splashCount = 0
            let first = WarmStart.floorDiv(position - maximumSplashFrames, slotFrames)
            let last = WarmStart.floorDiv(position - 1, slotFrames)
            if first <= last {
                for slot in first...last {
                    forEachDrop(inSlot: slot) { onset, m, diameter in
                        guard diameter >= RainGenerator.splashDiameter else { return }
                        var s = makeSplash(onset: onset, slot: slot, index: m, diameter: diameter)
                        guard s.next < position && s.end > position && splashCount < splashCapacity else { return }
                        play(&s, until: position, write: false, origin: 0)
                        splashes[splashCount] = s
                        splashCount += 1
                    }
                }
            }
        }
        var kept = 0
        for k in 0..<splashCount {
            var s = splashes[k]
            play(&s, until: end, write: true, origin: position)
            if s.end > end { splashes[kept] = s; kept += 1 }
        }
        splashCount = kept
        for slot in WarmStart.floorDiv(position, slotFrames)...WarmStart.floorDiv(end - 1, slotFrames) {
            forEachDrop(inSlot: slot) { onset, m, diameter in
                guard diameter >= RainGenerator.splashDiameter, onset >= position && onset < end else { return }
                var s = makeSplash(onset: onset, slot: slot, index: m, diameter: diameter)
                play(&s, until: end, write: true, origin: position)
                if s.end > end && splashCount < splashCapacity { splashes[splashCount] = s; splashCount += 1 }
            }
        }
        nextSplashPosition = end
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
            // Rebuild the pool: the drops started in the last 30 ms that still sound, each run from its onset.
            dropCount = 0
            let first = WarmStart.floorDiv(position - maximumDropFrames, slotFrames)
            let last = WarmStart.floorDiv(position - 1, slotFrames)
            if first <= last {
                for slot in first...last {
                    forEachDrop(inSlot: slot) { onset, m, diameter in
                        guard diameter < RainGenerator.splashDiameter else { return }
                        var d = makeDrop(onset: onset, slot: slot, index: m, diameter: diameter)
                        guard d.next < position && d.end > position && dropCount < dropCapacity else { return }
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
            forEachDrop(inSlot: slot) { onset, m, diameter in
                guard diameter < RainGenerator.splashDiameter, onset >= position && onset < end else { return }
                var d = makeDrop(onset: onset, slot: slot, index: m, diameter: diameter)
                play(&d, until: end, into: block, offset: offset, origin: position)
                if d.end > end && dropCount < dropCapacity { drops[dropCount] = d; dropCount += 1 }
            }
        }
        nextDropPosition = end
    }
}
