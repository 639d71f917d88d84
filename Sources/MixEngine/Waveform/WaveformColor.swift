/// An 8-bit sRGB colour with alpha, written `#rrggbb` or `#rrggbbaa`.
/// A value of four `UInt8`s; allocates nothing (parsing and `description` make strings). `Sendable`,
/// safe to share.
public struct WaveformColor: Sendable, Equatable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = WaveformColor(red: 255, green: 255, blue: 255)
    public static let transparent = WaveformColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// `#rrggbb`, `rrggbb`, `#rrggbbaa`, `#rgb`, or `transparent`; nil otherwise.
    public init?(parsing text: String) {
        if text.lowercased() == "transparent" { self = .transparent; return }
        var hex = Substring(text)
        if hex.hasPrefix("#") { hex = hex.dropFirst() }
        if hex.count == 3 { hex = Substring(hex.map { "\($0)\($0)" }.joined()) }
        guard hex.count == 6 || hex.count == 8, let value = UInt32(hex, radix: 16) else { return nil }
        let full = hex.count == 6 ? value << 8 | 0xFF : value
        self.init(red: UInt8(full >> 24), green: UInt8(full >> 16 & 0xFF), blue: UInt8(full >> 8 & 0xFF),
                  alpha: UInt8(full & 0xFF))
    }

    /// `#rrggbb`, or `#rrggbbaa` when not opaque.
    public var description: String {
        func hex(_ v: UInt8) -> String { let s = String(v, radix: 16); return s.count == 1 ? "0" + s : s }
        return "#" + hex(red) + hex(green) + hex(blue) + (alpha == 255 ? "" : hex(alpha))
    }

    /// c + (other - c) * t, per channel (alpha included).
    public func mixed(with other: WaveformColor, _ t: Double) -> WaveformColor {
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return WaveformColor(red: mix(red, other.red), green: mix(green, other.green), blue: mix(blue, other.blue),
                             alpha: mix(alpha, other.alpha))
    }

    /// Porter-Duff "over": this colour painted on `below` (straight, not premultiplied, alpha).
    public func over(_ below: WaveformColor) -> WaveformColor {
        if alpha == 255 || below.alpha == 0 { return self }
        let a = Double(alpha) / 255, b = Double(below.alpha) / 255
        let out = a + b * (1 - a)
        func channel(_ x: UInt8, _ y: UInt8) -> UInt8 {
            UInt8(((Double(x) * a + Double(y) * b * (1 - a)) / out).rounded())
        }
        return WaveformColor(red: channel(red, below.red), green: channel(green, below.green),
                             blue: channel(blue, below.blue), alpha: UInt8((out * 255).rounded()))
    }

    /// The colour of a column from its band levels, as DJ software colours waveforms: low drives red,
    /// mid green, high blue, each as sqrt(level / loudest band) (so a band 12 dB below the loudest
    /// still shows at half intensity); nil for silence.
    public static func bands(low: Float, mid: Float, high: Float) -> WaveformColor? {
        let loudest = max(low, mid, high)
        guard loudest > 0 else { return nil }
        func channel(_ x: Float) -> UInt8 { UInt8((255 * (x / loudest).squareRoot()).rounded()) }
        return WaveformColor(red: channel(low), green: channel(mid), blue: channel(high))
    }
}
