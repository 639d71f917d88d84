/// Measures one FFT frame of the mono mix: N samples, a periodic Hann window w, a real FFT X_k
/// (k = 0 ... N/2, f_k = k * rate / N), then
///
/// - band powers, the band's part of the mean-square level (Parseval, one-sided, window-compensated):
///   P_band = Σ_(k in band) c_k |X_k|² / (N Σ w²), with c_k = 1 at DC and Nyquist and 2 elsewhere.
///   A sine of amplitude A gives A²/2 in its band; P_low + P_mid + P_high = Σ (w x)² / Σ w².
///   Bins belong to low when f_k < lowMidEdge, to mid when f_k < midHighEdge, to high otherwise.
/// - magnitude sums for the spectral centroid: Σ |X_k| and Σ f_k |X_k|.
/// - optionally spectrogram rows (see `SpectrumRowLayout`): the power in each row, 2 |X_k|² / (N Σ w²)
///   summed over its bins, in the units of the band powers (a sine of amplitude A reads A²/2 in the row
///   that holds its window's main lobe).
///
/// All buffers are allocated in `init`; `analyze` allocates nothing.
/// Layout: the window and `input` (N `Float`s each), real, imaginary and power spectra (N/2 + 1 each),
/// `spectrum` (`rowCount`, at least 1), an optional `SpectrumRowLayout`, and a reference to the `RealFFT`
/// it was given. Not thread-safe: use from one thread at a time, and do not use its `RealFFT` elsewhere
/// meanwhile (the FFT has buffers of its own).
public final class SpectralFrameAnalyzer {
    public let fftSize: Int
    public let sampleRate: Int
    private let fft: RealFFT
    private let window: UnsafeMutablePointer<Float>
    /// Where the caller puts the frame's N samples before `analyze()`; windowed in place.
    public let input: UnsafeMutablePointer<Float>
    private let real: UnsafeMutablePointer<Float>
    private let imaginary: UnsafeMutablePointer<Float>
    private let power: UnsafeMutablePointer<Float>
    /// First bin of the mid band and of the high band.
    public let midFirstBin: Int
    public let highFirstBin: Int
    private let powerScale: Float
    private let binHz: Float
    private let rows: SpectrumRowLayout?
    /// The last frame's spectrogram rows (`rowCount` values; unused when there are none).
    public let spectrum: UnsafeMutablePointer<Float>
    public var rowCount: Int { rows?.rowCount ?? 0 }

    /// The last frame's band powers (mean square, see above).
    public private(set) var lowPower: Float = 0
    public private(set) var midPower: Float = 0
    public private(set) var highPower: Float = 0
    /// The last frame's Σ |X_k| and Σ f_k |X_k| (Hz).
    public private(set) var magnitudeSum: Float = 0
    public private(set) var weightedFrequencySum: Float = 0

    public init(fft: RealFFT, sampleRate: Int, lowMidEdgeHz: Double, midHighEdgeHz: Double,
                spectrumRows: Int = 0, spectrumLowestHz: Double = 20) {
        let n = fft.size
        precondition(n >= 4 && n % 2 == 0 && sampleRate > 0)
        self.fft = fft
        fftSize = n
        self.sampleRate = sampleRate
        let half = n / 2
        window = .allocate(capacity: n)
        AnalysisKernels.hannWindow(into: window, count: n)
        input = .allocate(capacity: n)
        input.initialize(repeating: 0, count: n)
        real = .allocate(capacity: half + 1)
        imaginary = .allocate(capacity: half + 1)
        power = .allocate(capacity: half + 1)
        power.initialize(repeating: 0, count: half + 1)
        let hz = Double(sampleRate) / Double(n)
        binHz = Float(hz)
        midFirstBin = min(Int((lowMidEdgeHz / hz).rounded(.up)), half + 1)
        highFirstBin = max(midFirstBin, min(Int((midHighEdgeHz / hz).rounded(.up)), half + 1))
        var sumOfSquares = 0.0
        for i in 0..<n { sumOfSquares += Double(window[i]) * Double(window[i]) }
        powerScale = Float(1 / (Double(n) * sumOfSquares))
        rows = spectrumRows > 0
            ? SpectrumRowLayout(rowCount: spectrumRows, fftSize: n, sampleRate: sampleRate, lowestHz: spectrumLowestHz)
            : nil
        spectrum = .allocate(capacity: max(spectrumRows, 1))
        spectrum.initialize(repeating: 0, count: max(spectrumRows, 1))
    }

    deinit {
        window.deallocate(); input.deallocate(); real.deallocate(); imaginary.deallocate()
        power.deallocate(); spectrum.deallocate()
    }

    /// Windows `input` in place, transforms it and measures the bands, the centroid sums and the rows.
    public func analyze() {
        let half = fftSize / 2
        AnalysisKernels.multiply(input, by: window, count: fftSize)
        fft.forward(input, real: real, imaginary: imaginary)
        let sums = AnalysisKernels.powerSpectrum(real: real, imaginary: imaginary, into: power, count: half + 1)
        magnitudeSum = sums.magnitudeSum
        weightedFrequencySum = sums.binWeightedSum * binHz
        lowPower = bandPower(0, midFirstBin)
        midPower = bandPower(midFirstBin, highFirstBin)
        highPower = bandPower(highFirstBin, half + 1)
        rows?.reduce(power, scale: 2 * powerScale, into: spectrum)
    }

    /// Σ_(k in a..<b) c_k |X_k|² / (N Σ w²).
    private func bandPower(_ a: Int, _ b: Int) -> Float {
        guard b > a else { return 0 }
        let half = fftSize / 2
        var s = 2 * AnalysisKernels.sum(power + a, count: b - a)
        if a == 0 { s -= power[0] }
        if b == half + 1 { s -= power[half] }
        return s * powerScale
    }
}
