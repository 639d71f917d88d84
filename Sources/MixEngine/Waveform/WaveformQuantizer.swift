/// Turns levels into the integers of audiowaveform's files.
///
/// 16 bits: v = clamp(round(x * 32768), -32768, 32767), which gives back a 16-bit file's own samples
/// (libsndfile reads them as s / 32768). 8 bits: v16 / 256, truncated toward zero, exactly as
/// audiowaveform derives its 8-bit data from 16-bit values.
///
/// A value holding one `Int`; allocates nothing. `Sendable`, safe to share.
public struct WaveformQuantizer: Sendable {
    public let bits: Int

    public init(bits: Int) {
        precondition(bits == 8 || bits == 16)
        self.bits = bits
    }

    @inlinable
    public func value(_ x: Float) -> Int {
        let scaled = (x * 32768).rounded()
        let v16 = Int(Swift.min(Swift.max(scaled.isNaN ? 0 : scaled, -32768), 32767))
        return bits == 16 ? v16 : v16 / 256
    }
}
