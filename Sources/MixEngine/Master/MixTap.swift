import MixDSP
import MixIO

/// The one sink protocol: something that listens to the mix at a point of the master chain without
/// changing it: a meter, the output encoder, a waveform recorder, a loudness meter.
///
/// A tap receives exactly the frames of the render's range (not the warm-up before a partial render,
/// not the limiter's flush after it), in timeline order, planar, on the render thread. It must not
/// change `block`. Work that is slow (encoding, true-peak metering) belongs on another thread: wrap the
/// sink in a `ThreadedTap`. The output encoder is a sink too (`EncoderSink`).
/// `receive` runs once per block and should not allocate (a render block allocates nothing).
public protocol MixTap: AnyObject {
    /// Frames `[offset, offset + count)` of `block` are frames `[position, position + count)` of the timeline.
    func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws
    /// The range is over; flush and close.
    func finish() throws
    /// The render failed: stop without finishing (close threads and files), ignoring errors.
    func abandon()
}

extension MixTap {
    public func finish() throws {}
    public func abandon() {}
}

/// Where on the master chain a tap listens.
/// A plain enum value (`Sendable`); allocates nothing.
public enum TapPoint: Sendable {
    /// The bus as the tracks sum into it, before any master stage.
    case mix
    /// After the master gain and fades, before the limiter: where the level scales linearly with gain
    /// (where a loudness pass measures).
    case beforeLimiter
    /// What is written: after the limiter.
    case output
}

/// A tap and where it listens.
/// A value: a `TapPoint` and a reference to the tap; allocates nothing. Not `Sendable`: the tap is
/// called on the render thread.
public struct RenderTap {
    public var point: TapPoint
    public var tap: MixTap
    public init(_ point: TapPoint, _ tap: MixTap) { self.point = point; self.tap = tap }
}

/// Sample peak and RMS of what passes (`LevelMeter` in MixDSP).
/// Holds one `LevelMeter` value; allocates nothing. Not thread-safe: it receives on the render thread;
/// read `meter` after the render.
public final class LevelTap: MixTap {
    public private(set) var meter = LevelMeter()
    public init() {}
    public func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        meter.measure(block, offset: offset, count: count)
    }
}
