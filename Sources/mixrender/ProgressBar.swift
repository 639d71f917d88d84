import Foundation
import MixRender

/// A one-line progress bar on stderr: percent, speed as x realtime, time left; or, with `--progress json`, the same
/// as JSON lines, at most four a second and one when done:
/// `{"progress":0.4215,"frames":1214000,"totalFrames":2880000,"elapsed":1.23,"speed":82.3,"remaining":1.69}`
/// (`elapsed` and `remaining` in seconds of wall time, `speed` in x realtime).
final class ProgressBar {
    private let totalFrames: Int64
    private let sampleRate: Int
    private let style: ProgressOptions.Style?
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant
    private var hasDrawn = false
    private var hasDrawnComplete = false

    init(totalFrames: Int64, sampleRate: Int, style: ProgressOptions.Style?) {
        self.totalFrames = max(totalFrames, 1)
        self.sampleRate = sampleRate
        self.style = style
        started = clock.now
        lastDrawn = started
    }

    func update(_ frames: Int64) {
        guard let style else { return }
        let now = clock.now
        let complete = frames >= totalFrames
        guard now - lastDrawn >= .milliseconds(style == .json ? 250 : 100) || (complete && !(style == .json && hasDrawnComplete)) else { return }
        if complete { hasDrawnComplete = true }
        lastDrawn = now
        let elapsed = max((now - started).seconds, 1e-9)
        let fraction = Double(frames) / Double(totalFrames)
        let speed = Double(frames) / Double(sampleRate) / elapsed
        let left = speed > 0 ? Double(totalFrames - frames) / Double(sampleRate) / speed : 0
        if style == .json {
            ProgressOptions.writeJSONLine([
                JSONValue.Member("progress", .number((fraction * 10_000).rounded() / 10_000)),
                JSONValue.Member("frames", .number(Double(frames))),
                JSONValue.Member("totalFrames", .number(Double(totalFrames))),
                JSONValue.Member("elapsed", .number((elapsed * 1000).rounded() / 1000)),
                JSONValue.Member("speed", .number((speed * 10).rounded() / 10)),
                JSONValue.Member("remaining", .number((left * 1000).rounded() / 1000)),
            ])
            return
        }
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = String(format: "\r[%@] %5.1f%%  %6.0fx realtime  %@ left ", bar, fraction * 100, speed, Printout.clock(left))
        FileHandle.standardError.write(line.data(using: .utf8)!)
        hasDrawn = true
    }

    func finish() {
        guard style == .bar && hasDrawn else { return }
        FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
    }
}
