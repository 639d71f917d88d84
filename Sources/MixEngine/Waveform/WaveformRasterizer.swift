/// Draws `WaveformPixels` into 8-bit RGBA pixels (rows top to bottom) for `PNGWriter`: the background,
/// then per pixel column and lane the peak span and, over it, the RMS span (see `WaveformPixels.spans`).
enum WaveformRasterizer {
    static func draw(_ pixels: WaveformPixels, style: WaveformImageStyle, height: Int, scale: Float) -> [UInt8] {
        let width = pixels.width
        let background = style.resolvedBackground
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        rgba.withUnsafeMutableBufferPointer { p in
            func paint(_ color: WaveformColor, x: Int, rows: ClosedRange<Int>) {
                for y in rows {
                    let i = (y * width + x) * 4
                    p[i] = color.red; p[i + 1] = color.green; p[i + 2] = color.blue; p[i + 3] = color.alpha
                }
            }
            for x in 0..<width { paint(background, x: x, rows: 0...(height - 1)) }
            for x in 0..<width {
                let (peakColor, rmsColor) = pixels.colors(x: x, style: style)
                let peak = peakColor.over(background), rms = rmsColor.over(background)
                for lane in 0..<pixels.laneCount {
                    let spans = pixels.spans(x: x, lane: lane, height: height, scale: scale, decibelRange: style.decibelRange.map(Float.init))
                    paint(peak, x: x, rows: spans.peak)
                    if let r = spans.rms { paint(rms, x: x, rows: r) }
                }
            }
        }
        return rgba
    }
}
