/// A constant gain times any number of envelopes (a track's gain, its fades, its automation),
/// rendered one block at a time into a gain buffer.
///
/// A value: a `Float` and an array of envelopes; allocates only that array when made (`render` writes
/// into the caller's buffers and allocates nothing). `Sendable`, safe to share.
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
    ///
    /// Every frame's gain is ((constant * e1) * e2) * ... in this order, whether an envelope happens
    /// to be constant over the block or not, so the result does not depend on where blocks begin.
    public func render(into gains: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                       count: Int, at position: Int64) -> Float? {
        var k = constant
        var isFilled = false
        for envelope in envelopes {
            let c = envelope.render(into: isFilled ? scratch : gains, count: count, at: position)
            switch (c, isFilled) {
            case (let c?, false):
                k *= c
            case (let c?, true):
                Kernels.scale(gains, by: c, count: count)
            case (nil, false):
                Kernels.scale(gains, by: k, count: count)       // k * e[i] (multiplication commutes)
                isFilled = true
            case (nil, true):
                Kernels.multiply(gains, by: scratch, count: count)
            }
        }
        return isFilled ? nil : k
    }
}
