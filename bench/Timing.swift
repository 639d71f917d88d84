import MixEngine

/// Wall-clock timing with a warm-up, calibrated repetitions and alternating pairs.
struct Timing {
    /// Counted runs per figure.
    var runs: Int
    /// Seconds one counted run should last (kernels are repeated to fill it).
    var runSeconds: Double

    static let clock = ContinuousClock()

    /// Seconds `body` takes once.
    @inline(never)
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = clock.now
        try body()
        return (clock.now - start).seconds
    }

    /// How many calls of `body` fill `runSeconds` (after one warm-up call).
    func repetitions(_ body: () -> Void) -> Int {
        _ = Timing.seconds(body)                                  // warm-up: caches, page faults
        var reps = 1
        while true {
            let t = Timing.seconds { for _ in 0..<reps { body() } }
            if t >= runSeconds / 4 || reps >= 1 << 24 {
                return max(1, Int((Double(reps) * runSeconds / max(t, 1e-9)).rounded()))
            }
            reps *= 4
        }
    }

    /// Seconds per call of `body`, one value per counted run.
    func measure(_ body: () -> Void) -> [Double] {
        let reps = repetitions(body)
        return (0..<runs).map { _ in Timing.seconds { for _ in 0..<reps { body() } } / Double(reps) }
    }

    /// Seconds per call of each body, measured in alternation (a, b, c, a, b, c, ...) so that both see
    /// the same machine; entry k of every result comes from the same round.
    func alternate(_ bodies: [() -> Void]) -> [[Double]] {
        let reps = bodies.map { repetitions($0) }
        var results = Array(repeating: [Double](), count: bodies.count)
        for _ in 0..<runs {
            for (k, body) in bodies.enumerated() {
                results[k].append(Timing.seconds { for _ in 0..<reps[k] { body() } } / Double(reps[k]))
            }
        }
        return results
    }
}

/// Keeps a value alive so the optimiser cannot drop the work that produced it. Not optimised, so
/// the optimiser cannot see that it reads and writes no memory either (an empty `@inline(never)`
/// function is seen through: LLVM hoisted a whole meter loop out of the timing loop).
@_optimize(none)
func blackHole<T>(_ value: T) {}
