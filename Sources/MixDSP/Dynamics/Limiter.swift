/// A look-ahead peak limiter: no sample leaves above the ceiling, and the gain never jumps.
///
/// For each frame the gain it needs is r = min(1, ceiling / peak) (channels linked). The limiter
/// delays the audio by `latency` = L frames and
///   1. takes the minimum of r over the L + 1 frames ahead (so it sees every peak L frames early),
///   2. lets the gain recover towards that minimum with the release time constant (it falls at once),
///   3. smooths the result with an (L + 1)-frame moving average: the gain ramps down over L frames.
/// Every value in the average is at most the need of the frame being output, so the average is too:
/// the output never exceeds the ceiling (a final clamp guards against rounding, and is counted).
/// All memory is allocated in `init`.
///
/// Layout: a delay line (an `AudioBlock` of `latency` frames), the sliding minimum's two rings of
/// L + 2 values and frames, the moving average's ring of L + 1 `Double`s, and scalar state and
/// statistics. `process` allocates nothing. Not thread-safe: one thread at a time (the render thread).
public final class Limiter {
    public let channelCount: Int
    public let ceiling: Float
    /// Frames of delay between input and output.
    public let latency: Int
    private let releaseCoefficient: Double

    // Delay line, per channel: a ring of `latency` frames (read the oldest, then write the newest).
    private let delay: AudioBlock
    private var delayIndex = 0
    // Sliding-window minimum of the needed gain over the last latency + 1 frames (monotonic deque).
    private let dequeValues: UnsafeMutablePointer<Float>
    private let dequeFrames: UnsafeMutablePointer<Int64>
    private var dequeHead = 0, dequeCount = 0
    private var frame: Int64 = 0
    // Released envelope and its moving average.
    private var released: Double = 1
    private let averageRing: UnsafeMutablePointer<Double>
    private var averageIndex = 0
    private var averageSum: Double
    // Frames in a row (up to a window) after which the held gain was 1 and `released` did not move:
    // once a whole window long, the ring holds `released` only and the sliding minimum only 1s.
    private var settledFrames: Int

    /// The input frames (counted from the first frame processed) whose statistics count; the gain
    /// statistics follow the output, `latency` frames later. Everything, unless narrowed.
    public var statisticsWindow: Range<Int64> = 0..<Int64.max

    // Statistics over `statisticsWindow`.
    /// Largest sample seen at the input, before limiting.
    public private(set) var inputPeak: Float = 0
    /// Smallest gain applied (1 = the limiter never acted).
    public private(set) var minimumGain: Float = 1
    /// Frames the limiter turned down by more than 0.01 dB (the release approaches unity only
    /// asymptotically, so a strict `g < 1` would count seconds of inaudible recovery).
    public private(set) var limitedFrames: Int64 = 0
    /// Samples the final safety clamp had to touch (expected 0).
    public private(set) var clampedSamples: Int64 = 0

    /// -0.01 dB: below this gain a frame counts as limited.
    static let audibleGain: Float = 0.998849

    public init(channelCount: Int, sampleRate: Int, ceilingDb: Double, lookaheadMs: Double, releaseMs: Double) {
        self.channelCount = channelCount
        self.ceiling = Float(gain(fromDecibels: ceilingDb))
        self.latency = max(1, Int((lookaheadMs * Double(sampleRate) / 1000).rounded()))
        // one-pole release: e += (target - e) * (1 - exp(-1 / (T * fs)))
        self.releaseCoefficient = 1 - _exp(-1 / (releaseMs / 1000 * Double(sampleRate)))
        let window = latency + 1
        delay = AudioBlock(channelCount: channelCount, capacity: latency)
        dequeValues = .allocate(capacity: window + 1)
        dequeFrames = .allocate(capacity: window + 1)
        averageRing = .allocate(capacity: window)
        averageRing.initialize(repeating: 1, count: window)
        averageSum = Double(window)
        settledFrames = window
    }

    deinit {
        dequeValues.deallocate(); dequeFrames.deallocate(); averageRing.deallocate()
    }

    /// The largest gain reduction applied so far, in dB (0 or positive).
    public var maximumReductionDb: Double { -decibels(fromGain: Double(minimumGain)) }

    /// Limits `count` frames of `block` starting at `offset`, in place. The output is the input
    /// delayed by `latency` frames (the first `latency` frames out are the silence it started with).
    public func process(_ block: AudioBlock, offset: Int = 0, count: Int) {
        if count > 0 && passThrough(block, offset: offset, count: count) { return }
        let window = latency + 1
        let capacity = window + 1
        // The public properties in locals for the loop: every access to a public stored property costs
        // a dynamic exclusivity check (swift_beginAccess), seven per frame here (measured: 30 -> 18 ns).
        let statistics = statisticsWindow
        var inputPeak = self.inputPeak, minimumGain = self.minimumGain
        var limitedFrames = self.limitedFrames, clampedSamples = self.clampedSamples
        defer {
            self.inputPeak = inputPeak; self.minimumGain = minimumGain
            self.limitedFrames = limitedFrames; self.clampedSamples = clampedSamples
        }
        for i in 0..<count {
            // Needed gain of the incoming frame.
            var peak: Float = 0
            for c in 0..<channelCount { peak = max(peak, abs(block.channel(c)[offset + i])) }
            if statistics.contains(frame) { inputPeak = max(inputPeak, peak) }
            let need: Float = peak > ceiling ? ceiling / peak : 1

            // Sliding minimum over the last `window` frames. (Ring indices wrap by comparison: head and
            // count are below `capacity`, so one subtraction does what `%` did, without a division.)
            while dequeCount > 0 {
                var back = dequeHead + dequeCount - 1
                if back >= capacity { back -= capacity }
                guard dequeValues[back] >= need else { break }
                dequeCount -= 1
            }
            var slot = dequeHead + dequeCount
            if slot >= capacity { slot -= capacity }
            dequeValues[slot] = need
            dequeFrames[slot] = frame
            dequeCount += 1
            if dequeFrames[dequeHead] <= frame - Int64(window) {
                dequeHead += 1
                if dequeHead == capacity { dequeHead = 0 }
                dequeCount -= 1
            }
            let held = Double(dequeValues[dequeHead])

            // Falls at once, recovers with the release time constant.
            let previous = released
            released = held < released ? held : released + (held - released) * releaseCoefficient
            settledFrames = held == 1 && released == previous ? min(settledFrames + 1, window) : 0

            // Moving average over the window.
            averageSum += released - averageRing[averageIndex]
            averageRing[averageIndex] = released
            averageIndex += 1
            if averageIndex == window { averageIndex = 0 }
            let g = Float(min(1, averageSum / Double(window)))
            if g < 1 && statistics.contains(frame - Int64(latency)) {
                minimumGain = min(minimumGain, g)
                if g < Limiter.audibleGain { limitedFrames += 1 }
            }

            // Output the delayed frame.
            for c in 0..<channelCount {
                let ch = block.channel(c)
                let line = delay.channel(c)
                let delayed = line[delayIndex]
                line[delayIndex] = ch[offset + i]
                var y = delayed * g
                if y > ceiling { y = ceiling; clampedSamples += 1 } else if y < -ceiling { y = -ceiling; clampedSamples += 1 }
                ch[offset + i] = y
            }
            delayIndex += 1
            if delayIndex == latency { delayIndex = 0 }
            frame += 1
        }
    }

    /// The idle fast path. While the limiter is settled (for a whole window the held gain was 1 and the
    /// release did not move, so the average's ring holds one value and the sliding minimum only 1s) and
    /// no frame of the block needs limiting, every step of the loop above leaves the gain state as it
    /// was, the gain it applies is the same for every frame, and here that gain is exactly 1: the block
    /// only passes through the delay line. Does that and returns true, with the state and statistics
    /// the loop would have left, bit for bit; returns false, changing nothing, otherwise.
    private func passThrough(_ block: AudioBlock, offset: Int, count: Int) -> Bool {
        let window = latency + 1
        guard settledFrames >= window,
              released + (1 - released) * releaseCoefficient == released,
              Float(min(1, averageSum / Double(window))) == 1 else { return false }
        // Needs: every frame's is 1 unless its peak is above the ceiling (NaN samples are ignored, as above).
        var peak: Float = 0
        for c in 0..<channelCount { peak = max(peak, Kernels.peak(block.channel(c).baseAddress! + offset, count: count)) }
        if peak > ceiling { return false }

        let end = frame + Int64(count)
        if statisticsWindow.lowerBound <= frame && end <= statisticsWindow.upperBound {
            inputPeak = max(inputPeak, peak)
        } else {
            let first = max(frame, statisticsWindow.lowerBound), last = min(end, statisticsWindow.upperBound)
            if first < last {
                for c in 0..<channelCount {
                    let p = block.channel(c).baseAddress! + offset + Int(first - frame)
                    inputPeak = max(inputPeak, Kernels.peak(p, count: Int(last - first)))
                }
            }
        }
        // Output the frame from `latency` ago, keep the new one: swap the block with the ring, run by run.
        for c in 0..<channelCount {
            let samples = block.channel(c).baseAddress! + offset
            let line = delay.channel(c).baseAddress!
            var i = 0, d = delayIndex
            while i < count {
                let run = min(count - i, latency - d)
                for k in 0..<run {
                    let x = samples[i + k]
                    samples[i + k] = line[d + k]
                    line[d + k] = x
                }
                i += run; d += run
                if d == latency { d = 0 }
            }
        }
        delayIndex = (delayIndex + count) % latency
        // What the loop leaves: the sliding minimum holds the newest frame alone (at 1, in the head's
        // slot); the ring entries it overwrote equalled `released`, so the sum did not move.
        dequeValues[dequeHead] = 1
        dequeFrames[dequeHead] = end - 1
        dequeCount = 1
        averageIndex = (averageIndex + count) % window
        frame = end
        return true
    }
}
