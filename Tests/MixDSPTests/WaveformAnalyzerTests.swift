import Foundation
import DSPTestSupport
import MixDSP
import Testing

@Suite struct WaveformAnalyzerTests {
    static let rate = 48_000

    static func settings(channels: Int = 1, split: Bool = false, spp: [Int], rows: Int = 0) -> WaveformAnalysisSettings {
        WaveformAnalysisSettings(sampleRate: rate, channelCount: channels, isSplittingChannels: split,
                                 samplesPerPixel: spp, spectrumRows: rows)
    }

    /// A 1 kHz sine at 48 kHz has 48 samples per period, and samples 12 and 36 of each period fall exactly
    /// on sin(π/2) = 1 and sin(3π/2) = -1: every column holding a whole period has min = -A and max = A exactly.
    @Test(arguments: [(0.5, 48), (0.8, 256), (0.25, 1000)])
    func sineOfKnownAmplitudeGivesExactPeaks(amplitude: Double, spp: Int) throws {
        let signal = TestSignals.sine(frequency: 1000, amplitude: amplitude, rate: Self.rate, frames: Self.rate)
        let (levels, totals) = try analyse(signal, settings: Self.settings(spp: [spp]))
        let columns = levels[0]
        #expect(columns.count == (Self.rate + spp - 1) / spp)
        for column in columns.dropLast() {
            #expect(column.channels[0].max == Float(amplitude), "column \(column.index)")
            #expect(column.channels[0].min == -Float(amplitude), "column \(column.index)")
        }
        // RMS of whole periods: A / sqrt(2).
        let wholePeriods = columns.filter { $0.frameCount % 48 == 0 }
        for column in wholePeriods {
            #expect(abs(Double(column.channels[0].rms) - amplitude / 2.0.squareRoot()) < 1e-6 * amplitude)
        }
        #expect(totals.peak == Float(amplitude))
        #expect(abs(totals.rms - amplitude / 2.0.squareRoot()) < 1e-6)
    }

    @Test func columnsCoverTheStreamWithAPartialLastColumn() throws {
        let signal = [Float](repeating: 0.1, count: 1000)
        let (levels, _) = try analyse(signal, settings: Self.settings(spp: [300, 1000, 5000]))
        #expect(levels[0].map(\.frameCount) == [300, 300, 300, 100])
        #expect(levels[0].map(\.index) == [0, 1, 2, 3])
        #expect(levels[1].map(\.frameCount) == [1000])
        #expect(levels[2].map(\.frameCount) == [1000])
        #expect(levels[0].allSatisfy { $0.channels[0].min == 0.1 && $0.channels[0].max == 0.1 })
        #expect(levels[0].allSatisfy { abs($0.channels[0].rms - 0.1) < 1e-6 })
    }

    @Test func anEmptyStreamHasNoColumns() throws {
        let (levels, totals) = try analyse([], settings: Self.settings(spp: [256]))
        #expect(levels[0].isEmpty)
        #expect(totals.frameCount == 0 && totals.peak == 0 && totals.dominantBand == nil)
    }

    @Test func theSameColumnsForAnyBlockSize() throws {
        var noise = TestSignals.Noise(seed: 42)
        let frames = 30_000
        var signal = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let s = Float(0.3 * sin(2 * Double.pi * 440 * Double(i) / Double(Self.rate)))
            signal[2 * i] = s + 0.1 * noise.sample()
            signal[2 * i + 1] = 0.5 * noise.sample()
        }
        let settings = Self.settings(channels: 2, split: true, spp: [100, 2048, 7000], rows: 16)
        let reference = try analyse(signal, settings: settings, blockFrames: 4096)
        for blockFrames in [1, 7, 1000, 50_000] {
            let other = try analyse(signal, settings: settings, blockFrames: blockFrames)
            #expect(other.totals.channelPeaks == reference.totals.channelPeaks)
            for level in 0..<3 {
                #expect(other.levels[level].count == reference.levels[level].count)
                for (a, b) in zip(other.levels[level], reference.levels[level]) {
                    // Spectra are bit-identical; sums of squares differ only by Float rounding of partial sums.
                    #expect(a.bands == b.bands && a.spectrum == b.spectrum && a.frameCount == b.frameCount)
                    for (x, y) in zip(a.channels, b.channels) {
                        #expect(x.min == y.min && x.max == y.max)
                        #expect(abs(x.rms - y.rms) <= 1e-5 * max(y.rms, 1e-6), "block \(blockFrames) level \(level)")
                    }
                }
            }
        }
    }

    @Test func splitChannelsOrTheirMonoMix() throws {
        let left = TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: Self.rate, frames: 4800)
        var stereo = [Float](repeating: 0, count: 9600)
        for i in 0..<4800 { stereo[2 * i] = left[i]; stereo[2 * i + 1] = left[i] / 2 }
        let split = try analyse(stereo, settings: Self.settings(channels: 2, split: true, spp: [480])).levels[0]
        #expect(split.allSatisfy { $0.channels.count == 2 && $0.channels[0].max == 0.5 && $0.channels[1].max == 0.25 })
        let mono = try analyse(stereo, settings: Self.settings(channels: 2, split: false, spp: [480])).levels[0]
        // (0.5 + 0.25) / 2
        #expect(mono.allSatisfy { $0.channels.count == 1 && $0.channels[0].max == 0.375 && $0.channels[0].min == -0.375 })
    }

    @Test func coarserLevelsAreMergesOfFinerOnes() throws {
        var noise = TestSignals.Noise(seed: 7)
        let signal = (0..<20_000).map { _ in noise.sample() * 0.7 }
        let (levels, _) = try analyse(signal, settings: Self.settings(spp: [64, 256]))
        for coarse in levels[1] {
            let fine = levels[0][(coarse.index * 4)..<min(coarse.index * 4 + 4, levels[0].count)]
            #expect(coarse.channels[0].min == fine.map { $0.channels[0].min }.min())
            #expect(coarse.channels[0].max == fine.map { $0.channels[0].max }.max())
            // RMS combines as sqrt(Σ n rms² / Σ n).
            let sum = fine.reduce(0.0) { $0 + Double($1.frameCount) * Double($1.channels[0].rms * $1.channels[0].rms) }
            let merged = (sum / Double(fine.reduce(0) { $0 + $1.frameCount })).squareRoot()
            #expect(abs(Double(coarse.channels[0].rms) - merged) < 1e-5)
        }
    }

    /// Band levels in the middle of a steady sine (away from the stream's edges, where frames see silence).
    static func steadyBands(frequency: Double, spp: Int = 2048) throws -> [BandLevels] {
        let signal = TestSignals.sine(frequency: frequency, amplitude: 0.5, rate: rate, frames: rate)
        let columns = try analyse(signal, settings: settings(spp: [spp])).levels[0]
        return columns.dropFirst(2).dropLast(2).map(\.bands)
    }

    @Test(arguments: [(100.0, WaveformTotals.Band.low), (1000, .mid), (8000, .high), (60, .low), (12000, .high)])
    func aSineLandsInItsBand(frequency: Double, band: WaveformTotals.Band) throws {
        let bands = try Self.steadyBands(frequency: frequency)
        #expect(!bands.isEmpty)
        for b in bands {
            let total = b.low * b.low + b.mid * b.mid + b.high * b.high
            let inBand: Float = band == .low ? b.low : band == .mid ? b.mid : b.high
            #expect(inBand * inBand >= 0.999 * total, "\(frequency) Hz: \(b)")
            // The bands add up to the sine's mean square, A²/2 = 0.125 (Parseval, window-compensated).
            #expect(abs(total - 0.125) < 0.125 * 0.01, "\(frequency) Hz: total \(total)")
            // The centroid sits on the sine, within the window's main lobe (±2 bins of 23.4 Hz).
            #expect(abs(Double(b.centroidHz) - frequency) < 50 + 0.02 * frequency, "\(frequency) Hz: centroid \(b.centroidHz)")
        }
    }

    @Test func wholeStreamTotalsNameTheDominantBand() throws {
        let low = TestSignals.sine(frequency: 100, amplitude: 0.6, rate: Self.rate, frames: Self.rate)
        let high = TestSignals.sine(frequency: 8000, amplitude: 0.2, rate: Self.rate, frames: Self.rate)
        let (_, totals) = try analyse(zip(low, high).map { $0 + $1 }, settings: Self.settings(spp: [4800]))
        #expect(totals.dominantBand == .low)
        // Powers 0.18 and 0.02: shares 0.9 and 0.1.
        #expect(abs(totals.share(of: .low) - 0.9) < 0.01)
        #expect(abs(totals.share(of: .high) - 0.1) < 0.01)
        #expect(totals.share(of: .mid) < 0.001)
    }

    /// Fine zoom levels (spp below the hop of N/2 = 1024) interpolate between frames: a steady sine gives
    /// the same values in every column, and a sine that starts halfway rises smoothly, never overshooting.
    @Test func fineZoomLevelsInterpolateBetweenFrames() throws {
        let steady = try Self.steadyBands(frequency: 1000, spp: 64)
        let mids = steady.dropFirst(20).dropLast(20).map(\.mid)
        #expect(mids.max()! - mids.min()! < 0.003 * mids.max()!)

        var signal = [Float](repeating: 0, count: 9600)
        let tone = TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: Self.rate, frames: 4800)
        signal.replaceSubrange(4800..<9600, with: tone)
        let columns = try analyse(signal, settings: Self.settings(spp: [32])).levels[0]
        let rise = columns.map(\.bands.mid)
        #expect(rise.first == 0)
        // Up to the column of the last frame that lies wholly inside the stream (centred on a multiple of the hop,
        // N/2 = 1024, at most N/2 before the end; after it the frames take in the silence past the end).
        let lastWhole = (9600 - 1024) / 1024 * 1024 / 32
        for i in 1..<lastWhole { #expect(rise[i] >= rise[i - 1] - 1e-4, "column \(i)") }
        let steadyLevel = Float(0.125.squareRoot())
        #expect(abs(rise[lastWhole - 1] - steadyLevel) < 0.01 * steadyLevel)
    }

    @Test func silenceHasNoBandsAndNoCentroid() throws {
        let (levels, totals) = try analyse([Float](repeating: 0, count: 5000), settings: Self.settings(spp: [100], rows: 8))
        #expect(levels[0].allSatisfy { $0.bands == .silent && $0.spectrum.allSatisfy { $0 == 0 } })
        #expect(levels[0].allSatisfy { $0.channels[0] == ChannelLevels(min: 0, max: 0, rms: 0) })
        #expect(totals.dominantBand == nil && totals.centroidHz == 0)
    }

    /// A sine on a bin centre, in the middle of a spectrogram row, reads A²/2 in that row (its whole
    /// main lobe lies inside) and almost nothing two rows away.
    @Test func spectrogramRowsPlaceASine() throws {
        let rows = 64, row = 38
        // Rows are log-spaced from 20 Hz to 24 kHz; take the bin (23.4375 Hz apart) nearest row 38's centre.
        let centre = 20 * pow(24_000.0 / 20, (Double(row) + 0.5) / Double(rows))
        let frequency = (centre / 23.4375).rounded() * 23.4375
        let signal = TestSignals.sine(frequency: frequency, amplitude: 0.5, rate: Self.rate, frames: Self.rate)
        let columns = try analyse(signal, settings: Self.settings(spp: [4800], rows: rows)).levels[0]
        for column in columns.dropFirst().dropLast() {
            #expect(column.spectrum.count == rows)
            let loudest = column.spectrum.indices.max { column.spectrum[$0] < column.spectrum[$1] }!
            #expect(loudest == row)
            #expect(abs(column.spectrum[row] - 0.125) < 0.125 * 0.01, "\(column.spectrum[row])")
            #expect(column.spectrum[row - 2] < 1e-6 && column.spectrum[row + 2] < 1e-6)
        }
    }

    @Test(arguments: [(44_100, 2048), (48_000, 2048), (96_000, 4096), (22_050, 1024), (11_025, 512), (8000, 256), (32_000, 1024)])
    func fftSizeKeepsTheWindowNear43Milliseconds(rate: Int, size: Int) {
        #expect(WaveformAnalysisSettings.defaultFFTSize(sampleRate: rate) == size)
    }
}
