import Foundation
import MixDSP
import MixEngine
import MixIO

/// A temporary folder for one test, removed when the value goes away.
final class TemporaryFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mixrender-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes a preset and returns its path.
    func preset(_ json: String, name: String = "preset.json") throws -> String {
        let p = path(name)
        try json.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// Writes a float WAV made from a closure (frame, channel) -> sample.
    func wav(_ name: String, rate: Int, channels: Int, frames: Int, _ f: (Int, Int) -> Float) throws -> String {
        let p = path(name)
        let writer = try SoundFileWriter(path: p, settings: OutputSettings(format: .wav, sampleRate: rate, channelCount: channels, sampleFormat: .float32))
        var data = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames { for c in 0..<channels { data[i * channels + c] = f(i, c) } }
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return p
    }
}

/// An encoder that keeps everything in memory, planar.
final class CaptureEncoder: AudioEncoder {
    let channelCount: Int
    var channels: [[Float]]
    var isFinished = false
    init(channelCount: Int) { self.channelCount = channelCount; channels = Array(repeating: [], count: channelCount) }
    func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        for c in 0..<channelCount { for i in 0..<frames { channels[c].append(interleaved[i * channelCount + c]) } }
    }
    func finish() throws { isFinished = true }
}

/// Plans a preset file and renders it (or part of it) into memory.
func renderToMemory(_ presetPath: String, blockFrames: Int = 4096, range: Range<Int64>? = nil) throws -> (CaptureEncoder, RenderSummary, RenderPlan) {
    let job = try RenderJob(presetPath: presetPath)
    let capture = CaptureEncoder(channelCount: job.plan.channelCount)
    let summary = try Renderer(plan: job.plan, blockFrames: blockFrames).render(to: capture, range: range)
    return (capture, summary, job.plan)
}

func rms(_ x: ArraySlice<Float>) -> Double {
    (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
}

func dB(_ x: Double) -> Double { 20 * log10(x) }

/// Frequency from rising zero crossings (linear interpolation between samples).
func frequency(_ x: ArraySlice<Float>, rate: Int) -> Double {
    var crossings: [Double] = []
    var previous = x[x.startIndex]
    for i in (x.startIndex + 1)..<x.endIndex {
        let v = x[i]
        if previous < 0 && v >= 0 { crossings.append(Double(i - 1) + Double(-previous / (v - previous))) }
        previous = v
    }
    guard crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(rate))
}
