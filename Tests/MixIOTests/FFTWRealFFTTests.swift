import Dispatch
import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import Synchronization
import Testing

@Suite struct FFTWRealFFTTests {
    private func transform(_ fft: FFTWRealFFT, _ input: [Float]) -> (real: [Float], imaginary: [Float]) {
        var real = [Float](repeating: .nan, count: fft.size / 2 + 1)
        var imaginary = real
        fft.forward(input, real: &real, imaginary: &imaginary)
        return (real, imaginary)
    }

    @Test(arguments: [(1024, 37), (1000, 100), (64, 1)])
    func cosineLandsInItsBin(size: Int, bin: Int) {
        let fft = FFTWRealFFT(size: size)
        #expect(fft.size == size)
        let input = (0..<size).map { Float(cos(2 * Double.pi * Double(bin * $0) / Double(size))) }
        let (real, imaginary) = transform(fft, input)
        let expected = Float(size) / 2
        for index in 0...(size / 2) {
            let magnitude = (real[index] * real[index] + imaginary[index] * imaginary[index]).squareRoot()
            let target: Float = index == bin ? expected : 0
            #expect(abs(magnitude - target) <= 1e-3 * expected, "bin \(index): \(magnitude)")
        }
    }

    @Test(arguments: [256, 250, 17])
    func matchesPlainDFT(size: Int) {
        var generator = TestSignals.Noise(seed: 0x5EED + UInt64(size))
        let input = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
        let (real, imaginary) = transform(FFTWRealFFT(size: size), input)
        var reference: [(Double, Double)] = []
        for bin in 0...(size / 2) {
            var re = 0.0, im = 0.0
            for (index, value) in input.enumerated() {
                let phase = 2 * Double.pi * Double(bin * index % size) / Double(size)
                re += Double(value) * cos(phase)
                im -= Double(value) * sin(phase)
            }
            reference.append((re, im))
        }
        let largest = reference.map { ($0.0 * $0.0 + $0.1 * $0.1).squareRoot() }.max()!
        let worst = reference.indices.map { bin in
            max(abs(Double(real[bin]) - reference[bin].0), abs(Double(imaginary[bin]) - reference[bin].1))
        }.max()!
        #expect(worst <= 1e-4 * largest, "worst error \(worst) of \(largest)")
    }

    @Test func planningFromManyThreadsAtOnce() {
        let sizes = [64, 100, 128, 250, 256, 512, 1000, 1024]
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: sizes.count) { task in
            for round in 0..<200 {
                let size = sizes[(task + round) % sizes.count]
                let fft = FFTWRealFFT(size: size)
                let input = [Float](repeating: 1, count: size)
                var real = [Float](repeating: 0, count: size / 2 + 1), imaginary = real
                fft.forward(input, real: &real, imaginary: &imaginary)
                if abs(real[0] - Float(size)) > 1e-3 * Float(size) { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
