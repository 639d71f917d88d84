import MixDSP
import MixEngine

/// An `AudioEncoder` that keeps the interleaved frames in memory: a render straight into a test.
public final class CaptureEncoder: AudioEncoder {
    public let sampleRate: Int
    public let channelCount: Int
    /// Interleaved: frame i, channel c is `samples[i * channelCount + c]`.
    public private(set) var samples: [Float] = []
    public private(set) var isFinished = false
    private var planar: [[Float]]?

    public init(sampleRate: Int, channelCount: Int, expectedFrames: Int = 0) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        samples.reserveCapacity(expectedFrames * channelCount)
    }

    public func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        precondition(!isFinished, "write after finish")
        samples.append(contentsOf: UnsafeBufferPointer(start: interleaved, count: frames * channelCount))
        planar = nil
    }

    public func finish() throws { isFinished = true }

    public var frameCount: Int { samples.count / channelCount }

    /// The samples channel by channel (split once, then kept).
    public var channels: [[Float]] {
        if let planar { return planar }
        let split = samples.withUnsafeBufferPointer { s in
            (0..<channelCount).map { c in (0..<frameCount).map { s[$0 * channelCount + c] } }
        }
        planar = split
        return split
    }
}

/// Renders `range` of a planned job (its own range unless told) with `Renderer` into memory, its bus mixed on
/// `threads` threads.
public func renderToMemory(_ job: RenderJob, range: Range<Int64>? = nil, blockFrames: Int = 4096, threads: Int = 1) throws
    -> (capture: CaptureEncoder, summary: RenderSummary) {
    let range = range ?? job.range
    let capture = CaptureEncoder(sampleRate: job.plan.sampleRate, channelCount: job.plan.channelCount,
                                 expectedFrames: range.count)
    let summary = try Renderer(plan: job.plan, blockFrames: blockFrames, threads: threads).render(to: capture, range: range)
    precondition(capture.isFinished, "the renderer did not finish its encoder")
    return (capture, summary)
}

/// Plans a preset file and renders it (or `range` of it) into memory.
public func renderToMemory(_ presetPath: String, blockFrames: Int = 4096, range: Range<Int64>? = nil) throws
    -> (CaptureEncoder, RenderSummary, RenderPlan) {
    let job = try RenderJob(presetPath: presetPath)
    let (capture, summary) = try renderToMemory(job, range: range, blockFrames: blockFrames)
    return (capture, summary, job.plan)
}
