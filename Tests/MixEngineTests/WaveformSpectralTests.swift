import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import TestSupport
import Testing

/// The FFT path (FFTW through `SpectralFrameAnalyzer`) against a plain DFT, and band placement through FFTW.
@Suite struct WaveformSpectralTests {
    /// Band powers, Σ|X_k|, Σ f_k |X_k| of one Hann-windowed frame by a plain DFT in Double:
    /// X_k = Σ_n w_n x_n e^(-2πi k n / N), then the formulas of `SpectralFrameAnalyzer`.
    static func plainDFT(_ x: [Float], rate: Int, edges: (Double, Double))
        -> (low: Double, mid: Double, high: Double, magnitude: Double, weighted: Double) {
        let n = x.count, half = n / 2
        let w = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n)) }
        let xw = (0..<n).map { Double(x[$0]) * w[$0] }
        let cosTable = (0..<n).map { cos(2 * Double.pi * Double($0) / Double(n)) }
        let sinTable = (0..<n).map { sin(2 * Double.pi * Double($0) / Double(n)) }
        let sumW2 = w.reduce(0) { $0 + $1 * $1 }
        var bands = (low: 0.0, mid: 0.0, high: 0.0), magnitude = 0.0, weighted = 0.0
        for k in 0...half {
            var re = 0.0, im = 0.0
            for i in 0..<n {
                let phase = (k * i) % n
                re += xw[i] * cosTable[phase]
                im -= xw[i] * sinTable[phase]
            }
            let p = re * re + im * im
            let f = Double(k) * Double(rate) / Double(n)
            let c = (k == 0 || k == half) ? 1.0 : 2.0
            let share = c * p / (Double(n) * sumW2)
            if f < edges.0 { bands.low += share } else if f < edges.1 { bands.mid += share } else { bands.high += share }
            magnitude += p.squareRoot()
            weighted += f * p.squareRoot()
        }
        return (bands.low, bands.mid, bands.high, magnitude, weighted)
    }

    /// Tolerance: 1e-4 of the frame's total power for each band (FFTW works in single precision;
    /// measured errors are about 1e-6), 1e-4 relative for the magnitude sums and the centroid.
    @Test(arguments: [(2048, 48_000), (1024, 22_050), (4096, 96_000)])
    func fftPathMatchesAPlainDFT(size: Int, rate: Int) {
        var noise = TestSignals.Noise(seed: 0x5EED ^ UInt64(size))
        // Noise plus a low and a high sine, so every band holds something.
        let x = (0..<size).map { i -> Float in
            let t = Double(i) / Double(rate)
            return 0.3 * noise.sample() + Float(0.4 * sin(2 * .pi * 120 * t) + 0.2 * sin(2 * .pi * 6000 * t))
        }
        let frame = SpectralFrameAnalyzer(fft: FFTWRealFFT(size: size), sampleRate: rate, lowMidEdgeHz: 250, midHighEdgeHz: 4000)
        frame.input.update(from: x, count: size)
        frame.analyze()
        let reference = Self.plainDFT(x, rate: rate, edges: (250, 4000))
        let total = reference.low + reference.mid + reference.high
        #expect(abs(Double(frame.lowPower) - reference.low) <= 1e-4 * total)
        #expect(abs(Double(frame.midPower) - reference.mid) <= 1e-4 * total)
        #expect(abs(Double(frame.highPower) - reference.high) <= 1e-4 * total)
        #expect(abs(Double(frame.magnitudeSum) - reference.magnitude) <= 1e-4 * reference.magnitude)
        #expect(abs(Double(frame.weightedFrequencySum) - reference.weighted) <= 1e-4 * reference.weighted)
        let centroid = Double(frame.weightedFrequencySum / frame.magnitudeSum)
        #expect(abs(centroid - reference.weighted / reference.magnitude) <= 1e-4 * centroid)
    }

    /// Band levels per column through the whole recorder (FFTW): a 100 Hz sine is low, 8 kHz high.
    @Test(arguments: [(100.0, WaveformTotals.Band.low, 44_100), (8000, .high, 44_100), (100, .low, 96_000),
                      (8000, .high, 96_000), (1000, .mid, 48_000), (100, .low, 11_025)])
    func aSineLandsInItsBand(frequency: Double, band: WaveformTotals.Band, rate: Int) throws {
        var options = WaveformOptions()
        options.resolution = .width(40)
        let plan = try WaveformPlan(output: nil, options: options, sampleRate: rate, channelCount: 1, frameCount: Int64(rate))
        let data = TestSignals.sine(frequency: frequency, amplitude: 0.5, rate: rate, frames: rate)
        let recorder = try record(data, plan: plan)
        let columns = try storedColumns(recorder.stores[0])
        #expect(columns.count == 40)
        for column in columns.dropFirst(2).dropLast(2) {
            let b = column.bands
            let total = b.low * b.low + b.mid * b.mid + b.high * b.high
            let inBand = band == .low ? b.low : band == .mid ? b.mid : b.high
            #expect(inBand * inBand >= 0.999 * total, "\(frequency) Hz at \(rate) Hz: \(b)")
            #expect(abs(total - 0.125) < 0.00125)
        }
        #expect(recorder.totals.dominantBand == band)
    }
}
