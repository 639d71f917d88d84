import Foundation
import MixRender

/// A one-line progress bar on stderr: percent, speed as x realtime, time left.
final class ProgressBar {
    private let totalFrames: Int64
    private let sampleRate: Int
    private let isEnabled: Bool
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant
    private var hasDrawn = false

    init(totalFrames: Int64, sampleRate: Int, isEnabled: Bool) {
        self.totalFrames = max(totalFrames, 1)
        self.sampleRate = sampleRate
        self.isEnabled = isEnabled
        started = clock.now
        lastDrawn = started
    }

    func update(_ frames: Int64) {
        guard isEnabled else { return }
        let now = clock.now
        guard now - lastDrawn >= .milliseconds(100) || frames >= totalFrames else { return }
        lastDrawn = now
        let elapsed = max((now - started).seconds, 1e-9)
        let fraction = Double(frames) / Double(totalFrames)
        let speed = Double(frames) / Double(sampleRate) / elapsed
        let left = speed > 0 ? Double(totalFrames - frames) / Double(sampleRate) / speed : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = String(format: "\r[%@] %5.1f%%  %6.0fx realtime  %@ left ", bar, fraction * 100, speed, Printout.clock(left))
        FileHandle.standardError.write(line.data(using: .utf8)!)
        hasDrawn = true
    }

    func finish() {
        guard isEnabled && hasDrawn else { return }
        FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
    }
}
