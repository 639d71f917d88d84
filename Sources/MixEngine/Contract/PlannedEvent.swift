import MixDSP

/// One source placed on the timeline: plays `[start, end)`, reading its source from `sourceOffset`.
/// A value: three `Int64`s, an existential `EventMaterial` and a `GainStack`; allocates only
/// those when made. `Sendable`, safe to share.
public struct PlannedEvent: Sendable {
    public var start: Int64
    public var end: Int64
    public var sourceOffset: Int64
    /// What it plays (made into a `FrameSource` when the event starts).
    public var material: any EventMaterial
    /// The event's own gains (a playlist item's crossfades); empty when none.
    public var gains: GainStack

    public init(start: Int64, end: Int64, sourceOffset: Int64 = 0, material: any EventMaterial, gains: GainStack = GainStack()) {
        self.start = start
        self.end = end
        self.sourceOffset = sourceOffset
        self.material = material
        self.gains = gains
    }
}
