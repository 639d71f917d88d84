import Foundation
import Testing

/// A fresh folder under the system temp folder; call `remove()` when done.
struct TempFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("MixIOTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Interleaved sine, the same on every channel: amplitude * sin(2π f n / rate).
func sine(frequency: Double, amplitude: Double, sampleRate: Int, frames: Int, channelCount: Int) -> [Float] {
    var samples = [Float](repeating: 0, count: frames * channelCount)
    let step = 2 * Double.pi * frequency / Double(sampleRate)
    for frame in 0..<frames {
        let value = Float(amplitude * sin(step * Double(frame)))
        for channel in 0..<channelCount { samples[frame * channelCount + channel] = value }
    }
    return samples
}

func peak(_ samples: ArraySlice<Float>) -> Float { samples.reduce(0) { max($0, abs($1)) } }
func peak(_ samples: [Float]) -> Float { peak(samples[...]) }

func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }

/// SplitMix64: a seeded generator so "random" test inputs are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
