import Foundation
import MixDSP

/// A real FFT for tests: an iterative radix-2 complex FFT in Double (size a power of two), unnormalised
/// like FFTW, so the MixDSP tests need no C library.
public final class Radix2TestFFT: RealFFT {
    public let size: Int
    private var re: [Double]
    private var im: [Double]

    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0)
        self.size = size
        re = [Double](repeating: 0, count: size)
        im = re
    }

    public func forward(_ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>,
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
                    let wr = cos(angle * Double(k)), wi = sin(angle * Double(k))
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
