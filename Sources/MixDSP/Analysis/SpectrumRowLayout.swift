/// How FFT bins map to the rows of a spectrogram: `rowCount` rows, log-spaced in frequency from
/// `lowestHz` to Nyquist. Row r spans [e_r, e_(r+1)) with e_r = lowest * (nyquist / lowest)^(r / rows).
///
/// The bin values are read as a density that is piecewise linear between bin centres (each bin's value
/// spread over a triangle one bin wide on either side of its centre, area 1), and a row's value is the
/// integral of that density over the row: Σ_k w_(r,k) v_k with w_(r,k) = H(b - k) - H(a - k), where
/// [a, b) is the row in bins and H the triangle's cumulative area (H(x) = (x + 1)² / 2 on [-1, 0],
/// 1 - (1 - x)² / 2 on [0, 1]). Rows wide in bins sum their bins (the energy in the row, so pink noise
/// reads the same in every row); rows narrower than a bin (low frequencies) get their share of the
/// density, smoothly, with no stripes; every bin's value is shared out exactly once over the rows.
///
/// Layout: a sparse matrix in three buffers: `rowCount + 1` row offsets, then a bin index and a `Float`
/// weight per entry. Allocates them in `init` (building them in temporary arrays); `reduce` allocates
/// nothing. Read-only after `init`, so `reduce` may run on several threads at once (it is not marked
/// `Sendable`, though).
public final class SpectrumRowLayout {
    public let rowCount: Int
    public let binCount: Int
    /// Row r uses weights [offsets[r], offsets[r + 1]).
    private let offsets: UnsafeMutablePointer<Int>
    private let bins: UnsafeMutablePointer<Int>
    private let weights: UnsafeMutablePointer<Float>

    /// `fftSize` N gives N / 2 + 1 bins, rate / N Hz apart.
    public init(rowCount: Int, fftSize: Int, sampleRate: Int, lowestHz: Double) {
        precondition(rowCount > 0 && fftSize >= 2 && lowestHz > 0)
        self.rowCount = rowCount
        let half = fftSize / 2
        binCount = half + 1
        let binHz = Double(sampleRate) / Double(fftSize)
        let nyquist = Double(sampleRate) / 2
        let lowest = min(lowestHz, nyquist / 2)
        let ratio = nyquist / lowest
        func edge(_ r: Int) -> Double { lowest * _pow(ratio, Double(r) / Double(rowCount)) / binHz }
        func cumulative(_ x: Double) -> Double {
            if x <= -1 { return 0 }
            if x <= 0 { return (x + 1) * (x + 1) / 2 }
            if x <= 1 { return 1 - (1 - x) * (1 - x) / 2 }
            return 1
        }
        var rowOffsets = [0], rowBins: [Int] = [], rowWeights: [Float] = []
        for r in 0..<rowCount {
            let a = edge(r), b = edge(r + 1)
            let first = max(Int(a.rounded(.down)) - 1, 0), last = min(Int(b.rounded(.up)) + 1, half)
            if first <= last {
                for k in first...last {
                    let w = cumulative(b - Double(k)) - cumulative(a - Double(k))
                    if w > 0 { rowBins.append(k); rowWeights.append(Float(w)) }
                }
            }
            rowOffsets.append(rowBins.count)
        }
        offsets = .allocate(capacity: rowOffsets.count)
        offsets.initialize(from: rowOffsets, count: rowOffsets.count)
        bins = .allocate(capacity: max(rowBins.count, 1))
        bins.initialize(from: rowBins, count: rowBins.count)
        weights = .allocate(capacity: max(rowWeights.count, 1))
        weights.initialize(from: rowWeights, count: rowWeights.count)
    }

    deinit { offsets.deallocate(); bins.deallocate(); weights.deallocate() }

    /// rows[r] = scale * Σ_k w_(r,k) values[k].
    public func reduce(_ values: UnsafePointer<Float>, scale: Float, into rows: UnsafeMutablePointer<Float>) {
        for r in 0..<rowCount {
            var s: Float = 0
            for i in offsets[r]..<offsets[r + 1] { s += weights[i] * values[bins[i]] }
            rows[r] = scale * s
        }
    }
}
