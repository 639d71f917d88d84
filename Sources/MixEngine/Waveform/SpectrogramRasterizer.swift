import Foundation

/// Draws a spectrogram from a store's spectrogram rows into 8-bit RGBA pixels: x is time (columns fitted
/// to the width as `WaveformPixels` fits them, rows averaged), y is log frequency (lowest at the bottom),
/// colour is the row power in dB, 10 log10(P), from the image's loudest value down `rangeDb`, through
/// a dark-purple-orange-yellow map (like matplotlib's "inferno").
enum SpectrogramRasterizer {
    static let rangeDb: Float = 100

    static func draw(_ store: WaveformColumnStore, width: Int) throws -> [UInt8] {
        let rows = store.rowCount, total = Int64(store.count), w = Int64(width)
        precondition(rows > 0)
        var power = [Float](repeating: 0, count: width * rows)
        var hits = [Int](repeating: 0, count: width)
        var j: Int64 = 0
        try store.forEach { column in
            let s = Int(j * w / total), e = max(s + 1, Int((j + 1) * w / total))
            for x in s..<min(e, width) {
                for r in 0..<rows { power[x * rows + r] += column.spectrum[r] }
                hits[x] += 1
            }
            j += 1
        }
        var loudest: Float = -.infinity
        for x in 0..<width {
            let n = Float(max(hits[x], 1))
            for r in 0..<rows {
                let p = power[x * rows + r] / n
                let db = p > 0 ? 10 * log10(p) : -.infinity
                power[x * rows + r] = db
                loudest = max(loudest, db)
            }
        }
        if !loudest.isFinite { loudest = 0 }
        let floor = loudest - rangeDb
        var rgba = [UInt8](repeating: 255, count: width * rows * 4)
        for y in 0..<rows {
            let r = rows - 1 - y
            for x in 0..<width {
                let db = power[x * rows + r]
                let t = db.isFinite ? min(max((db - floor) / rangeDb, 0), 1) : 0
                let c = color(t)
                let i = (y * width + x) * 4
                rgba[i] = c.red; rgba[i + 1] = c.green; rgba[i + 2] = c.blue
            }
        }
        return rgba
    }

    /// Stops of the colour map, linearly interpolated: t = 0 black, 1 pale yellow.
    private static let stops: [(Float, WaveformColor)] = [
        (0, WaveformColor(red: 0, green: 0, blue: 4)),
        (0.25, WaveformColor(red: 87, green: 16, blue: 110)),
        (0.5, WaveformColor(red: 188, green: 55, blue: 84)),
        (0.75, WaveformColor(red: 249, green: 142, blue: 9)),
        (1, WaveformColor(red: 252, green: 255, blue: 164)),
    ]

    static func color(_ t: Float) -> WaveformColor {
        for k in 1..<stops.count where t <= stops[k].0 {
            let (t0, a) = stops[k - 1], (t1, b) = stops[k]
            return a.mixed(with: b, Double((t - t0) / (t1 - t0)))
        }
        return stops[stops.count - 1].1
    }
}
