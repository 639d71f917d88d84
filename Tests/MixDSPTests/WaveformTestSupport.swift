import Foundation
import MixDSP

/// A real FFT for tests: an iterative radix-2 complex FFT in Double (size a power of two), unnormalised
/// like FFTW, so the MixDSP tests need no C library.
final class Radix2TestFFT: RealFFT {
    let size: Int
    private var re: [Double]
    private var im: [Double]

    init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0)
        self.size = size
        re = [Double](repeating: 0, count: size)
        im = re
    }

    func forward(_ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>,
                 imaginary: UnsafeMutablePointer<Float>) {
        let n = size
        var bits = 0
        while 1 << bits < n { bits += 1 }
        for i in 0..<n {
            var j = 0
            for b in 0..<bits where i & (1 << b) != 0 { j |= 1 << (bits - 1 - b) }
            re[j] = Double(input[i]); im[j] = 0
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let wr = cosine(angle * Double(k)), wi = sine(angle * Double(k))
                    let a = start + k, b = a + length / 2
                    let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
            }
            length *= 2
        }
        for k in 0...(n / 2) { real[k] = Float(re[k]); imaginary[k] = Float(im[k]) }
    }
}

func sine(_ x: Double) -> Double { Foundation.sin(x) }
func cosine(_ x: Double) -> Double { Foundation.cos(x) }

/// Collects the columns of one zoom level, copying them out of the analyser's buffers.
final class ColumnCollector: WaveformColumnSink {
    struct Column: Equatable {
        var index: Int
        var frameCount: Int
        var channels: [ChannelLevels]
        var bands: BandLevels
        var spectrum: [Float]
    }
    var columns: [Column] = []

    func append(_ column: WaveformColumn) throws {
        columns.append(Column(index: column.index, frameCount: column.frameCount, channels: Array(column.channels),
                              bands: column.bands, spectrum: Array(column.spectrum)))
    }
}

/// Runs a whole signal through a `WaveformAnalyzer` in blocks of `blockFrames`.
func analyse(_ interleaved: [Float], settings: WaveformAnalysisSettings, blockFrames: Int = 4096)
    throws -> (levels: [[ColumnCollector.Column]], totals: WaveformTotals) {
    let sinks = settings.samplesPerPixel.map { _ in ColumnCollector() }
    let analyzer = WaveformAnalyzer(settings: settings, fft: Radix2TestFFT(size: settings.fftSize), sinks: sinks)
    let channels = settings.channelCount
    let frames = interleaved.count / channels
    try interleaved.withUnsafeBufferPointer { p in
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            try analyzer.process(interleaved: p.baseAddress! + done * channels, frames: n)
            done += n
        }
    }
    try analyzer.finish()
    return (sinks.map(\.columns), analyzer.totals)
}

/// amplitude * sin(2π f n / rate) for n in 0 ..< frames (mono).
func sineWave(frequency: Double, amplitude: Double, sampleRate: Int, frames: Int) -> [Float] {
    (0..<frames).map { Float(amplitude * sine(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
}
