/// Reduces a stream of samples to columns of `samplesPerPixel` frames for one zoom level: per output
/// channel the lowest sample, the highest, and the RMS, sqrt(Σ x² / n).
///
/// Closed columns wait in a ring until their spectral values are known (`SpectralColumnResolver`
/// finishes a column up to N/2 + H frames after it ends, H = N/2 the hop); `release` frees the oldest.
/// All memory is allocated in `init`.
///
/// Layout: a ring of `maximumHeld` columns, each `channelCount` `ChannelLevels` side by side, with one frame
/// count per column; plus per-channel running min, max and sum of squares for the open column. `reduce`,
/// `finish`, `column` and `release` allocate nothing. Not thread-safe: use from one thread at a time.
public final class PeakReducer {
    public let samplesPerPixel: Int
    public let channelCount: Int
    /// Columns closed so far (the partial last one is closed by `finish`).
    public private(set) var closedCount = 0
    /// The oldest column not yet released.
    public private(set) var oldestHeld = 0

    private let ringCapacity: Int
    private let ring: UnsafeMutablePointer<ChannelLevels>
    private let ringFrames: UnsafeMutablePointer<Int>
    private let low: UnsafeMutablePointer<Float>
    private let high: UnsafeMutablePointer<Float>
    private let sum: UnsafeMutablePointer<Double>
    private var count = 0

    /// `maximumHeld`: the most columns that will be closed and not yet released at once.
    public init(samplesPerPixel: Int, channelCount: Int, maximumHeld: Int) {
        precondition(samplesPerPixel > 0 && channelCount > 0 && maximumHeld > 0)
        self.samplesPerPixel = samplesPerPixel
        self.channelCount = channelCount
        ringCapacity = maximumHeld
        ring = .allocate(capacity: maximumHeld * channelCount)
        ring.initialize(repeating: ChannelLevels(min: 0, max: 0, rms: 0), count: maximumHeld * channelCount)
        ringFrames = .allocate(capacity: maximumHeld)
        ringFrames.initialize(repeating: 0, count: maximumHeld)
        low = .allocate(capacity: channelCount)
        high = .allocate(capacity: channelCount)
        sum = .allocate(capacity: channelCount)
        reset()
    }

    deinit {
        ring.deallocate(); ringFrames.deallocate()
        low.deallocate(); high.deallocate(); sum.deallocate()
    }

    /// Adds `count` frames; `sources[c]` points at channel c's samples.
    public func reduce(_ sources: UnsafePointer<UnsafePointer<Float>>, count frames: Int) {
        var offset = 0
        while offset < frames {
            let n = min(frames - offset, samplesPerPixel - count)
            for c in 0..<channelCount {
                let r = AnalysisKernels.minMaxSumOfSquares(sources[c] + offset, count: n)
                low[c] = min(low[c], r.min)
                high[c] = max(high[c], r.max)
                sum[c] += Double(r.sumOfSquares)
            }
            count += n
            offset += n
            if count == samplesPerPixel { close() }
        }
    }

    /// Closes the partial last column, if it holds any frames.
    public func finish() {
        if count > 0 { close() }
    }

    /// The levels of held column `index` (one per channel) and its frame count.
    public func column(_ index: Int) -> (levels: UnsafePointer<ChannelLevels>, frameCount: Int) {
        precondition(index >= oldestHeld && index < closedCount, "column \(index) is not held")
        let slot = index % ringCapacity
        return (UnsafePointer(ring + slot * channelCount), ringFrames[slot])
    }

    /// Frees the oldest held column.
    public func release() {
        precondition(oldestHeld < closedCount)
        oldestHeld += 1
    }

    private func close() {
        precondition(closedCount - oldestHeld < ringCapacity, "too many columns held")
        let slot = closedCount % ringCapacity
        for c in 0..<channelCount {
            ring[slot * channelCount + c] = ChannelLevels(min: low[c], max: high[c],
                                                          rms: Float((sum[c] / Double(count)).squareRoot()))
        }
        ringFrames[slot] = count
        closedCount += 1
        reset()
    }

    private func reset() {
        for c in 0..<channelCount { low[c] = .infinity; high[c] = -.infinity; sum[c] = 0 }
        count = 0
    }
}
