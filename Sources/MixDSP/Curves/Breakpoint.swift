/// A point where a value is reached along a curve: what envelopes, rate schedules and the presets' envelope and
/// schedule points are made of. `position` is where (a frame, an `Int64`, once planned; a time in a preset), `value`
/// what is reached there (a gain, a frequency), and `curve` the shape of the segment that ends at this point.
///
/// A value of its three parts; allocates nothing. `Sendable` when they are.
public struct Breakpoint<Position, Value> {
    public var position: Position
    public var value: Value
    /// The curve of the segment that ends at this point.
    public var curve: Curve

    @inlinable
    public init(position: Position, value: Value, curve: Curve = .linear) {
        self.position = position; self.value = value; self.curve = curve
    }
}

extension Breakpoint: Sendable where Position: Sendable, Value: Sendable {}
extension Breakpoint: Equatable where Position: Equatable, Value: Equatable {}
