import FuzzSupport
import MixEngine

/// Fuzz target: `TimeParser`. The bytes as text (invalid UTF-8 arrives repaired, as any Swift `String` does)
/// through `seconds`; a time it reads must be finite, not negative, and read back from what `string(fromSeconds:)`
/// and `clock` write for it (to the millisecond they round to). The first eight bytes are also taken as a
/// `Double`'s bits for the two writers, which must take any value (NaN, infinities, negatives, huge).
///
/// Finding: a crash, a hang, or a broken round trip (a failed precondition).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    if let seconds = TimeParser.seconds(text) {
        precondition(seconds.isFinite && seconds >= 0, "'\(text)' read as \(seconds)")
        expectRoundTrip(seconds)
    }
    if size >= 8 {
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[i]) << (8 * UInt64(i)) }
        let value = Double(bitPattern: bits)
        _ = TimeParser.string(fromSeconds: value)
        _ = TimeParser.clock(value)
        if value.isFinite && value >= 0 { expectRoundTrip(value) }
    }
    return 0
}

/// What the writers make of `seconds` reads back to within their rounding (half a millisecond, and the
/// `Double`'s own spacing for huge values, where they give up on units and write a plain number).
func expectRoundTrip(_ seconds: Double) {
    let tolerance = 0.0005 + seconds * 1e-15
    for written in [TimeParser.string(fromSeconds: seconds), TimeParser.clock(seconds)] where seconds < 1e15 {
        guard let back = TimeParser.seconds(written) else {
            preconditionFailure("\(seconds) s written as '\(written)', which does not read back")
        }
        precondition(abs(back - seconds) <= tolerance, "\(seconds) s written as '\(written)', read back as \(back)")
    }
}

FuzzMain.run(fuzz)
