/// How FFT bins map to the rows of a spectrogram: `rowCount` rows, log-spaced in frequency from
/// `lowestHz` to Nyquist. Row r spans [e_r, e_(r+1)) with e_r = lowest * (nyquist / lowest)^(r / rows).
/// A row's value is the sum of the bins whose centre frequency k * rate / N lies in it (the energy in
/// the row, so pink noise reads the same in every row); a row that holds no bin centre (low rows are
/// narrower than a bin) takes the value interpolated linearly between the two bins around its centre
/// frequency sqrt(e_r e_(r+1)), times its width in bins.
public final class SpectrumRowLayout {
    public let rowCount: Int
    public let binCount: Int
    private let first: UnsafeMutablePointer<Int>
    private let count: UnsafeMutablePointer<Int>
    private let fraction: UnsafeMutablePointer<Float>
    private let width: UnsafeMutablePointer<Float>

    /// `fftSize` N gives N / 2 + 1 bins, `binHz` = rate / N apart.
    public init(rowCount: Int, fftSize: Int, sampleRate: Int, lowestHz: Double) {
        precondition(rowCount > 0 && fftSize >= 2 && lowestHz > 0)
        self.rowCount = rowCount
        let half = fftSize / 2
        binCount = half + 1
        first = .allocate(capacity: rowCount)
        count = .allocate(capacity: rowCount)
        fraction = .allocate(capacity: rowCount)
        width = .allocate(capacity: rowCount)
        let binHz = Double(sampleRate) / Double(fftSize)
        let nyquist = Double(sampleRate) / 2
        let lowest = min(lowestHz, nyquist / 2)
        let ratio = nyquist / lowest
        func edge(_ r: Int) -> Double { lowest * _pow(ratio, Double(r) / Double(rowCount)) }
        for r in 0..<rowCount {
            let lower = edge(r), upper = edge(r + 1)
            // Bins k with lower <= k * binHz < upper; the last row also takes the Nyquist bin.
            let a = Int((lower / binHz).rounded(.up))
            let b = r == rowCount - 1 ? half + 1 : min(Int((upper / binHz).rounded(.up)), half + 1)
            width[r] = Float((upper - lower) / binHz)
            if b > a {
                first[r] = a; count[r] = b - a; fraction[r] = 0
            } else {
                let position = min((lower * upper).squareRoot() / binHz, Double(half) - 1e-9)
                let k = Int(position)
                first[r] = k; count[r] = 0; fraction[r] = Float(position - Double(k))
            }
        }
    }

    deinit { first.deallocate(); count.deallocate(); fraction.deallocate(); width.deallocate() }

    /// rows[r] = scale * (Σ values[k] over row r's bins, or the interpolated value times the row's width in bins).
    public func reduce(_ values: UnsafePointer<Float>, scale: Float, into rows: UnsafeMutablePointer<Float>) {
        for r in 0..<rowCount {
            let k = first[r], n = count[r]
            if n > 0 {
                var s: Float = 0
                for i in k..<(k + n) { s += values[i] }
                rows[r] = scale * s
            } else {
                let t = fraction[r]
                rows[r] = scale * (values[k] * (1 - t) + values[k + 1] * t) * width[r]
            }
        }
    }
}
