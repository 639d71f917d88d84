/// Something that plays: planar frames at the output rate and channel count, addressed by position.
///
/// `render` writes frames `[position, position + count)` of the source into frames
/// `[offset, offset + count)` of `block`; frames past the source's end are silence.
/// Reading positions in increasing, contiguous order is the fast path; streaming sources
/// (a file being decoded) get slower, not wrong, when asked for another position.
///
/// A source made for one event is called from one thread only (the render thread), and `render` should
/// not allocate (a render block allocates nothing). A source prepared once and shared (`PreparedMaterial`)
/// is rendered by several renders, possibly on several threads at once, so its `render` must only read.
public protocol FrameSource: AnyObject {
    var channelCount: Int { get }
    /// Length in frames; nil for endless sources (generators, loops).
    var frameCount: Int64? { get }
    func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws
}

/// A source whose frames lie in memory as they play (a loop's cycle, a file held whole), so a mixer can read
/// them where they are instead of copying them into a block first. `frames` must give exactly what `render`
/// would write for the same range, or nil when the range does not lie in one run (a loop's wrap, the end).
/// Read-only, like `render` on shared material; allocates nothing.
public protocol ContiguousFrames: FrameSource {
    /// Channel `channel`'s frames `[position, position + count)`, or nil.
    func frames(channel: Int, at position: Int64, count: Int) -> UnsafePointer<Float>?
}
