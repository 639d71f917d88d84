/// Integrated loudness per ITU-R BS.1770-4 (EBU R128), for the engine's measuring passes: the K-weighting
/// filter (a high shelf and a high-pass, as BS.1770 gives them at 48 kHz, designed for any rate the way
/// libebur128 does), the mean square of every 400 ms block on a 100 ms hop, and the two gates (-70 LUFS
/// absolute, 10 LU under the ungated mean relative).
///
/// libebur128 (in MixIO) measures everything the user sees; this one exists because a normalising pass
/// measures a whole render before it is written, and libebur128's filter (one sample at a time, in a
/// general 4th-order form) cost as much as mixing the render. Here the two biquads run on both channels of
/// a stereo frame at once (`SIMD2<Double>`, transposed direct form II). Tests hold the two within 0.06 LU.
/// It also gives the loudness range and the momentary and short-term maxima, for the render summary.
///
/// Layout: the filter's coefficients and state (two stages, two `SIMD2<Double>` each), the running sums of
/// the current 100 ms hop, the last 30 hops' powers (a ring: a 400 ms block is four hops, a 3 s short-term window
/// thirty), and the gates' histograms (`LoudnessGate`, `LoudnessRange`: 240 KB, made in `init`). Memory does not
/// grow with the programme's length: 8 hours take what 8 seconds take. `add` allocates nothing. Not thread-safe:
/// one thread at a time; measure parts of a render on separate threads with separate meters and
/// `integrated(combining:)`.
public final class GatedLoudness {
    public let channelCount: Int
    public let sampleRate: Int
    private let hop: Int
    // Stage 1 (shelf) and stage 2 (high-pass): b0 b1 b2 a1 a2.
    private let shelf: (b0: Double, b1: Double, b2: Double, a1: Double, a2: Double)
    private let highPass: (b0: Double, b1: Double, b2: Double, a1: Double, a2: Double)
    /// Per channel pair, two entries: the shelf's s1 and s2, then the high-pass's, each for both channels.
    private var state: [SIMD4<Double>]
    /// Per channel pair, the sum of squares of the current hop so far.
    private var hopSums: [SIMD2<Double>]
    private var inHop = 0
    /// The last 30 complete hops' weighted mean squares, a ring (the oldest at `hopsSeen % 30`), and how many
    /// hops have ended.
    private var recentHops = [Double](repeating: 0, count: 30)
    private var hopsSeen = 0
    /// The running sums of the last 4 hops' powers (a gating block) and the last 30 (a short-term window): each new
    /// hop added and the one leaving taken off.
    private var blockSum = 0.0, shortTermSum = 0.0
    /// The blocks so far, gated (`LoudnessGate`); the short-term values for the loudness range; the loudest
    /// short-term window's power.
    private var gate = LoudnessGate()
    private var shortTerms = LoudnessRange()
    private var loudestShortTermPower = 0.0
    /// The weighted sum of squares of every completed hop, and the frames in them.
    private var allEnergy = 0.0
    private var allFrames = 0
    /// The momentary loudness is read every 10 ms (a tenth of a hop: Tech 3341's case 13, 400 ms bursts 20 ms
    /// apart, is read up to 0.58 LU low every 100 ms): the weighted energy and frames of the last 40 tenths, a ring,
    /// and their sums; the hop's energy at its last tenth; and the loudest 400 ms so far, as a power.
    private var tenthEnergies = [Double](repeating: 0, count: 40)
    private var tenthFrames = [Int](repeating: 0, count: 40)
    private var tenthIndex = 0, tenthsSeen = 0
    private var windowEnergy = 0.0, windowFrames = 0
    private var energyAtLastTenth = 0.0, framesAtLastTenth = 0, tenthInHop = 0
    private var loudestMomentaryPower = 0.0

    public init(channelCount: Int, sampleRate: Int) {
        precondition(channelCount > 0 && sampleRate > 0)
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        hop = max(10, sampleRate / 10)
        let fs = Double(sampleRate)
        // Stage 1: the head's high shelf, +4 dB above about 1.7 kHz.
        do {
            let f0 = 1681.974450955533, gainDb = 3.999843853973347, q = 0.7071752369554196
            let k = _tan(Double.pi * f0 / fs)
            let vh = _pow(10, gainDb / 20), vb = _pow(vh, 0.4996667741545416)
            let kk: Double = k * k, kq: Double = k / q
            let a0: Double = 1 + kq + kk
            let b0: Double = (vh + vb * kq + kk) / a0
            let b1: Double = 2 * (kk - vh) / a0
            let b2: Double = (vh - vb * kq + kk) / a0
            let a1: Double = 2 * (kk - 1) / a0
            let a2: Double = (1 - kq + kk) / a0
            shelf = (b0, b1, b2, a1, a2)
        }
        // Stage 2: the RLB high-pass at about 38 Hz (its numerator is 1, -2, 1, unnormalised, as in BS.1770).
        do {
            let f0 = 38.13547087602444, q = 0.5003270373238773
            let k = _tan(Double.pi * f0 / fs)
            let kk: Double = k * k, kq: Double = k / q
            let a0: Double = 1 + kq + kk
            let a1: Double = 2 * (kk - 1) / a0
            let a2: Double = (1 - kq + kk) / a0
            highPass = (1, -2, 1, a1, a2)
        }
        weights = ChannelLayout.loudnessWeights(channelCount: channelCount)
        let pairs = (channelCount + 1) / 2
        state = [SIMD4<Double>](repeating: .zero, count: 2 * pairs)
        hopSums = [SIMD2<Double>](repeating: .zero, count: pairs)
    }

    /// BS.1770's channel weights, by where `ChannelLayout` places each channel: 1 at the front, 0 for the LFE,
    /// 1.41 for the surrounds.
    private let weights: [Double]

    /// Adds frames `[offset, offset + count)` of a planar block.
    public func add(_ block: AudioBlock, offset: Int, count: Int) {
        precondition(block.channelCount == channelCount, "the block's channels must match the meter's")
        var done = 0
        while done < count {
            let nextTenth = (tenthInHop + 1) * hop / 10   // the tenths end at k hop / 10 frames into the hop
            let run = min(count - done, nextTenth - inHop)
            for pair in 0..<hopSums.count {
                let left = block.channel(2 * pair).baseAddress! + offset + done
                let right = 2 * pair + 1 < channelCount ? block.channel(2 * pair + 1).baseAddress! + offset + done : nil
                filter(pair: pair, left: left, right: right, count: run)
            }
            done += run
            inHop += run
            if inHop >= nextTenth { endTenth() }
            if inHop == hop { endHop() }
        }
    }

    /// The weighted energy of the hop so far.
    private var hopEnergy: Double {
        var energy = 0.0
        for pair in 0..<hopSums.count {
            energy += weights[2 * pair] * hopSums[pair][0]
            if 2 * pair + 1 < channelCount { energy += weights[2 * pair + 1] * hopSums[pair][1] }
        }
        return energy
    }

    /// A tenth of a hop ends: the 400 ms window moves on by it, and its momentary loudness is read.
    private func endTenth() {
        let energy = hopEnergy, frames = inHop
        let tenth = energy - energyAtLastTenth, tenthLength = frames - framesAtLastTenth
        tenthInHop += 1
        (energyAtLastTenth, framesAtLastTenth) = (energy, frames)
        if tenthInHop == 10 { (energyAtLastTenth, framesAtLastTenth, tenthInHop) = (0, 0, 0) }
        windowEnergy += tenth - tenthEnergies[tenthIndex]
        windowFrames += tenthLength - tenthFrames[tenthIndex]
        tenthEnergies[tenthIndex] = tenth
        tenthFrames[tenthIndex] = tenthLength
        tenthIndex = (tenthIndex + 1) % tenthEnergies.count
        tenthsSeen += 1
        if tenthsSeen >= tenthEnergies.count, windowFrames > 0 {
            loudestMomentaryPower = max(loudestMomentaryPower, max(0, windowEnergy) / Double(windowFrames))
        }
    }

    /// Both biquads over `count` frames of one channel pair (the right one silent when there is none),
    /// adding the squares of the result to the pair's hop sum.
    private func filter(pair: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>?, count: Int) {
        let (b0, b1, b2, a1, a2) = shelf
        let (c0, c1, c2, d1, d2) = highPass
        var s = state[2 * pair], h = state[2 * pair + 1]
        var s1 = SIMD2(s[0], s[1]), s2 = SIMD2(s[2], s[3]), h1 = SIMD2(h[0], h[1]), h2 = SIMD2(h[2], h[3])
        var sum = hopSums[pair]
        for i in 0..<count {
            let x = SIMD2(Double(left[i]), right.map { Double($0[i]) } ?? 0)
            let y = b0 * x + s1
            s1 = b1 * x - a1 * y + s2
            s2 = b2 * x - a2 * y
            let z = c0 * y + h1
            h1 = c1 * y - d1 * z + h2
            h2 = c2 * y - d2 * z
            sum += z * z
        }
        s = SIMD4(s1[0], s1[1], s2[0], s2[1]); h = SIMD4(h1[0], h1[1], h2[0], h2[1])
        state[2 * pair] = s; state[2 * pair + 1] = h
        hopSums[pair] = sum
    }

    private func endHop() {
        let energy = hopEnergy
        for pair in 0..<hopSums.count { hopSums[pair] = .zero }
        allEnergy += energy
        allFrames += hop
        inHop = 0
        let power = energy / Double(hop)
        let slot = hopsSeen % recentHops.count
        // The hop that leaves the 4-hop block and the one that leaves the 30-hop window (the ring holds 30).
        let leavingBlock = recentHops[(hopsSeen + recentHops.count - 4) % recentHops.count]
        let leavingWindow = recentHops[slot]
        recentHops[slot] = power
        hopsSeen += 1
        // Until a window is full the hop leaving it is the ring's initial zero, so one rule serves from the start.
        blockSum += power - leavingBlock
        shortTermSum += power - leavingWindow
        if hopsSeen >= 4 { gate.add(power: max(0, blockSum) / 4) }
        if hopsSeen >= 30 {
            let shortTerm = max(0, shortTermSum) / 30
            shortTerms.add(power: shortTerm)
            loudestShortTermPower = max(loudestShortTermPower, shortTerm)
        }
    }

    /// The loudest momentary (400 ms, read every 10 ms) and short-term (3 s, every 100 ms) loudness, in LUFS;
    /// -infinity when shorter.
    public var momentaryMax: Double { Self.lufs(loudestMomentaryPower) }
    public var shortTermMax: Double { Self.lufs(loudestShortTermPower) }

    /// Loudness range (EBU Tech 3342, `LoudnessRange`), in LU, of the short-term loudness every 100 ms once the
    /// first 3 s have passed. 0 when there is too little to measure.
    public var range: Double { shortTerms.value }

    static func lufs(_ power: Double) -> Double { LoudnessHistogram.lufs(power: power) }

    /// Integrated loudness in LUFS of the blocks of several meters taken as one programme (parts of one
    /// render): -infinity when no block passes the absolute gate.
    public static func integrated(combining meters: [GatedLoudness]) -> Double {
        var gate = LoudnessGate()
        for meter in meters { gate.add(meter.gate) }
        return gate.integrated
    }

    public var integrated: Double { gate.integrated }

    /// The K-weighted loudness of everything added, without gates (as a momentary reading over the whole
    /// programme): for a sound shorter than one 400 ms block, which has no integrated loudness.
    public var ungated: Double {
        let energy = allEnergy + hopEnergy
        let frames = allFrames + inHop
        return frames > 0 && energy > 0 ? -0.691 + 10 * _log10(energy / Double(frames)) : -.infinity
    }
}
