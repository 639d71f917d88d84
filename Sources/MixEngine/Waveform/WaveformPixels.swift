import MixDSP

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
    /// Each band's usual level over the whole width (the median of the sounding pixels'), which `.relative`
    /// colours are measured against.
    public private(set) var bandReference: (low: Float, mid: Float, high: Float) = (0, 0, 0)

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
        // The usual level of each band: its median over the sounding pixels, which a few loud events do not move.
        let sounding = (0..<width).filter { pixels.low[$0] + pixels.mid[$0] + pixels.high[$0] > 0 }
        func median(_ levels: [Float]) -> Float {
            let sorted = sounding.map { levels[$0] }.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }
        pixels.bandReference = (median(pixels.low), median(pixels.mid), median(pixels.high))
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

    /// Where a sample value is drawn, -1 to 1 of the lane's half height: v * scale, clipped; or with a decibel range
    /// R, sign(v) * max(0, 1 + dB(|v * scale|) / R), so the edge is 0 dBFS and the centre line -R dBFS.
    public static func shaped(_ v: Float, scale: Float, decibelRange: Float?) -> Float {
        let a = Swift.min(abs(v * scale), 1)
        guard let range = decibelRange else { return v < 0 ? -a : a }
        guard a > 0 else { return 0 }
        let level = Swift.max(0, 1 + Float(decibels(fromGain: Double(a))) / range)
        return v < 0 ? -level : level
    }

    /// Rows (from the top, inclusive) that pixel `x` of `lane` covers in an image `height` pixels high,
    /// lanes stacked top to bottom: v is drawn at row top + (h - 1) (1 - shaped(v)) / 2 (`shaped`).
    /// The peak span runs from max to min (at least one row: silence is a line through the middle);
    /// the RMS span from +rms to -rms, kept inside the peak span.
    public func spans(x: Int, lane: Int, height: Int, scale: Float, decibelRange: Float? = nil)
        -> (peak: ClosedRange<Int>, rms: ClosedRange<Int>?) {
        let top = lane * height / laneCount, bottom = (lane + 1) * height / laneCount
        let h = Float(bottom - top)
        func row(_ v: Float) -> Int {
            top + Int(((h - 1) * (1 - Self.shaped(v, scale: scale, decibelRange: decibelRange)) / 2).rounded())
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
        if let c = bandColor(x: x, mode: style.colorMode) { return (c, c.mixed(with: .white, 0.4)) }
        return (style.color, style.resolvedRMSColor)
    }

    /// The band colour of pixel `x` in `mode`, or nil (solid colouring, or silence).
    public func bandColor(x: Int, mode: WaveformImageStyle.ColorMode) -> WaveformColor? {
        switch mode {
        case .solid: return nil
        case .bands: return WaveformColor.bands(low: low[x], mid: mid[x], high: high[x])
        case .relative: return relativeBandColor(x: x)
        }
    }

    /// Each band measured against its own usual level over the file (`bandReference`): r = level / reference, and the
    /// colour's red, green and blue are (r / largest r)^2 for low, mid and high. A column where every band is
    /// at its usual level is near white; one where a band stands 6 dB above the others' usual share takes that
    /// band's colour (the others at a quarter), so what stands out of a steady bed shows; nil for silence.
    public func relativeBandColor(x: Int) -> WaveformColor? {
        func ratio(_ level: Float, _ reference: Float) -> Float { reference > 0 ? level / reference : 0 }
        let r = (ratio(low[x], bandReference.low), ratio(mid[x], bandReference.mid), ratio(high[x], bandReference.high))
        let largest = Swift.max(r.0, r.1, r.2)
        guard largest > 0 else { return nil }
        func channel(_ v: Float) -> UInt8 { let t = v / largest; return UInt8((255 * t * t).rounded()) }
        return WaveformColor(red: channel(r.0), green: channel(r.1), blue: channel(r.2))
    }
}
