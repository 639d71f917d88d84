import MixDSP
import Testing

/// Rate schedules: the closed-form integrals of the curves, and a phase that is the integral of the rate.
@Suite struct RateScheduleTests {
    /// ∫₀ᵗ f(s) ds by Simpson's rule with `steps` (even) intervals.
    static func simpson(_ f: (Double) -> Double, upTo t: Double, steps: Int = 20_000) -> Double {
        let h = t / Double(steps)
        var sum = f(0) + f(t)
        for i in 1..<steps { sum += (i % 2 == 1 ? 4 : 2) * f(Double(i) * h) }
        return sum * h / 3
    }

    @Test(arguments: Curve.allCases)
    func eachCurvesIntegralIsItsAntiderivative(curve: Curve) {
        // Rising, falling, nearly flat (b/a − 1 = 1e-9: the geometric form's cancellation), and from 0 (the plain
        // exponential shape rather than the geometric one).
        for (a, b) in [(2.0, 10.0), (10.0, 2.0), (4.0, 4.000_000_004), (0.0, 1.0), (1.0, 0.0), (7.5, 0.25)] {
            for t in [0.001, 0.1, 0.37, 0.5, 0.9, 1.0] {
                let exact = curve.integral(from: a, to: b, upTo: t)
                let numeric = Self.simpson({ curve.interpolate(from: a, to: b, at: $0) }, upTo: t)
                #expect(abs(exact - numeric) <= 1e-9 * abs(numeric), "\(curve) \(a) → \(b) at \(t): \(exact) vs \(numeric)")
            }
        }
    }

    static let schedule = RateSchedule(points: [
        .init(position: 10_000, value: 4),
        .init(position: 30_000, value: 10, curve: .sCurve),
        .init(position: 50_000, value: 10),                      // a hold
        .init(position: 70_000, value: 2.5, curve: .exponential),
        .init(position: 80_000, value: 6, curve: .equalPower),
        .init(position: 96_000, value: 1, curve: .logarithmic),
        .init(position: 100_000, value: 3, curve: .linear),
    ], sampleRate: 1000)

    @Test func thePhaseIsTheIntegralOfTheRate() {
        // Simpson over frames (h = 1 frame) of hz(at:), in cycles (÷ rate), to frame 120 000, every 2000 frames.
        let s = Self.schedule
        var numeric = 0.0
        for n in stride(from: 0, to: 120_000, by: 2) {
            let (a, m, b) = (s.hz(at: Int64(n)), s.hz(at: Int64(n + 1)), s.hz(at: Int64(n + 2)))
            numeric += (a + 4 * m + b) / 3 / 1000
            if (n + 2) % 2000 == 0 {
                let exact = s.cycles(at: Int64(n + 2))
                #expect(abs(exact - numeric) <= 1e-9 * numeric, "frame \(n + 2): \(exact) vs \(numeric)")
            }
        }
    }

    @Test func holdsOutsideItsPointsAndHitsThem() {
        let s = Self.schedule
        #expect(s.hz(at: -5) == 4 && s.hz(at: 10_000) == 4 && s.hz(at: 50_000) == 10 && s.hz(at: 1 << 40) == 3)
        #expect(abs(s.hz(at: 20_000) - 7) < 1e-12)            // halfway up the s-curve
        #expect(s.cycles(at: 0) == 0)
        #expect(s.cycles(at: 5000) == 5000 * 4 / 1000)         // before the first point: n f / rate, exactly
        #expect(s.cycles(at: -1000) == -4)
        #expect(s.maximumHz == 10 && s.minimumHz == 1)
        let last = s.cycles(at: 100_000)
        #expect(abs(s.cycles(at: 110_000) - (last + 30)) < 1e-9)
    }

    @Test func aStepMovesTheRateNotThePhase() {
        let s = RateSchedule(points: [.init(position: 0, value: 5), .init(position: 48_000, value: 5),
                                      .init(position: 48_000, value: 12), .init(position: 96_000, value: 2, curve: .sCurve)],
                             sampleRate: 48000)
        #expect(s.hz(at: 47_999) == 5 && s.hz(at: 48_000) == 12)
        #expect(abs(s.cycles(at: 48_000) - 5) < 1e-12)
        // one frame before the step adds 5 / rate, one after it 12 / rate (the phase has no jump)
        #expect(abs(s.cycles(at: 48_000) - s.cycles(at: 47_999) - 5.0 / 48000) < 1e-12)
        #expect(abs(s.cycles(at: 48_001) - s.cycles(at: 48_000) - 12.0 / 48000) < 1e-9)
        // the falling s-curve from 12 to 2 over one second averages 7 Hz
        #expect(abs(s.cycles(at: 96_000) - 12) < 1e-9)
    }
}
