import Testing
import DSPTestSupport
import MixDSP

@Suite struct CurveTests {
    // Expected value at t = 0.5 for each rising shape (tolerance 1e-9).
    static let middle: [Curve: Double] = [
        .linear: 0.5,
        .equalPower: 0.7071067811865476,           // sin(pi/4)
        .sCurve: 0.5,                              // (1 - cos(pi/2)) / 2
        .logarithmic: 0.7403626894942439,          // log10(5.5)
        .exponential: (0.03162277660168379 - 0.001) / 0.999, // (10^(-30/20) - 10^-3) / (1 - 10^-3)
    ]

    @Test(arguments: Curve.allCases)
    func startsAtZeroEndsAtOneAndHasItsMiddle(curve: Curve) {
        #expect(abs(curve.shape(0)) < 1e-12)
        #expect(abs(curve.shape(1) - 1) < 1e-12)
        #expect(abs(curve.shape(0.5) - CurveTests.middle[curve]!) < 1e-9)
    }

    @Test(arguments: Curve.allCases)
    func isMonotonic(curve: Curve) {
        var previous = curve.shape(0)
        for i in 1...10_000 {
            let v = curve.shape(Double(i) / 10_000)
            #expect(v >= previous, "\(curve) falls at t = \(Double(i) / 10_000)")
            previous = v
        }
    }

    @Test func fallingSegmentsMirrorRisingOnes() {
        for curve in Curve.allCases {
            for t in stride(from: 0.0, through: 1.0, by: 0.125) {
                let down = curve.interpolate(from: 1, to: 0, at: t)
                #expect(abs(down - curve.shape(1 - t)) < 1e-12)
            }
        }
    }

    @Test func equalPowerCrossfadeKeepsPowerAndLinearKeepsGain() {
        for t in stride(from: 0.0, through: 1.0, by: 0.01) {
            let (i, o) = (Curve.equalPower.shape(t), Curve.equalPower.shape(1 - t))
            #expect(abs(i * i + o * o - 1) < 1e-12)
            #expect(abs(Curve.linear.shape(t) + Curve.linear.shape(1 - t) - 1) < 1e-12)
        }
    }

    @Test func exponentialIsLinearInDecibelsBetweenNonZeroGains() {
        // From -20 dB to 0 dB, halfway is -10 dB.
        let g = Curve.exponential.interpolate(from: 0.1, to: 1, at: 0.5)
        #expect(abs(dB(g) - -10) < 1e-9)
    }

    @Test func crossfadesAcceptEqualGain() {
        #expect(Curve.named("equalGain") == .linear)
        #expect(Curve.named("cubic") == nil)
    }
}
