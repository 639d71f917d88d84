/// Turns the stream of FFT frames into spectral values per column for one zoom level.
///
/// Frames are centred every H = N/2 frames, the first on frame 0 (`WaveformAnalyzer`). Column j spans
/// [j * spp, (j + 1) * spp) (the last column ends at the stream's end) and gets
/// - the mean over the frames centred inside it, when there are any (always, when spp >= H):
///   P_band = mean P_band(frame), centroid = Σ Σ f_k |X_k| / Σ Σ |X_k| over those frames;
/// - otherwise (fine zoom levels, spp < H) a linear interpolation between the last frame centred
///   before the column and the first one centred after it, at the column's centre
///   t = (start + end) / 2: v = v_a + (v_b - v_a) (t - c_a) / (c_b - c_a).
/// Band levels are then sqrt(P_band). Every column's values are known once the first frame centred at or
/// after its end has been measured, N/2 + H frames after the column ends at the latest.
///
/// Layout: the running sums of the open column and the last frame's values, plus three buffers of
/// `rowCount` (at least 1) values: row sums (`Double`), the last frame's rows and the resolved `rows`.
/// Allocates them in `init`; `add` allocates nothing. Not thread-safe: use from one thread at a time.
public final class SpectralColumnResolver {
    public let samplesPerPixel: Int
    public let rowCount: Int
    /// The next column to resolve.
    public private(set) var column = 0
    /// Where the last column ends, once the stream's length is known.
    public var streamEnd: Int64 = .max

    // Sums over the frames centred in `column`.
    private var frames = 0
    private var low = 0.0, mid = 0.0, high = 0.0, magnitude = 0.0, weighted = 0.0
    private let rowSums: UnsafeMutablePointer<Double>
    // The last frame seen.
    private var hasPrevious = false
    private var previousCentre: Int64 = 0
    private var previous = (low: Float(0), mid: Float(0), high: Float(0), magnitude: Float(0), weighted: Float(0))
    private let previousRows: UnsafeMutablePointer<Float>

    /// The values of the column passed to `emit`.
    public private(set) var bands = BandLevels.silent
    public let rows: UnsafeMutablePointer<Float>

    public init(samplesPerPixel: Int, rowCount: Int) {
        precondition(samplesPerPixel > 0 && rowCount >= 0)
        self.samplesPerPixel = samplesPerPixel
        self.rowCount = rowCount
        let n = max(rowCount, 1)
        rowSums = .allocate(capacity: n); rowSums.initialize(repeating: 0, count: n)
        previousRows = .allocate(capacity: n); previousRows.initialize(repeating: 0, count: n)
        rows = .allocate(capacity: n); rows.initialize(repeating: 0, count: n)
    }

    deinit { rowSums.deallocate(); previousRows.deallocate(); rows.deallocate() }

    private func start(_ j: Int) -> Int64 { Int64(j) * Int64(samplesPerPixel) }
    private func end(_ j: Int) -> Int64 { min(Int64(j + 1) * Int64(samplesPerPixel), streamEnd) }

    /// Takes the next frame, centred on `centre`. Every column below `closedColumns` that ends at or
    /// before `centre` is resolved, in order: `bands` and `rows` are set and `emit(column)` called.
    public func add(_ frame: SpectralFrameAnalyzer, centre: Int64, closedColumns: Int,
                    emit: (Int) throws -> Void) rethrows {
        while column < closedColumns && end(column) <= centre {
            resolve(next: frame, centre: centre)
            try emit(column)
            column += 1
            clearSums()
        }
        if centre >= start(column) && centre < end(column) {
            frames += 1
            low += Double(frame.lowPower); mid += Double(frame.midPower); high += Double(frame.highPower)
            magnitude += Double(frame.magnitudeSum); weighted += Double(frame.weightedFrequencySum)
            for r in 0..<rowCount { rowSums[r] += Double(frame.spectrum[r]) }
        }
        hasPrevious = true
        previousCentre = centre
        previous = (frame.lowPower, frame.midPower, frame.highPower, frame.magnitudeSum, frame.weightedFrequencySum)
        if rowCount > 0 { previousRows.update(from: frame.spectrum, count: rowCount) }
    }

    private func resolve(next frame: SpectralFrameAnalyzer, centre: Int64) {
        var p: (low: Double, mid: Double, high: Double, magnitude: Double, weighted: Double)
        if frames > 0 {
            let n = Double(frames)
            p = (low / n, mid / n, high / n, magnitude, weighted)
            for r in 0..<rowCount { rows[r] = Float(rowSums[r] / n) }
        } else {
            precondition(hasPrevious, "the first frame is centred in the first column")
            let t = Double(start(column) + end(column)) / 2
            let a = min(max((t - Double(previousCentre)) / Double(centre - previousCentre), 0), 1)
            func mix(_ x: Float, _ y: Float) -> Double { Double(x) + (Double(y) - Double(x)) * a }
            p = (mix(previous.low, frame.lowPower), mix(previous.mid, frame.midPower),
                 mix(previous.high, frame.highPower), mix(previous.magnitude, frame.magnitudeSum),
                 mix(previous.weighted, frame.weightedFrequencySum))
            for r in 0..<rowCount { rows[r] = Float(mix(previousRows[r], frame.spectrum[r])) }
        }
        bands = BandLevels(low: Float(max(p.low, 0).squareRoot()), mid: Float(max(p.mid, 0).squareRoot()),
                           high: Float(max(p.high, 0).squareRoot()),
                           centroidHz: p.magnitude > 0 ? Float(p.weighted / p.magnitude) : 0)
    }

    private func clearSums() {
        frames = 0
        low = 0; mid = 0; high = 0; magnitude = 0; weighted = 0
        for r in 0..<rowCount { rowSums[r] = 0 }
    }
}
