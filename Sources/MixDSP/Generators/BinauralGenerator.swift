import RealModule

/// A binaural beat: one carrier in both ears, the left ear half a beat below it and the right half a beat
/// above, so the two differ by the beat at every instant, and the beat follows a `RateSchedule`:
///
///   B(n)     = beat.cycles(at: n)                          (the beat's phase, in cycles; read by a
///                                                           `RateSchedule.Reader`: exact at anchors 64
///                                                           frames apart, linear between, on ramps)
///   left(n)  = A · sin(2π · (fc · n / rate − B(n) / 2))
///   right(n) = A · sin(2π · (fc · n / rate + B(n) / 2))
///
/// so the right ear runs at fc + beat/2 Hz and the left at fc − beat/2, their difference is beat(n), and both
/// are phase-continuous through every point of the schedule (the phase is an integral; a step in the beat
/// is a step in frequency only). Every sample comes from its own position (and the reader's fixed anchors), never from an accumulated phase,
/// so any block size and any partial render give bit-identical samples. Precision: each phase is formed in
/// Double and reduced to [0, 1) before it goes to Float (see `ToneGenerator` and `RateSchedule`): after
/// 8 hours of a 200 Hz carrier the phase is within 1e-9 of a cycle.
///
/// Layout: no buffers; channel 0 is the left ear, channel 1 the right. `render` allocates nothing. It has
/// no mutable state, so one generator may render from several threads at once.
public final class BinauralGenerator: FrameSource {
    public let carrierHz: Double
    public let beat: RateSchedule
    public let sampleRate: Int
    /// Peak amplitude of each ear (linear).
    public let amplitude: Float
    public var channelCount: Int { 2 }
    public var frameCount: Int64? { nil }
    /// fc / rate: carrier cycles per frame.
    private let increment: Double

    public init(carrierHz: Double, beat: RateSchedule, sampleRate: Int, amplitude: Float) {
        precondition(sampleRate > 0 && beat.sampleRate == sampleRate, "a binaural beat's schedule must be at its sample rate")
        precondition(carrierHz.isFinite && beat.maximumHz < carrierHz, "a binaural beat must stay below its carrier")
        precondition(carrierHz + beat.maximumHz / 2 < Double(sampleRate) / 2, "a binaural carrier must lie below half the sample rate")
        precondition(amplitude.isFinite, "a binaural beat's amplitude must be finite")
        self.carrierHz = carrierHz
        self.beat = beat
        self.sampleRate = sampleRate
        self.amplitude = amplitude
        increment = carrierHz / Double(sampleRate)
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let left = block.channel(0).baseAddress! + offset, right = block.channel(1).baseAddress! + offset
        let a = amplitude
        var reader = RateSchedule.Reader(beat, at: position)
        var i = 0
        while i < count {
            // Over one anchored stretch both ears' phases are straight lines in the frame: from the stretch's
            // first frame `lo`, left(lo + k) = (fc lo / rate − B(lo)/2) + k (fc / rate − slope/2), and the
            // right the same with +. Their whole cycles are dropped in Double once per stretch; the rest is
            // Float, four frames at a time.
            let n = position + Int64(i)
            let s = reader.stretch(at: n)
            let count = min(count - i, Int(s.hi - n)), first = Int(n - s.lo)
            let carrier = Double(s.lo) * increment, half = s.start / 2
            let baseL = cycleFraction(carrier - half), stepL = Float(increment - s.slope / 2)
            let baseR = cycleFraction(carrier + half), stepR = Float(increment + s.slope / 2)
            // y = A sin(2π (fc n / rate ∓ B(n) / 2)), by `sinCycles` (phases below 2 cycles here): four frames at a
            // time (the same bits as one at a time), then the rest one by one. k counts frames in Float, exactly
            // (a stretch is at most 64 frames).
            var j = 0
            var k = SIMD4<Float>(0, 1, 2, 3) + Float(first)
            while j + 4 <= count {
                UnsafeMutableRawPointer(left + i + j).storeBytes(of: a * sinCycles(baseL + k * stepL), as: SIMD4<Float>.self)
                UnsafeMutableRawPointer(right + i + j).storeBytes(of: a * sinCycles(baseR + k * stepR), as: SIMD4<Float>.self)
                k += 4
                j += 4
            }
            while j < count {
                let k = Float(first + j)
                left[i + j] = a * sinCycles(baseL + k * stepL)
                right[i + j] = a * sinCycles(baseR + k * stepR)
                j += 1
            }
            i += count
        }
    }
}
