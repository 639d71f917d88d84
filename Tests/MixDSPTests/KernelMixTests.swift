import Testing
import DSPTestSupport
import MixDSP

/// `Kernels.mix`, `Kernels.peak` and the two-channel `sumOfSquares` must give exactly what the plain
/// per-term / per-sample / per-channel loops give.
@Suite struct KernelMixTests {
    /// Buffers of noise with a few awkward values (zeros of both signs, a denormal, large values).
    func buffer(_ n: Int, seed: UInt64, range: Float = 1) -> [Float] {
        var noise = TestSignals.Noise(seed: seed)
        var b = (0..<n).map { _ in range * noise.sample() }
        if n > 40 { b[3] = -0.0; b[5] = 0; b[7] = Float.leastNonzeroMagnitude; b[11] = 3e30; b[13] = -7e-20 }
        return b
    }

    @Test(arguments: [0, 1, 15, 16, 17, 100, 4096, 4099], [1, 2, 7, 8, 9, 16, 19])
    func mixEqualsOneAddProductPerTerm(count: Int, terms: Int) {
        let sources = (0..<terms).map { buffer(count + 3, seed: UInt64(10 + $0)) }
        let gains = (0..<terms).map { buffer(count + 3, seed: UInt64(100 + $0)) }
        let scales: [Float] = (0..<terms).map { [1, 0.5, -0.7071, 1.3e-3, 2][$0 % 5] }
        let start = buffer(count + 3, seed: 999)
        // Odd offsets: nothing is aligned.
        let offset = terms % 3
        var expected = start, actual = start
        for t in 0..<terms {
            sources[t].withUnsafeBufferPointer { s in
                gains[t].withUnsafeBufferPointer { g in
                    expected.withUnsafeMutableBufferPointer { e in
                        if t % 4 == 3 {
                            Kernels.addScaled(s.baseAddress! + offset, by: scales[t], into: e.baseAddress! + offset, count: count)
                        } else {
                            Kernels.addProduct(s.baseAddress! + offset, gains: g.baseAddress! + offset, by: scales[t],
                                               into: e.baseAddress! + offset, count: count)
                        }
                    }
                }
            }
        }
        let mixTerms = (0..<terms).map { t in
            MixTerm(source: sources[t].withUnsafeBufferPointer { $0.baseAddress! } + offset,
                    gains: t % 4 == 3 ? nil : gains[t].withUnsafeBufferPointer { $0.baseAddress! } + offset,
                    scale: scales[t])
        }
        withExtendedLifetime((sources, gains)) {
            mixTerms.withUnsafeBufferPointer { terms in
                actual.withUnsafeMutableBufferPointer { Kernels.mix(terms, into: $0.baseAddress! + offset, count: count) }
            }
        }
        #expect(actual.map(\.bitPattern) == expected.map(\.bitPattern))
    }

    @Test func twoSumsOfSquaresEqualTwoCalls() {
        for count in [0, 1, 5, 4096, 4099] {
            let a = buffer(count + 1, seed: 7), b = buffer(count + 1, seed: 8)
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    let (s, t) = Kernels.sumOfSquares(pa.baseAddress!, pb.baseAddress!, count: count)
                    #expect(s.bitPattern == Kernels.sumOfSquares(pa.baseAddress!, count: count).bitPattern)
                    #expect(t.bitPattern == Kernels.sumOfSquares(pb.baseAddress!, count: count).bitPattern)
                }
            }
        }
    }

    @Test func peakEqualsThePlainLoop() {
        for count in [0, 1, 7, 8, 9, 31, 4096, 4103] {
            var b = buffer(count, seed: UInt64(count))
            if count > 20 { b[17] = .nan; b[19] = -.infinity }
            let plain = b.withUnsafeBufferPointer { ReferenceKernels.peak($0.baseAddress!, count: count) }
            let fast = b.withUnsafeBufferPointer { Kernels.peak($0.baseAddress!, count: count) }
            #expect(fast.bitPattern == plain.bitPattern, "count \(count)")
        }
        let zeros: [Float] = [-0.0, -0.0, 0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0]
        #expect(zeros.withUnsafeBufferPointer { Kernels.peak($0.baseAddress!, count: 10) }.bitPattern == Float(0).bitPattern)
        let nans = [Float](repeating: .nan, count: 12)
        #expect(nans.withUnsafeBufferPointer { Kernels.peak($0.baseAddress!, count: 12) } == 0)
    }
}
