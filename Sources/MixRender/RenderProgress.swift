import MixEngine

/// How far a render is: frames written of the total, and its speed.
///
/// `PresetRender`'s renders yield these into an `AsyncStream<RenderProgress>` the caller made
/// (`AsyncStream.makeStream(of: RenderProgress.self)`), at most every 50 ms and always at the end, whose last value
/// has `frames == totalFrames`; the render finishes the stream when it ends, however it ends. Measuring passes
/// (normalising to a loudness) come before the first value.
///
/// A value of numbers; allocates nothing. `Sendable`, safe to share.
public struct RenderProgress: Sendable, Equatable {
    /// Frames of the output written so far.
    public var frames: Int64
    /// Frames the output will have.
    public var totalFrames: Int64
    /// The output's sample rate, in Hz.
    public var sampleRate: Int
    /// Wall-clock seconds since the render started.
    public var elapsedSeconds: Double

    /// The part written, 0 to 1.
    public var fraction: Double { totalFrames > 0 ? Double(frames) / Double(totalFrames) : 1 }
    /// Seconds of audio written per second of wall-clock time.
    public var realtime: Double { elapsedSeconds > 0 ? Double(frames) / Double(sampleRate) / elapsedSeconds : 0 }
    /// Whether every frame has been written.
    public var isComplete: Bool { frames >= totalFrames }

    /// A progress value (the library makes them; a caller may, to test its own display).
    public init(frames: Int64, totalFrames: Int64, sampleRate: Int, elapsedSeconds: Double) {
        self.frames = frames; self.totalFrames = totalFrames
        self.sampleRate = sampleRate; self.elapsedSeconds = elapsedSeconds
    }
}

/// Turns the render loop's frame counts into `RenderProgress` values on a caller's stream, at most every 50 ms and
/// always the last. Used on the render's thread only, within one synchronous render call (so not `Sendable`).
final class ProgressReporter {
    private let continuation: AsyncStream<RenderProgress>.Continuation?
    private let totalFrames: Int64
    private let sampleRate: Int
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var last: ContinuousClock.Instant?

    init(_ continuation: AsyncStream<RenderProgress>.Continuation?, totalFrames: Int64, sampleRate: Int) {
        self.continuation = continuation
        self.totalFrames = totalFrames
        self.sampleRate = sampleRate
        started = clock.now
    }

    /// The render loop's callback: `frames` written so far.
    func update(_ frames: Int64) {
        guard let continuation else { return }
        let now = clock.now
        if frames < totalFrames, let last, now - last < .milliseconds(50) { return }
        last = now
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        continuation.yield(RenderProgress(frames: frames, totalFrames: totalFrames, sampleRate: sampleRate, elapsedSeconds: seconds))
    }

    /// The callback to hand the engine (nil when nobody listens, so the loop skips it).
    var callback: ((Int64) -> Void)? { continuation == nil ? nil : { [self] in update($0) } }
}
