/// A look-ahead peak limiter: no sample leaves above the ceiling, and the gain never jumps. In true-peak
/// mode, no value between samples either, as a 4x oversampling meter (BS.1770-4, Annex 2) sees them.
///
/// For each frame the gain it needs is r = min(1, ceiling / peak) (channels linked), where the peak is
/// the frame's largest |sample| (`.samplePeak`), or the largest |value| of the sample and the three
/// values interpolated after it (`.truePeak`, a `TruePeakDetector`, whose values come D = 12 frames late).
/// The limiter delays the audio by `latency` = L + S + D frames (L the look-ahead; S = D = 12 in
/// true-peak mode, 0 otherwise) and
///   1. takes the minimum of r over the L + 1 + 2S frames ahead (so it sees every peak L + S frames
///      early, and holds it S frames after),
///   2. lets the gain recover towards that minimum with the release time constant (it falls at once),
///   3. smooths the result with an (L + 1)-frame moving average: the gain ramps down over L frames.
/// Every value in the average is at most the need of every frame within S frames of the frame being
/// output, so the average is too: the output never exceeds the ceiling (a final clamp guards samples
/// against rounding, and is counted). In true-peak mode the gain is the same on all the input frames an
/// interpolated value depends on (within S of it) wherever that value sets the gain, so the output's
/// value there is the input's times that gain: at the ceiling. What the detector's filter and an ideal
/// interpolator disagree on (at most 0.0011, 0.01 dB, for content up to 20 kHz at 48 kHz) is what an
/// ideal 4x meter can read above the ceiling (the tests measure 0.006 dB at most, LimiterTruePeakTests).
/// All memory is allocated in `init`.
///
/// Layout: a delay line (an `AudioBlock` of `latency` frames), the sliding minimum's two rings of
/// L + 2 + 2S values and frames, the moving average's ring of L + 1 `Double`s, in true-peak mode a
/// `TruePeakDetector` and its values for one chunk of 256 frames, and scalar state and statistics. `process` allocates nothing. Not thread-safe:
/// one thread at a time (the render thread).
public final class Limiter {
    /// What the limiter keeps under the ceiling.
    /// A plain enum value (`Sendable`); allocates nothing.
    public enum Detection: String, Sendable, CaseIterable {
        /// Every sample.
        case samplePeak
        /// Every sample and the values a 4x oversampling interpolator puts between samples (`TruePeakDetector`).
        case truePeak
    }

    public let channelCount: Int
    public let ceiling: Float
    public let detection: Detection
    /// Frames of delay between input and output: the look-ahead, plus 24 frames in true-peak mode (the
    /// detector's 12 and the 12 the gain is held for around an inter-sample peak).
    public let latency: Int
    /// The look-ahead in frames: how long the gain ramps down before a peak.
    public let lookahead: Int
    private let releaseCoefficient: Double
    // The detector (true-peak mode) and its values for the chunk being limited (`TruePeakDetector.chunkFrames`),
    // and the frames by which the gain's hold extends either side of a peak.
    private let detector: TruePeakDetector?
    private let truePeaks: UnsafeMutablePointer<Float>
    private let hold: Int
    // Frames of the sliding minimum (lookahead + 1 + 2 hold) and of the moving average (lookahead + 1).
    private let minimumWindow: Int
    private let averageWindow: Int

    // Delay line, per channel: a ring of `latency` frames (read the oldest, then write the newest).
    private let delay: AudioBlock
    private var delayIndex = 0
    // Sliding-window minimum of the needed gain over the last `minimumWindow` frames (monotonic deque).
    private let dequeValues: UnsafeMutablePointer<Float>
    private let dequeFrames: UnsafeMutablePointer<Int64>
    private var dequeHead = 0, dequeCount = 0
    private var frame: Int64 = 0
    // Released envelope and its moving average.
    private var released: Double = 1
    private let averageRing: UnsafeMutablePointer<Double>
    private var averageIndex = 0
    private var averageSum: Double
    // Frames in a row (up to `averageWindow`) after which the held gain was 1 and `released` did not
    // move: once a whole average window long, the ring holds `released` only (and the sliding minimum,
    // whose minimum is 1, holds only 1s).
    private var settledFrames: Int

    /// The input frames (counted from the first frame processed) whose statistics count; the gain
    /// statistics follow the output, `latency` frames later. Everything, unless narrowed.
    public var statisticsWindow: Range<Int64> = 0..<Int64.max

    // Statistics over `statisticsWindow`.
    /// Largest sample seen at the input, before limiting (the sample peak, in either mode).
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

    /// A limiter to `ceilingDb` (dBFS; dBTP in true-peak mode), ramping down over `lookaheadMs`, recovering
    /// with the time constant `releaseMs`.
    public init(channelCount: Int, sampleRate: Int, ceilingDb: Double, lookaheadMs: Double, releaseMs: Double,
                detection: Detection = .samplePeak) {
        self.channelCount = channelCount
        self.ceiling = Float(gain(fromDecibels: ceilingDb))
        self.detection = detection
        self.lookahead = max(1, Int((lookaheadMs * Double(sampleRate) / 1000).rounded()))
        switch detection {
        case .samplePeak: detector = nil; hold = 0
        case .truePeak: detector = TruePeakDetector(channelCount: channelCount); hold = TruePeakDetector.supportRadius
        }
        self.latency = lookahead + hold + (detector?.latency ?? 0)
        // one-pole release: e += (target - e) * (1 - exp(-1 / (T * fs)))
        self.releaseCoefficient = 1 - _exp(-1 / (releaseMs / 1000 * Double(sampleRate)))
        minimumWindow = lookahead + 1 + 2 * hold
        averageWindow = lookahead + 1
        delay = AudioBlock(channelCount: channelCount, capacity: latency)
        dequeValues = .allocate(capacity: minimumWindow + 1)
        dequeFrames = .allocate(capacity: minimumWindow + 1)
        averageRing = .allocate(capacity: averageWindow)
        averageRing.initialize(repeating: 1, count: averageWindow)
        averageSum = Double(averageWindow)
        settledFrames = averageWindow
        truePeaks = .allocate(capacity: detector == nil ? 1 : TruePeakDetector.chunkFrames)
    }

    deinit {
        dequeValues.deallocate(); dequeFrames.deallocate(); averageRing.deallocate(); truePeaks.deallocate()
    }

    /// The largest gain reduction applied so far, in dB (0 or positive).
    public var maximumReductionDb: Double { -decibels(fromGain: Double(minimumGain)) }

    /// Limits `count` frames of `block` starting at `offset`, in place. The output is the input
    /// delayed by `latency` frames (the first `latency` frames out are the silence it started with).
    public func process(_ block: AudioBlock, offset: Int = 0, count: Int) {
        if count > 0 && passThrough(block, offset: offset, count: count) { return }
        guard let detector else { limit(block, offset: offset, count: count, truePeaks: nil); return }
        // The detector reads each chunk before it is limited in place. Only values above the ceiling need a gain:
        // the detector leaves out frames that cannot have one (0 for them, which needs none, as their values would).
        var done = 0
        while done < count {
            let m = min(TruePeakDetector.chunkFrames, count - done)
            detector.process(block, offset: offset + done, count: m, peaks: truePeaks, above: ceiling)
            limit(block, offset: offset + done, count: m, truePeaks: truePeaks)
            done += m
        }
    }

    /// The loop: frames [offset, offset + count) of `block`, in place; `truePeaks[i]` is the detector's
    /// value at frame offset + i (true-peak mode), or nil (sample-peak mode).
    private func limit(_ block: AudioBlock, offset: Int, count: Int, truePeaks: UnsafeMutablePointer<Float>?) {
        let window = averageWindow
        let capacity = minimumWindow + 1
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
            // Needed gain of the incoming frame (true peak: of the interval `detector.latency` frames before it).
            var peak: Float = 0
            for c in 0..<channelCount { peak = max(peak, abs(block.channel(c)[offset + i])) }
            if statistics.contains(frame) { inputPeak = max(inputPeak, peak) }
            let detected = truePeaks?[i] ?? peak
            let need: Float = detected > ceiling ? ceiling / detected : 1

            // Sliding minimum over the last `minimumWindow` frames. (Ring indices wrap by comparison: head and
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
            if dequeFrames[dequeHead] <= frame - Int64(minimumWindow) {
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

    /// The idle fast path. While the limiter is settled (for a whole average window the held gain was 1
    /// and the release did not move, so the average's ring holds one value and the sliding minimum only
    /// 1s) and no frame of the block needs limiting, every step of the loop above leaves the gain state
    /// as it was, the gain it applies is the same for every frame, and here that gain is exactly 1: the
    /// block only passes through the delay line. Does that and returns true, with the state and
    /// statistics the loop would have left, bit for bit; returns false, changing nothing, otherwise.
    /// In true-peak mode no interpolated value is computed: the values completed in this block depend
    /// on the detector's history and the block only, and stay below their largest |sample| times the
    /// detector's `gainBound` (2.29, with 1e-4 to spare for Float rounding); when that is at most
    /// the ceiling every need is 1, and the detector only takes the block into its history.
    private func passThrough(_ block: AudioBlock, offset: Int, count: Int) -> Bool {
        let window = averageWindow
        guard settledFrames >= window,
              released + (1 - released) * releaseCoefficient == released,
              Float(min(1, averageSum / Double(window))) == 1 else { return false }
        // Needs: every frame's is 1 unless its peak is above the ceiling (NaN samples are ignored, as above).
        var peak: Float = 0
        for c in 0..<channelCount { peak = max(peak, Kernels.peak(block.channel(c).baseAddress! + offset, count: count)) }
        if let detector {
            if max(peak, detector.historyPeak) * (detector.gainBound * 1.0001) > ceiling { return false }
            detector.advance(block, offset: offset, count: count)
        } else if peak > ceiling {
            return false
        }

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
        // slot); the average's ring entries it overwrote equalled `released`, so the sum did not move.
        dequeValues[dequeHead] = 1
        dequeFrames[dequeHead] = end - 1
        dequeCount = 1
        averageIndex = (averageIndex + count) % window
        frame = end
        return true
    }
}
