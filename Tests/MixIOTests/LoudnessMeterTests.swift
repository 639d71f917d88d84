import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import TestSupport
import Testing

/// EBU Tech 3341's minimum requirements for a loudness meter, with its signals made here: 1 kHz stereo
/// sines at stated levels (dBFS of each channel's peak), gated sequences, and a true-peak case.
@Suite struct LoudnessMeterTests {
    static let rate = 48_000

    /// Segments of a 1 kHz stereo sine, each at its level (dBFS peak) for its seconds, one continuous phase.
    static func sine(_ segments: [(dBFS: Double, seconds: Double)], frequency: Double = 1000, phase: Double = 0) -> [Float] {
        var samples: [Float] = []
        var frame = 0
        for (level, seconds) in segments {
            let amplitude = gain(fromDecibels: level)
            for _ in 0..<Int(seconds * Double(rate)) {
                let value = Float(amplitude * sin(2 * .pi * frequency * Double(frame) / Double(rate) + phase))
                samples.append(value); samples.append(value)
                frame += 1
            }
        }
        return samples
    }

    static func measure(_ samples: [Float], truePeak: Bool = true) throws -> LoudnessMeasurement {
        let meter = try LoudnessMeter(channelCount: 2, sampleRate: rate, truePeak: truePeak)
        // In uneven pieces, as a render hands them over.
        var done = 0, piece = 1000
        while done < samples.count / 2 {
            let run = min(piece, samples.count / 2 - done)
            try samples.withUnsafeBufferPointer { try meter.add(interleaved: $0.baseAddress! + done * 2, frames: run) }
            done += run
            piece = piece * 7 % 9973 + 1
        }
        return meter.measurement
    }

    /// Tech 3341 cases 1 to 4: integrated loudness within ±0.1 LU of -23 or -33 LUFS, gating included.
    @Test(arguments: [
        ("case 1: -23 dBFS, 20 s", [(-23.0, 20.0)], -23.0),
        ("case 2: -33 dBFS, 20 s", [(-33.0, 20.0)], -33.0),
        ("case 3: -36, -23, -36 dBFS for 10, 60, 10 s", [(-36.0, 10.0), (-23.0, 60.0), (-36.0, 10.0)], -23.0),
        ("case 4: -72, -36, -23, -36, -72 dBFS for 10, 10, 60, 10, 10 s",
         [(-72.0, 10.0), (-36.0, 10.0), (-23.0, 60.0), (-36.0, 10.0), (-72.0, 10.0)], -23.0),
    ])
    func integratedLoudness(_ name: String, _ segments: [(Double, Double)], _ expected: Double) throws {
        let m = try Self.measure(Self.sine(segments.map { (dBFS: $0.0, seconds: $0.1) }), truePeak: false)
        #expect(abs(m.integrated - expected) <= 0.1, "\(name): \(m.integrated) LUFS")
    }

    /// A steady sine's momentary and short-term maxima are its integrated loudness; its range is 0; its peaks
    /// are its amplitude.
    @Test func maximaRangeAndPeaksOfASteadySine() throws {
        let m = try Self.measure(Self.sine([(-23, 10)]))
        #expect(abs(m.momentaryMax - -23) <= 0.1 && abs(m.shortTermMax - -23) <= 0.1, "\(m)")
        #expect(m.range < 0.1)
        #expect(abs(m.samplePeak - -23) < 0.01 && abs(m.truePeak - -23) < 0.1, "\(m)")
    }

    /// Tech 3341's loudness range uses the short-term distribution: 20 s at -20 then 20 s at -30 LUFS gives
    /// 10 LU (its case 1 for Tech 3342), within ±1 LU.
    @Test func loudnessRangeOfTwoLevels() throws {
        let m = try Self.measure(Self.sine([(-20, 20), (-30, 20)]), truePeak: false)
        #expect(abs(m.range - 10) <= 1, "\(m.range) LU")
    }

    /// A 12 kHz sine at 48 kHz with a 45° phase: every sample falls at 0.707 of the crest, so the sample peak
    /// is 3.01 dB below the true peak. At amplitude 0.5: true peak -6.02 dBTP (Tech 3341 allows +0.2/-0.4 dB).
    @Test func truePeakAboveSamplePeak() throws {
        let m = try Self.measure(Self.sine([(-6.0206, 3)], frequency: 12_000, phase: .pi / 4))
        #expect(abs(m.samplePeak - -9.03) < 0.02, "\(m.samplePeak)")
        #expect(m.truePeak >= -6.42 && m.truePeak <= -5.82, "\(m.truePeak)")
    }

    @Test func silenceIsMinusInfinity() throws {
        let m = try Self.measure([Float](repeating: 0, count: 2 * Self.rate))
        #expect(m.integrated == -.infinity && m.truePeak == -.infinity && m.samplePeak == -.infinity)
        #expect(m.momentaryMax == -.infinity && m.range == 0)
    }

    /// A file is measured as it decodes; a file that is not audio is an error naming it.
    @Test func measuresAFileAndNamesOneItCannot() throws {
        let folder = try TemporaryFolder()
        let samples = Self.sine([(-23, 5)])
        let path = try folder.wav("sine.wav", rate: Self.rate, channels: 2, frames: samples.count / 2) { i, c in samples[i * 2 + c] }
        let m = try LoudnessMeter.measure(path: path)
        #expect(abs(m.integrated - -23) <= 0.1)
        let text = try folder.write("notes.wav", "not audio")
        #expect { try LoudnessMeter.measure(path: text) } throws: { "\($0)".contains(text) }
    }
}
