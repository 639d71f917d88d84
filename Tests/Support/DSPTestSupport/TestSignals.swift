import Foundation
import MixDSP

/// Signals made in code for the tests: deterministic, seeded.
public enum TestSignals {
    /// Sample n of amplitude * sin(2π f n / rate), the same on every channel: a (frame, channel) -> sample closure.
    /// A sine at rate / 4k Hz falls exactly on ±amplitude at samples k and 3k of each period.
    public static func sine(frequency: Double, amplitude: Double, rate: Int) -> (Int, Int) -> Float {
        { n, _ in Float(amplitude * sin(2 * Double.pi * frequency * Double(n) / Double(rate))) }
    }

    /// `frames` frames of that sine, interleaved, the same on every channel.
    public static func sine(frequency: Double, amplitude: Double, rate: Int, frames: Int, channels: Int = 1) -> [Float] {
        interleaved(channels: channels, frames: frames, sine(frequency: frequency, amplitude: amplitude, rate: rate))
    }

    /// Interleaved frames from a closure (frame, channel) -> sample.
    public static func interleaved(channels: Int, frames: Int, _ f: (Int, Int) -> Float) -> [Float] {
        var data = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames { for c in 0..<channels { data[i * channels + c] = f(i, c) } }
        return data
    }

    /// A block filled from a closure (frame, channel) -> sample.
    public static func block(channels: Int, frames: Int, _ f: (Int, Int) -> Float) -> AudioBlock {
        let b = AudioBlock(channelCount: channels, capacity: frames)
        for c in 0..<channels { for i in 0..<frames { b.channel(c)[i] = f(i, c) } }
        return b
    }

    /// SplitMix64 from a seed: the same "random" test inputs on every run. A `RandomNumberGenerator`
    /// (`Float.random(in:using:)`), and `sample()` for uniform noise in [-1, 1).
    public struct Noise: RandomNumberGenerator {
        public var state: UInt64
        public init(seed: UInt64) { state = seed }

        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// Uniform in [-1, 1) from the top 53 bits.
        public mutating func sample() -> Float { Float(Double(next() >> 11) / 9_007_199_254_740_992.0 * 2 - 1) }
    }
}

/// RMS of the samples, summed in Double.
public func rms<C: Collection>(_ x: C) -> Double where C.Element == Float {
    (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
}

/// Largest |sample| (0 for none).
public func peak<C: Collection>(_ x: C) -> Float where C.Element == Float { x.reduce(0) { max($0, abs($1)) } }

/// A gain ratio in dB: 20 log10(x); -infinity for 0.
public func dB(_ x: Double) -> Double { decibels(fromGain: x) }

/// Frequency from rising zero crossings (linear interpolation between samples).
public func frequency(_ x: ArraySlice<Float>, rate: Int) -> Double {
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

/// Hands `interleaved` (frames of `channels` samples) to `write` in order, `blockFrames` frames at a time
/// (the last block shorter): how the renderer feeds its sinks.
public func forEachBlock(of interleaved: [Float], channels: Int, blockFrames: Int = 4096,
                         _ write: (_ frames: UnsafePointer<Float>, _ count: Int) throws -> Void) rethrows {
    let frames = interleaved.count / channels
    try interleaved.withUnsafeBufferPointer { p in
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            try write(p.baseAddress! + done * channels, n)
            done += n
        }
    }
}

/// The frequency heard over `x[range]`, in Hz at `rate`, from its upward zero crossings (each placed between its two
/// samples by a straight line): for a signal whose frequency changes slowly over the range.
public func zeroCrossingFrequency(_ x: [Float], _ range: Range<Int>, rate: Double) -> Double {
    var crossings: [Double] = []
    for i in range.dropFirst() where x[i - 1] < 0 && x[i] >= 0 {
        crossings.append(Double(i - 1) + Double(-x[i - 1] / (x[i] - x[i - 1])))
    }
    guard crossings.count > 1 else { return 0 }
    return Double(crossings.count - 1) * rate / (crossings.last! - crossings.first!)
}
