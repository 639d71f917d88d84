/// A constant gain times any number of envelopes (a track's gain, its fades, its automation),
/// rendered one block at a time into a gain buffer.
public struct GainStack: Sendable {
    public var constant: Float
    public var envelopes: [Envelope]

    public init(constant: Float = 1, envelopes: [Envelope] = []) {
        self.constant = constant
        self.envelopes = envelopes.filter { !($0.isConstant && $0.points[0].value == 1) }
    }

    /// Renders the product for frames `[position, position + count)` into `gains`, using `scratch`
    /// (at least `count` floats) for the second and later envelopes. Returns the gain instead when it
    /// is the same for the whole block, and leaves `gains` undefined in that case.
    public func render(into gains: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                       count: Int, at position: Int64) -> Float? {
        var k = constant
        var isFilled = false
        for envelope in envelopes {
            if let c = envelope.render(into: isFilled ? scratch : gains, count: count, at: position) {
                k *= c
            } else if isFilled {
                Kernels.multiply(gains, by: scratch, count: count)
            } else {
                isFilled = true
            }
            if k == 0 { return 0 }
        }
        if !isFilled { return k }
        Kernels.scale(gains, by: k, count: count)
        return nil
    }
}
