import Foundation
import MixDSP

/// A real FFT for tests: an iterative radix-2 complex FFT in Double (size a power of two), unnormalised
/// like FFTW, so the MixDSP tests need no C library.
public final class Radix2TestFFT: RealFFT {
    public let size: Int
    private var re: [Double]
    private var im: [Double]
    /// cos and sin of −2πk/size for k < size/2, and each index's bit reversal, computed once.
    private let cosines: [Double], sines: [Double], reversed: [Int]

    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0)
        self.size = size
        re = [Double](repeating: 0, count: size)
        im = re
        cosines = (0..<size / 2).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<size / 2).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        var bits = 0
        while 1 << bits < size { bits += 1 }
        reversed = (0..<size).map { i in
            var j = 0
            for b in 0..<bits where i & (1 << b) != 0 { j |= 1 << (bits - 1 - b) }
            return j
        }
    }

    public func forward(_ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>,
                        imaginary: UnsafeMutablePointer<Float>) {
        let n = size
        for i in 0..<n { re[reversed[i]] = Double(input[i]); im[reversed[i]] = 0 }
        var length = 2
        while length <= n {
            let step = n / length
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let wr = cosines[k * step], wi = sines[k * step]
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

/// Collects the columns of one zoom level, copying them out of the analyser's buffers.
public final class ColumnCollector: WaveformColumnSink {
    public struct Column: Equatable {
        public var index: Int
        public var frameCount: Int
        public var channels: [ChannelLevels]
        public var bands: BandLevels
        public var spectrum: [Float]
    }
    public private(set) var columns: [Column] = []

    public init() {}

    public func append(_ column: WaveformColumn) throws {
        columns.append(Column(index: column.index, frameCount: column.frameCount, channels: Array(column.channels),
                              bands: column.bands, spectrum: Array(column.spectrum)))
    }
}

/// Runs a whole signal through a `WaveformAnalyzer` (with `Radix2TestFFT`) in blocks of `blockFrames`.
public func analyse(_ interleaved: [Float], settings: WaveformAnalysisSettings, blockFrames: Int = 4096)
    throws -> (levels: [[ColumnCollector.Column]], totals: WaveformTotals) {
    let sinks = settings.samplesPerPixel.map { _ in ColumnCollector() }
    let analyzer = WaveformAnalyzer(settings: settings, fft: Radix2TestFFT(size: settings.fftSize), sinks: sinks)
    try forEachBlock(of: interleaved, channels: settings.channelCount, blockFrames: blockFrames) {
        try analyzer.process(interleaved: $0, frames: $1)
    }
    try analyzer.finish()
    return (sinks.map(\.columns), analyzer.totals)
}
