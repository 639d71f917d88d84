import Foundation
import MixDSP
import MixIO

/// Tier 3, lossy (Ogg Vorbis): a spectral measure on decoded PCM, never on bytes (Ogg stream serials
/// are random, and another libvorbis may round differently).
///
/// Metric: 1/3-octave band levels. Each channel is cut into Hann-windowed frames of `fftSize` samples
/// (hop `fftSize / 2`), transformed with FFTW (`FFTWRealFFT`), and the power of the bins in each
/// 1/3-octave band (centres 1000 * 2^(k/3) Hz, from 100 Hz to the highest band below 0.9 x Nyquist and
/// 16 kHz) is averaged over segments of `segmentSeconds`. Levels are mean-square dBFS (a full-scale sine: -3 dB). Only cells (segment, channel,
/// band) where the golden is within `dynamicRangeDb` of that segment's loudest band count: below that,
/// the codec's own noise decides. For the counted cells, d = actual - golden in dB, and
/// pass: |mean d| <= `maxMeanDb` (an overall level shift) AND mean |d| <= `maxMeanAbsDb` (a changed
/// spectrum) AND max |d| <= `maxAbsDb` (one band or moment gone wrong).
enum SpectralTier {
    static let fftSize = 2048
    static let segmentSeconds = 0.5
    static let dynamicRangeDb = 50.0
    static let maxMeanDb = 0.1
    static let maxMeanAbsDb = 0.25
    static let maxAbsDb = 3.0

    /// Band levels of one signal: `levels[segment][channel][band]` in dB.
    struct BandLevels {
        var centres: [Double]
        var segmentFrames: Int
        var levels: [[[Double]]]
    }

    /// Centres of the 1/3-octave bands analysed at `sampleRate`.
    static func bandCentres(sampleRate: Int) -> [Double] {
        let top = min(0.9 * Double(sampleRate) / 2, 16_000)
        var centres: [Double] = []
        var k = -10                                           // 1000 * 2^(-10/3) = 99.2 Hz
        while true {
            let centre = 1000 * pow(2, Double(k) / 3)
            if centre * pow(2, 1.0 / 6) > top { break }
            centres.append(centre)
            k += 1
        }
        return centres
    }

    static func analyse(_ audio: PCMAudio, fftSize: Int = fftSize, segmentSeconds: Double = segmentSeconds) -> BandLevels {
        let size = fftSize, hop = fftSize / 2, bins = size / 2 + 1
        let centres = bandCentres(sampleRate: audio.sampleRate)
        let binHz = Double(audio.sampleRate) / Double(size)
        // Bin ranges [lo, hi) of each band, edges at centre * 2^(-+1/6).
        let ranges: [Range<Int>] = centres.map { c in
            let lo = Int((c * pow(2, -1.0 / 6) / binHz).rounded(.up))
            let hi = max(lo + 1, Int((c * pow(2, 1.0 / 6) / binHz).rounded(.up)))
            return lo..<min(hi, bins)
        }
        let window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        let frameCount = max(0, (audio.frameCount - size) / hop + 1)
        let framesPerSegment = max(1, Int((segmentSeconds * Double(audio.sampleRate) / Double(hop)).rounded()))
        let segmentCount = (frameCount + framesPerSegment - 1) / framesPerSegment

        let fft = FFTWRealFFT(size: size)
        var input = [Float](repeating: 0, count: size)
        var real = [Float](repeating: 0, count: bins), imaginary = real
        var power = [[[Double]]](repeating: [[Double]](repeating: [Double](repeating: 0, count: centres.count),
                                                         count: audio.channelCount), count: segmentCount)
        var counts = [Int](repeating: 0, count: segmentCount)
        let n = audio.channelCount
        audio.samples.withUnsafeBufferPointer { s in
            for f in 0..<frameCount {
                let segment = f / framesPerSegment
                counts[segment] += 1
                for c in 0..<n {
                    for i in 0..<size { input[i] = s[(f * hop + i) * n + c] * window[i] }
                    fft.forward(input, real: &real, imaginary: &imaginary)
                    for (b, range) in ranges.enumerated() {
                        var p: Double = 0
                        for k in range { p += Double(real[k]) * Double(real[k]) + Double(imaginary[k]) * Double(imaginary[k]) }
                        power[segment][c][b] += p
                    }
                }
            }
        }
        // Normalised to mean-square level (dBFS: a full-scale sine reads -3 dB in its band): a one-sided
        // power spectrum sums to size * sum(w^2) / 2 times the mean square, and sum(w^2) = 3 size / 8 for Hann.
        let scale = 16 / (3 * Double(size) * Double(size))
        let levels = power.enumerated().map { segment, channels in
            channels.map { bands in bands.map { 10 * log10(max($0 * scale / Double(counts[segment]), 1e-20)) } }
        }
        return BandLevels(centres: centres, segmentFrames: framesPerSegment * hop, levels: levels)
    }

    struct Difference: CustomStringConvertible {
        var meanDb: Double
        var meanAbsDb: Double
        var maxAbsDb: Double
        /// Where the largest difference is.
        var worstSegmentSeconds: Double
        var worstChannel: Int
        var worstBandHz: Double
        var cellCount: Int
        /// One line per counted cell: segment start (s), channel, band (Hz), golden dB, actual dB, difference dB.
        var table: String

        var isWithinThresholds: Bool {
            cellCount > 0 && abs(meanDb) <= SpectralTier.maxMeanDb && meanAbsDb <= SpectralTier.maxMeanAbsDb
                && maxAbsDb <= SpectralTier.maxAbsDb
        }

        var description: String {
            String(format: "1/3-octave band levels: mean difference %+.3f dB, mean |difference| %.3f dB, max |difference| %.2f dB "
                   + "(%.0f Hz band, channel %d, segment at %.1f s) over %d cells (thresholds: |mean| <= %.2f dB, "
                   + "mean |difference| <= %.2f dB, max |difference| <= %.1f dB)",
                   meanDb, meanAbsDb, maxAbsDb, worstBandHz, worstChannel, worstSegmentSeconds, cellCount,
                   SpectralTier.maxMeanDb, SpectralTier.maxMeanAbsDb, SpectralTier.maxAbsDb)
        }
    }

    /// Compares band levels; both must have the same rate and channel count (the exact tier checks).
    static func compare(actual: PCMAudio, golden: PCMAudio, fftSize: Int = fftSize, segmentSeconds: Double = segmentSeconds,
                        dynamicRangeDb: Double = dynamicRangeDb) -> Difference {
        precondition(actual.sampleRate == golden.sampleRate && actual.channelCount == golden.channelCount)
        let a = analyse(actual, fftSize: fftSize, segmentSeconds: segmentSeconds)
        let g = analyse(golden, fftSize: fftSize, segmentSeconds: segmentSeconds)
        let segments = min(a.levels.count, g.levels.count)
        var sum = 0.0, sumAbs = 0.0, worst = 0.0, count = 0
        var worstAt = (0, 0, 0)
        var table = "segment_s\tchannel\tband_hz\tgolden_db\tactual_db\tdifference_db\n"
        for s in 0..<segments {
            for c in 0..<golden.channelCount {
                let loudest = g.levels[s][c].max() ?? -200
                for b in g.centres.indices where g.levels[s][c][b] >= loudest - dynamicRangeDb {
                    let d = a.levels[s][c][b] - g.levels[s][c][b]
                    sum += d; sumAbs += abs(d); count += 1
                    if abs(d) > worst { worst = abs(d); worstAt = (s, c, b) }
                    table += String(format: "%.2f\t%d\t%.0f\t%.2f\t%.2f\t%+.3f\n", Double(s * g.segmentFrames) / Double(golden.sampleRate),
                                    c, g.centres[b], g.levels[s][c][b], a.levels[s][c][b], d)
                }
            }
        }
        let n = Double(max(count, 1))
        return Difference(meanDb: sum / n, meanAbsDb: sumAbs / n, maxAbsDb: worst,
                          worstSegmentSeconds: Double(worstAt.0 * g.segmentFrames) / Double(golden.sampleRate),
                          worstChannel: worstAt.1, worstBandHz: g.centres.isEmpty ? 0 : g.centres[worstAt.2],
                          cellCount: count, table: table)
    }
}
