import RealModule

/// A sine that glides up from `startHz` to `endHz` over `frames`, swelling in and out: a gentle "wake up"
/// chime. From frame 0 (its own start), computed from the position:
///
///   f(n) = startHz · (endHz / startHz)^(n / N)          (a geometric glide: even in pitch)
///   phase(n) = ∫₀ⁿ f / rate                                (closed form: `RateSchedule`)
///   y(n) = A · sin²(π n / N) · sin(2π · phase(n))          (a raised-cosine swell, silent at both ends)
///
/// and silence after `frames`. Any block size and any partial render give the same samples.
///
/// Layout: a two-point `RateSchedule`; `render` allocates nothing. No mutable state: any thread may render.
public final class RisingTone: FrameSource {
    public let frames: Int64
    public let amplitude: Float
    public let channelCount: Int
    public var frameCount: Int64? { frames }
    private let glide: RateSchedule

    public init(startHz: Double, endHz: Double, frames: Int64, sampleRate: Int, amplitude: Float, channelCount: Int) {
        precondition(frames > 0 && channelCount > 0, "a rising tone lasts at least a frame, on at least one channel")
        precondition(startHz > 0 && endHz > 0 && max(startHz, endHz) < Double(sampleRate) / 2, "its pitch lies between 0 and half the rate")
        self.frames = frames
        self.amplitude = amplitude
        self.channelCount = channelCount
        glide = RateSchedule(points: [.init(position: 0, value: startHz), .init(position: frames, value: endHz, curve: .exponential)],
                             sampleRate: sampleRate)
    }

    public func render(into block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
        guard count > 0 else { return }
        let out = block.channel(0).baseAddress! + offset
        let n = Double(frames)
        for i in 0..<count {
            let p = position + Int64(i)
            guard p >= 0 && p < frames else { out[i] = 0; continue }
            let cycles = glide.cycles(at: p)
            let phase = Float(cycles - cycles.rounded(.down))
            let swell = Double.sin(Double.pi * Double(p) / n)
            out[i] = amplitude * Float(swell * swell) * Float.sin(2 * Float.pi * phase)
        }
        for c in 1..<channelCount { Kernels.copy(out, to: block.channel(c).baseAddress! + offset, count: count) }
    }
}
