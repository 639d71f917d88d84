/// Where a recording of speech speaks, and how loud the speech is when it does: an offline analysis of one
/// mono signal, for levelling voice tracks by their speech rather than by their pauses.
///
///   level of frame j = 10 log10(Σ x² / length) dBFS       (20 ms frames, not overlapping; the last may be shorter)
///   threshold        = max(absoluteFloorDb, loudest frame − relativeFloorDb)
///   speech frame     = level > threshold
///
/// Runs of speech frames become regions (sample ranges whose edges lie on frame boundaries); regions closer
/// than `minimumGapSeconds` are joined (the pauses between words and short breaths), and regions shorter than
/// `minimumRegionSeconds` afterwards are dropped (a click, a lip smack). No hysteresis on the threshold: joining
/// the short gaps already does what it would, and keeps the rule one number.
///
///   levelDb = 10 log10(Σ x² / n) over the speech frames inside the regions kept, or nil if there are none
///
/// so pauses, however long, do not lower the level, and the joined gaps are not counted either. A frame at the
/// edge of a word is partly silence; with words of a few hundred milliseconds that lowers the level by about
/// 0.1 dB.
///
/// A value holding the regions' array; `analyse` allocates one level per frame while it works, and the result.
/// `Sendable`, safe to share.
public struct SpeechActivity: Sendable, Equatable {
    /// RMS of the speech, in dBFS; nil when nothing in the signal is speech.
    public let levelDb: Double?
    /// The sample ranges that hold speech, in order, not overlapping.
    public let regions: [Range<Int>]

    /// The analysis frame, in seconds.
    public static let frameSeconds = 0.02

    public init(levelDb: Double?, regions: [Range<Int>]) {
        self.levelDb = levelDb; self.regions = regions
    }

    /// Analyses a mono signal at `sampleRate`.
    public static func analyse(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int, absoluteFloorDb: Double = -50,
                               relativeFloorDb: Double = 30, minimumGapSeconds: Double = 0.15,
                               minimumRegionSeconds: Double = 0.03) -> SpeechActivity {
        var analyzer = SpeechActivityAnalyzer(sampleRate: sampleRate)
        analyzer.append(samples)
        return analyzer.finish(absoluteFloorDb: absoluteFloorDb, relativeFloorDb: relativeFloorDb,
                               minimumGapSeconds: minimumGapSeconds, minimumRegionSeconds: minimumRegionSeconds)
    }

    /// The analysis of a signal given as the energy (Σ x²) of each of its frames of `frameLength` samples
    /// (the last may be shorter: `count` samples in all).
    static func analyse(energies: [Double], frameLength: Int, count: Int, sampleRate: Int, absoluteFloorDb: Double,
                        relativeFloorDb: Double, minimumGapSeconds: Double, minimumRegionSeconds: Double) -> SpeechActivity {
        guard count > 0 else { return SpeechActivity(levelDb: nil, regions: []) }
        let frameCount = energies.count
        func range(_ j: Int) -> Range<Int> { (j * frameLength)..<min((j + 1) * frameLength, count) }
        let levels = (0..<frameCount).map { decibels(fromGain: (energies[$0] / Double(range($0).count)).squareRoot()) }
        let threshold = max(absoluteFloorDb, levels.max()! - relativeFloorDb)

        // runs of speech frames, as frame ranges; gaps shorter than the minimum joined
        let minimumGap = Int((minimumGapSeconds * Double(sampleRate)).rounded())
        var runs: [Range<Int>] = []
        var j = 0
        while j < frameCount {
            guard levels[j] > threshold else { j += 1; continue }
            var end = j + 1
            while end < frameCount && levels[end] > threshold { end += 1 }
            if let last = runs.last, range(j).lowerBound - range(last.upperBound - 1).upperBound < minimumGap {
                runs[runs.count - 1] = last.lowerBound..<end
            } else {
                runs.append(j..<end)
            }
            j = end
        }

        // regions long enough to keep, and the level of the speech frames inside them
        let minimumRegion = Int((minimumRegionSeconds * Double(sampleRate)).rounded())
        var regions: [Range<Int>] = []
        var energy = 0.0, count = 0
        for run in runs {
            let region = range(run.lowerBound).lowerBound..<range(run.upperBound - 1).upperBound
            guard region.count >= minimumRegion else { continue }
            regions.append(region)
            for j in run where levels[j] > threshold {
                energy += energies[j]
                count += range(j).count
            }
        }
        // level = 10 log10(Σ x² / n) = 20 log10 of the RMS
        let level = count > 0 ? decibels(fromGain: (energy / Double(count)).squareRoot()) : nil
        return SpeechActivity(levelDb: level, regions: regions)
    }

    /// Analyses a mono signal at `sampleRate` (see the other `analyse`).
    public static func analyse(_ samples: [Float], sampleRate: Int, absoluteFloorDb: Double = -50, relativeFloorDb: Double = 30,
                               minimumGapSeconds: Double = 0.15, minimumRegionSeconds: Double = 0.03) -> SpeechActivity {
        samples.withUnsafeBufferPointer {
            analyse($0, sampleRate: sampleRate, absoluteFloorDb: absoluteFloorDb, relativeFloorDb: relativeFloorDb,
                    minimumGapSeconds: minimumGapSeconds, minimumRegionSeconds: minimumRegionSeconds)
        }
    }
}

/// `SpeechActivity` fed a signal in pieces, as it is decoded: it keeps one energy per 20 ms frame (400 bytes
/// a second), never the signal, so a long recording is measured in little memory.
///
/// A value: the frame energies so far and the frame being filled; `append` grows the array of energies
/// (amortised), `finish` allocates the result. One thread at a time.
public struct SpeechActivityAnalyzer {
    public let sampleRate: Int
    let frameLength: Int
    private var energies: [Double] = []
    private var partial = 0.0
    private var partialCount = 0
    private var count = 0

    public init(sampleRate: Int) {
        precondition(sampleRate > 0, "speech activity needs a positive sample rate")
        self.sampleRate = sampleRate
        frameLength = max(1, Int((SpeechActivity.frameSeconds * Double(sampleRate)).rounded()))
    }

    /// Adds the next samples of the signal.
    public mutating func append(_ samples: UnsafeBufferPointer<Float>) {
        guard let base = samples.baseAddress else { return }
        var i = 0
        while i < samples.count {
            let n = min(frameLength - partialCount, samples.count - i)
            partial += Kernels.sumOfSquares(base + i, count: n)
            partialCount += n; count += n; i += n
            if partialCount == frameLength { energies.append(partial); partial = 0; partialCount = 0 }
        }
    }

    /// Adds the next samples of a 16-bit signal (scaled by 1/32768, as a decoder would).
    public mutating func append(int16 samples: UnsafeBufferPointer<Int16>) {
        var buffer = [Float](repeating: 0, count: min(samples.count, 4096))
        var i = 0
        while i < samples.count {
            let n = min(buffer.count, samples.count - i)
            for k in 0..<n { buffer[k] = Float(samples[i + k]) * (1 / 32768) }
            buffer.withUnsafeBufferPointer { append(UnsafeBufferPointer(rebasing: $0[..<n])) }
            i += n
        }
    }

    /// The analysis of everything appended (see `SpeechActivity`).
    public func finish(absoluteFloorDb: Double = -50, relativeFloorDb: Double = 30, minimumGapSeconds: Double = 0.15,
                       minimumRegionSeconds: Double = 0.03) -> SpeechActivity {
        SpeechActivity.analyse(energies: partialCount > 0 ? energies + [partial] : energies, frameLength: frameLength, count: count,
                               sampleRate: sampleRate, absoluteFloorDb: absoluteFloorDb, relativeFloorDb: relativeFloorDb,
                               minimumGapSeconds: minimumGapSeconds, minimumRegionSeconds: minimumRegionSeconds)
    }
}
