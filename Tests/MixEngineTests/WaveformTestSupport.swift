import Foundation
import MixDSP
import MixEngine
import MixIO

/// A temporary folder for one waveform test, removed when the value goes away.
final class WaveformScratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mixrender-waveform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    /// Every file in the folder, hidden ones included.
    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

    /// Writes a WAV (16-bit PCM or float) made from a closure (frame, channel) -> sample.
    func wav(_ name: String, rate: Int = 48_000, channels: Int = 1, frames: Int, format: OutputSampleFormat = .pcm16,
             _ f: (Int, Int) -> Float) throws -> String {
        let p = path(name)
        let writer = try SoundFileWriter(path: p, settings: OutputSettings(format: .wav, sampleRate: rate,
                                                                           channelCount: channels, sampleFormat: format))
        let data = interleaved(channels: channels, frames: frames, f)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        return p
    }
}

func interleaved(channels: Int, frames: Int, _ f: (Int, Int) -> Float) -> [Float] {
    var data = [Float](repeating: 0, count: frames * channels)
    for i in 0..<frames { for c in 0..<channels { data[i * channels + c] = f(i, c) } }
    return data
}

/// amplitude * sin(2π f n / rate)
func waveformSine(_ frequency: Double, amplitude: Double, rate: Int) -> (Int, Int) -> Float {
    { n, _ in Float(amplitude * sin(2 * Double.pi * frequency * Double(n) / Double(rate))) }
}

/// Runs interleaved frames through a `WaveformRecorder` for `plan`, in blocks of 4096 frames, and finishes it.
func record(_ data: [Float], plan: WaveformPlan) throws -> WaveformRecorder {
    let recorder = WaveformRecorder(plan: plan)
    let channels = plan.channelCount, frames = data.count / channels
    try data.withUnsafeBufferPointer { p in
        var done = 0
        while done < frames {
            let n = min(4096, frames - done)
            try recorder.write(interleaved: p.baseAddress! + done * channels, frames: n)
            done += n
        }
    }
    try recorder.finish()
    return recorder
}

/// The columns of a store, copied out.
func storedColumns(_ store: WaveformColumnStore) throws -> [(levels: [ChannelLevels], bands: BandLevels)] {
    var out: [(levels: [ChannelLevels], bands: BandLevels)] = []
    try store.forEach { c in
        out.append(((0..<store.channelCount).map { ChannelLevels(min: c.min($0), max: c.max($0), rms: c.rms($0)) },
                    BandLevels(low: c.low, mid: c.mid, high: c.high, centroidHz: c.centroidHz)))
    }
    return out
}

/// Reads a JSON object from a file.
func readJSONObject(_ path: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return try JSONSerialization.jsonObject(with: data) as! [String: Any]
}

func ints(_ value: Any?) -> [Int] { (value as? [Any])?.map { ($0 as! NSNumber).intValue } ?? [] }
