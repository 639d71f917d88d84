/// Another (stereo) source whose balance follows a pan curve on the timeline: a track's `drift.pan`.
///
/// The pan p(t) is an `Envelope` of values in [-1, 1] on the render's timeline; the gains follow the
/// balance law of a track's `pan`: g_L = cos(max(p, 0) pi/2), g_R = cos(max(-p, 0) pi/2). They are
/// computed exactly on a grid fixed on the timeline (every `gridFrames` frames) and joined by straight
/// lines, so the output is the same for any block size and any partial render, and no cosine is taken per
/// frame. A pan that drifts over minutes moves far less than 1e-6 between grid points.
///
/// Layout: a reference to the source it plays, the envelope (shared array) and two `Int64`s. `render`
/// allocates nothing. Not thread-safe; one per voice.
public final class PanDriftSource: FrameSource {
    public static let gridFrames: Int64 = 64
    public let source: FrameSource
    public let pan: Envelope
    /// Timeline position of the source's frame 0 (the event's start less its source offset).
    public let timelineOffset: Int64
    public var channelCount: Int { source.channelCount }
    public var frameCount: Int64? { source.frameCount }

    public init(_ source: FrameSource, pan: Envelope, timelineOffset: Int64) {
        precondition(source.channelCount == 2, "a pan needs two channels")
        self.source = source
        self.pan = pan
        self.timelineOffset = timelineOffset
    }

    /// The left and right gains at timeline frame `p`.
    @inline(__always)
    static func gains(_ pan: Float) -> (Double, Double) {
        let p = Double(min(max(pan, -1), 1))
        return (Curve.equalPower.shape(1 - max(p, 0)), Curve.equalPower.shape(1 + min(p, 0)))
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        try source.render(into: block, offset: offset, count: count, at: position)
        let left = block.channel(0).baseAddress! + offset, right = block.channel(1).baseAddress! + offset
        let g = Self.gridFrames
        var i = 0
        while i < count {
            let p = position + timelineOffset + Int64(i)
            let lo = (p >= 0 ? p / g : (p - g + 1) / g) * g
            let (l0, r0) = Self.gains(pan.value(at: lo)), (l1, r1) = Self.gains(pan.value(at: lo + g))
            let stretch = min(count - i, Int(lo + g - p))
            for m in 0..<stretch {
                // g(p) = g(lo) + (g(lo + grid) - g(lo)) (p - lo) / grid
                let t = Double(p - lo + Int64(m)) / Double(g)
                left[i + m] *= Float(l0 + (l1 - l0) * t)
                right[i + m] *= Float(r0 + (r1 - r0) * t)
            }
            i += stretch
        }
    }
}
