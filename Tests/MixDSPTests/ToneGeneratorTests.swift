import DSPTestSupport
import MixDSP
import Testing

/// The tone generator on its own: shape, level, and samples that depend only on their position.
@Suite struct ToneGeneratorTests {
    static func render(_ tone: ToneGenerator, at position: Int64 = 0, frames: Int, blockFrames: Int = 4096) throws -> [[Float]] {
        let block = AudioBlock(channelCount: tone.channelCount, capacity: blockFrames)
        var out = Array(repeating: [Float](), count: tone.channelCount)
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            try tone.render(into: block, offset: 0, count: n, at: position + Int64(done))
            for c in 0..<tone.channelCount { out[c] += block.channel(c)[0..<n] }
            done += n
        }
        return out
    }

    @Test func theTriangleGoesThroughZeroPeakZeroTrough() throws {
        // 1 kHz at 48 kHz: phases 0, 1/4, 1/2, 3/4 fall on frames 0, 12, 24, 36.
        let tone = ToneGenerator(waveform: .triangle, frequencyHz: 1000, sampleRate: 48000, amplitude: 0.5, channelCount: 1)
        let x = try Self.render(tone, frames: 48)[0]
        #expect(abs(x[0]) < 1e-6 && abs(x[12] - 0.5) < 1e-6 && abs(x[24]) < 1e-6 && abs(x[36] + 0.5) < 1e-6)
        // Straight lines between: a quarter of the way up after 3 frames.
        #expect(abs(x[3] - 0.125) < 1e-6)
    }

    @Test func aSineStartsAtItsPhase() throws {
        let zero = try Self.render(ToneGenerator(waveform: .sine, frequencyHz: 440, sampleRate: 44100, amplitude: 0.3, channelCount: 1), frames: 1)
        let quarter = try Self.render(ToneGenerator(waveform: .sine, frequencyHz: 440, sampleRate: 44100, amplitude: 0.3, phase: 0.25,
                                                    channelCount: 1), frames: 1)
        #expect(zero[0][0] == 0)
        #expect(abs(quarter[0][0] - 0.3) < 1e-6)
    }

    @Test func levelsAreThoseOfTheWaveform() throws {
        // 100 Hz for 1 s: a whole number of cycles. Sine RMS = A/√2, triangle RMS = A/√3.
        for (waveform, crest) in [(ToneGenerator.Waveform.sine, 2.0.squareRoot()), (.triangle, 3.0.squareRoot())] {
            let x = try Self.render(ToneGenerator(waveform: waveform, frequencyHz: 100, sampleRate: 48000, amplitude: 0.5, channelCount: 2),
                                    frames: 48000)
            #expect(x[0] == x[1])
            let level = rms(x[0][...])
            #expect(abs(dB(level) - dB(0.5 / crest)) < 0.01, "\(waveform): \(level)")
            #expect(x[0].map(abs).max()! <= 0.5)
        }
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        for waveform in ToneGenerator.Waveform.allCases {
            let tone = ToneGenerator(waveform: waveform, frequencyHz: 1234.56, sampleRate: 48000, amplitude: 0.7, phase: 0.1, channelCount: 2)
            let reference = try Self.render(tone, frames: 480_000)
            for blockFrames in [1000, 4097, 1] {
                let frames = blockFrames == 1 ? 20_000 : 480_000
                let other = try Self.render(tone, frames: frames, blockFrames: blockFrames)
                #expect(other[0] == Array(reference[0][..<frames]), "\(waveform), blocks of \(blockFrames)")
            }
            let part = try Self.render(tone, at: 123_457, frames: 10_000, blockFrames: 999)
            #expect(part[1] == Array(reference[1][123_457..<133_457]))
        }
    }

    @Test func eightHoursInItIsStillInTune() throws {
        // The last second of 8 hours at 48 kHz, against the phase computed in Double from the position.
        let f = 440.5, rate = 48000
        let tone = ToneGenerator(waveform: .sine, frequencyHz: f, sampleRate: rate, amplitude: 1, channelCount: 1)
        let start = Int64(8 * 3600 * rate - rate)
        let x = try Self.render(tone, at: start, frames: rate)[0]
        var worst: Double = 0
        for i in 0..<rate {
            let cycles = Double(start + Int64(i)) * f / Double(rate)
            let expected = Double.sin(2 * Double.pi * (cycles - cycles.rounded(.down)))
            worst = max(worst, abs(Double(x[i]) - expected))
        }
        #expect(worst < 1e-6, "largest difference \(worst)")
    }
}
