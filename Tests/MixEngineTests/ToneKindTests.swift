import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// The `tone` kind end to end: preset -> plan -> render, as a new kind of source is meant to be added.
@Suite struct ToneKindTests {
    static func tonePreset(_ tone: String, rate: Int = 48000, seconds: Double = 6, gainDb: Double = 0,
                           channels: Int = 1, extra: String = "") -> String {
        """
        { "duration": \(seconds), "output": { "sampleRate": \(rate), "channels": \(channels), "bitDepth": "float" },
          "tracks": [ { "tone": \(tone), "gainDb": \(gainDb)\(extra) } ] }
        """
    }

    static func render(_ json: String, blockFrames: Int = 4096, range: Range<Int64>? = nil) throws -> (CaptureEncoder, RenderSummary) {
        let folder = try TemporaryFolder()
        let (capture, summary, _) = try renderToMemory(try folder.preset(json), blockFrames: blockFrames, range: range)
        return (capture, summary)
    }

    /// The frequency of the strongest FFT bin of the first 2^18 samples (Hann window), refined by a
    /// parabola through the log magnitudes of the peak bin and its neighbours.
    static func peakFrequency(_ x: [Float], rate: Int) -> Double {
        let n = 1 << 18
        precondition(x.count >= n)
        let fft = FFTWRealFFT(size: n)
        var input = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let w: Double = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))
            input[i] = x[i] * Float(w)
        }
        var re = [Float](repeating: 0, count: n / 2 + 1), im = re
        input.withUnsafeBufferPointer { fft.forward($0.baseAddress!, real: &re, imaginary: &im) }
        let magnitude: [Double] = (0...(n / 2)).map { k in
            let power = Double(re[k]) * Double(re[k]) + Double(im[k]) * Double(im[k])
            return log(power + 1e-30)
        }
        let k = (1..<(n / 2)).max { magnitude[$0] < magnitude[$1] }!
        let (a, b, c) = (magnitude[k - 1], magnitude[k], magnitude[k + 1])
        let offset = 0.5 * (a - c) / (a - 2 * b + c)
        return (Double(k) + offset) * Double(rate) / Double(n)
    }

    @Test(arguments: [(100.0, 48000), (440.5, 48000), (1234.56, 48000), (440.5, 44100), (1234.56, 44100)])
    func theFFTPeakIsTheAskedFrequency(frequency: Double, rate: Int) throws {
        for waveform in ["sine", "triangle"] {
            let (capture, _) = try Self.render(Self.tonePreset(#"{"frequencyHz": \#(frequency), "waveform": "\#(waveform)"}"#, rate: rate))
            let measured = Self.peakFrequency(capture.channels[0], rate: rate)
            #expect(abs(measured - frequency) < 0.1, "\(waveform) at \(frequency) Hz, \(rate) Hz: FFT peak at \(measured) Hz")
        }
    }

    @Test func levelIsMinus18dBFSRMSBeforeTheTracksGain() throws {
        for (waveform, crest) in [("sine", 2.0.squareRoot()), ("triangle", 3.0.squareRoot())] {
            for gain in [0.0, -6.0] {
                // 1 s of a 100 Hz tone: a whole number of cycles.
                let (capture, summary) = try Self.render(Self.tonePreset(#"{"frequencyHz": 100, "waveform": "\#(waveform)"}"#,
                                                                         seconds: 1, gainDb: gain))
                let level = dB(rms(capture.channels[0][...]))
                #expect(abs(level - (-18 + gain)) < 0.01, "\(waveform) at \(gain) dB: \(level) dBFS RMS")
                let peak = Double(capture.channels[0].map(abs).max()!)
                #expect(abs(dB(peak) - (-18 + gain + dB(crest))) < 0.01, "\(waveform) peak \(dB(peak)) dBFS")
                #expect(summary.maxGainReductionDb == 0)
            }
        }
    }

    @Test func everyBlockSizeGivesTheSameSamples() throws {
        let json = Self.tonePreset(#"{"frequencyHz": 432.1, "waveform": "triangle", "phase": 0.3}"#, seconds: 2, channels: 2,
                                   extra: #", "fadeIn": "0.5s""#)
        let (reference, _) = try Self.render(json, blockFrames: 4096)
        for blockFrames in [1000, 4097, 1] {
            let (other, _) = try Self.render(json, blockFrames: blockFrames)
            #expect(other.channels == reference.channels, "block size \(blockFrames)")
        }
    }

    @Test func aPartialRenderIsTheSliceOfTheFullRender() throws {
        let json = Self.tonePreset(#"{"frequencyHz": 1234.56}"#, seconds: 5, extra: #", "start": "1s""#)
        let (full, _) = try Self.render(json)
        for range: Range<Int64> in [48_000..<96_000, 100_001..<200_003, 239_000..<240_000] {
            let (part, _) = try Self.render(json, range: range)
            #expect(Array(full.channels[0][Int(range.lowerBound)..<Int(range.upperBound)]) == part.channels[0], "\(range)")
        }
        // The tone is placed on the timeline, not restarted at the track's start: silent before 1 s, and
        // at frame n (n >= 1 s) the value of the wave at n.
        #expect(full.channels[0][..<48_000].allSatisfy { $0 == 0 })
        let amplitude = Float(ToneKind.rmsLevel * 2.0.squareRoot())
        let expected = amplitude * Float(sin(2 * Double.pi * (Double(50_000) * 1234.56 / 48_000).truncatingRemainder(dividingBy: 1)))
        #expect(abs(full.channels[0][50_000] - expected) < 1e-6)
    }

    @Test func phaseAQuarterStartsASineAtItsPeak() throws {
        let (capture, _) = try Self.render(Self.tonePreset(#"{"frequencyHz": 100, "phase": 0.25}"#, seconds: 0.1))
        #expect(abs(capture.channels[0][0] - Float(ToneKind.rmsLevel * 2.0.squareRoot())) < 1e-6)
    }

    @Test func badTonesNameTheirPath() throws {
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 5000}"#, rate: 8000))
            .hasSuffix("tracks[0].tone.frequencyHz: 5000 Hz is not below half the output rate (4000 Hz at 8000 Hz)"))
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 30000}"#)).hasSuffix("tracks[0].tone.frequencyHz: 30000 is out of range; expected 0...24000"))
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 0}"#)).hasSuffix("tracks[0].tone.frequencyHz: must be greater than 0"))
        #expect(jobError(Self.tonePreset(#"{"waveform": "sine"}"#)).contains("tracks[0].tone: missing required key 'frequencyHz'"))
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 100, "waveform": "square"}"#))
            .hasSuffix("tracks[0].tone.waveform: unknown waveform 'square'; expected one of sine, triangle"))
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 100, "phase": 1}"#)).contains("tracks[0].tone.phase: 1 is a whole cycle"))
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 100}"#, extra: #", "loop": true"#))
            .hasSuffix("tracks[0].loop: generators are endless and cannot loop; 'loop' is for 'file' and 'playlist' tracks"))
        #expect(jobError(Self.tonePreset(#"{"frequencyHz": 100, "hz": 3}"#)).contains("tracks[0].tone: unknown key 'hz'"))
    }
}
