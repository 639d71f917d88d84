import MixIO
/// Writes `WaveformPixels` as an SVG image: a background rectangle, then one `<path>` per colour made of
/// a vertical one-pixel line per column for the peak spans, then the same for the RMS spans (the
/// geometry of `WaveformPixels.spans`, the same as the PNG's).
enum WaveformSVGWriter {
    static func write(_ pixels: WaveformPixels, style: WaveformImageStyle, height: Int, scale: Float,
                      to path: String, displayPath: String) throws {
        let width = pixels.width
        let out = try BufferedFileWriter(path: path, displayPath: displayPath)
        try out.text("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" ")
        try out.text("viewBox=\"0 0 \(width) \(height)\" shape-rendering=\"crispEdges\">\n")
        let background = style.resolvedBackground
        if background.alpha > 0 {
            try out.text("<rect width=\"\(width)\" height=\"\(height)\" \(paint("fill", background))/>\n")
        }
        // Lines grouped by colour, in order of first use: peaks first, RMS drawn over them.
        var peakPaths = OrderedPaths(), rmsPaths = OrderedPaths()
        for x in 0..<width {
            let colors = pixels.colors(x: x, style: style)
            for lane in 0..<pixels.laneCount {
                let spans = pixels.spans(x: x, lane: lane, height: height, scale: scale, decibelRange: style.decibelRange.map(Float.init))
                peakPaths.add(colors.peak, x: x, rows: spans.peak)
                if let r = spans.rms { rmsPaths.add(colors.rms, x: x, rows: r) }
            }
        }
        for paths in [peakPaths, rmsPaths] {
            for (color, d) in zip(paths.colors, paths.data) {
                try out.text("<path fill=\"none\" stroke-width=\"1\" \(paint("stroke", color)) d=\"")
                try out.text(d)
                try out.text("\"/>\n")
            }
        }
        try out.text("</svg>\n")
        try out.close()
    }

    /// `fill="#rrggbb"`, with `fill-opacity` when the colour is not opaque.
    static func paint(_ attribute: String, _ color: WaveformColor) -> String {
        var opaque = color
        opaque.alpha = 255
        var s = "\(attribute)=\"\(opaque)\""
        if color.alpha < 255 {
            let opacity = (Double(color.alpha) / 255 * 1000).rounded() / 1000
            s += " \(attribute)-opacity=\"\(opacity)\""
        }
        return s
    }

    /// Path data per colour: "M x+0.5 top V bottom+1" per column (a line covering whole pixel rows).
    private struct OrderedPaths {
        var colors: [WaveformColor] = []
        var data: [String] = []
        private var index: [String: Int] = [:]

        mutating func add(_ color: WaveformColor, x: Int, rows: ClosedRange<Int>) {
            let key = color.description
            let i: Int
            if let existing = index[key] {
                i = existing
            } else {
                i = colors.count
                index[key] = i
                colors.append(color)
                data.append("")
            }
            data[i] += "M\(x).5 \(rows.lowerBound)V\(rows.upperBound + 1)"
        }
    }
}
