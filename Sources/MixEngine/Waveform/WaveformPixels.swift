/// A waveform's columns fitted to a width in pixels, ready to draw: per lane (channel) and pixel the
/// min, max and RMS, and per pixel the band levels.
///
/// Column j (of C) goes to pixels [s_j, max(s_j + 1, s_(j+1))), s_j = floor(j W / C): with more columns
/// than pixels each pixel merges several (min of mins, max of maxes, RMS and band levels as
/// sqrt(mean of squares)); with fewer, each column widens over several pixels.
///
/// A value of six `Float` arrays: min, max and RMS of `laneCount x width` (lane-major), low, mid and
/// high of `width`. `fit` allocates them (and a count per pixel); reading allocates nothing.
/// `Sendable`, safe to share.
public struct WaveformPixels: Sendable {
    public let width: Int
    public let laneCount: Int
    /// Columns that were fitted.
    public let columnCount: Int
    /// Indexed [lane * width + x].
    public private(set) var min: [Float]
    public private(set) var max: [Float]
    public private(set) var rms: [Float]
    /// Indexed [x].
    public private(set) var low: [Float]
    public private(set) var mid: [Float]
    public private(set) var high: [Float]

    /// Fits the columns of `store` to `width` pixels.
    public static func fit(_ store: WaveformColumnStore, width: Int) throws -> WaveformPixels {
        var pixels = WaveformPixels(width: width, laneCount: store.channelCount, columnCount: store.count)
        let total = Int64(store.count), w = Int64(width), lanes = store.channelCount
        var hits = [Int](repeating: 0, count: width)
        var j: Int64 = 0
        try store.forEach { column in
            let s = Int(j * w / total), e = Swift.max(s + 1, Int((j + 1) * w / total))
            for x in s..<Swift.min(e, width) {
                for lane in 0..<lanes {
                    let i = lane * width + x
                    pixels.min[i] = Swift.min(pixels.min[i], column.min(lane))
                    pixels.max[i] = Swift.max(pixels.max[i], column.max(lane))
                    pixels.rms[i] += column.rms(lane) * column.rms(lane)
                }
                pixels.low[x] += column.low * column.low
                pixels.mid[x] += column.mid * column.mid
                pixels.high[x] += column.high * column.high
                hits[x] += 1
            }
            j += 1
        }
        for x in 0..<width {
            let n = Float(Swift.max(hits[x], 1))
            for lane in 0..<lanes {
                let i = lane * width + x
                if hits[x] == 0 { pixels.min[i] = 0; pixels.max[i] = 0 }
                pixels.rms[i] = (pixels.rms[i] / n).squareRoot()
            }
            pixels.low[x] = (pixels.low[x] / n).squareRoot()
            pixels.mid[x] = (pixels.mid[x] / n).squareRoot()
            pixels.high[x] = (pixels.high[x] / n).squareRoot()
        }
        return pixels
    }

    private init(width: Int, laneCount: Int, columnCount: Int) {
        precondition(width > 0 && laneCount > 0)
        self.width = width
        self.laneCount = laneCount
        self.columnCount = columnCount
        min = [Float](repeating: .infinity, count: width * laneCount)
        max = [Float](repeating: -.infinity, count: width * laneCount)
        rms = [Float](repeating: 0, count: width * laneCount)
        low = [Float](repeating: 0, count: width)
        mid = low
        high = low
    }

    /// The largest |sample| drawn.
    public var peak: Float { Swift.max(max.max() ?? 0, -(min.min() ?? 0), 0) }

    /// Rows (from the top, inclusive) that pixel `x` of `lane` covers in an image `height` pixels high,
    /// lanes stacked top to bottom: v is drawn at row top + (h - 1) (1 - clamp(v * scale, -1, 1)) / 2.
    /// The peak span runs from max to min (at least one row: silence is a line through the middle);
    /// the RMS span from +rms to -rms, kept inside the peak span.
    public func spans(x: Int, lane: Int, height: Int, scale: Float)
        -> (peak: ClosedRange<Int>, rms: ClosedRange<Int>?) {
        let top = lane * height / laneCount, bottom = (lane + 1) * height / laneCount
        let h = Float(bottom - top)
        func row(_ v: Float) -> Int {
            let clipped = Swift.min(Swift.max(v * scale, -1), 1)
            return top + Int(((h - 1) * (1 - clipped) / 2).rounded())
        }
        let i = lane * width + x
        let peak = row(max[i])...Swift.max(row(max[i]), row(min[i]))
        let r = rms[i]
        guard r > 0 else { return (peak, nil) }
        let upper = Swift.max(row(r), peak.lowerBound), lower = Swift.min(row(-r), peak.upperBound)
        return (peak, upper <= lower ? upper...lower : nil)
    }

    /// Peak and RMS colours of pixel `x` in `style`.
    public func colors(x: Int, style: WaveformImageStyle) -> (peak: WaveformColor, rms: WaveformColor) {
        if style.colorMode == .bands, let c = WaveformColor.bands(low: low[x], mid: mid[x], high: high[x]) {
            return (c, c.mixed(with: .white, 0.4))
        }
        return (style.color, style.resolvedRMSColor)
    }
}
