/// A waveform as lines of text for a terminal: per lane (channel) `rows` lines of Unicode block elements,
/// one character per pixel, a bar from the bottom as tall as the pixel's peak (|min| or |max|) times
/// `scale` (in decibels over `decibelRange` when given: `WaveformPixels.shaped`), in eighths of a character
/// (▁▂▃▄▅▆▇█); any sound shows at least an eighth. With a colour mode other than solid, each character takes its
/// column's band colour (`WaveformPixels.bandColor`) as a 24-bit ANSI foreground colour.
///
/// No state but a constant table: any thread may call `lines`, which allocates the strings it returns.
public enum WaveformTerminalPreview {
    static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    public static func lines(_ pixels: WaveformPixels, rows: Int, scale: Float, decibelRange: Float? = nil,
                             colors: WaveformImageStyle.ColorMode) -> [String] {
        precondition(rows > 0)
        var lines: [String] = []
        for lane in 0..<pixels.laneCount {
            var eighths = [Int](repeating: 0, count: pixels.width)
            for x in 0..<pixels.width {
                let i = lane * pixels.width + x
                let peak = WaveformPixels.shaped(max(pixels.max[i], -pixels.min[i], 0), scale: scale, decibelRange: decibelRange)
                let n = Int((min(peak, 1) * Float(rows * 8)).rounded())
                eighths[x] = peak > 0 ? max(n, 1) : 0
            }
            for line in 0..<rows {
                let base = (rows - 1 - line) * 8
                var text = ""
                var current: WaveformColor?
                for x in 0..<pixels.width {
                    let fill = min(max(eighths[x] - base, 0), 8)
                    if fill > 0, let c = pixels.bandColor(x: x, mode: colors), c != current {
                        text += "\u{1B}[38;2;\(c.red);\(c.green);\(c.blue)m"
                        current = c
                    }
                    text.append(blocks[fill])
                }
                if current != nil { text += "\u{1B}[0m" }
                lines.append(text)
            }
        }
        return lines
    }
}
