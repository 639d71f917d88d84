import MixIO

/// What measuring renders found, kept between renders in one process by what decides it: a track's loudness
/// and a render's normalisation, each under its measurement key (`LoudnessMeasuring.measurementKey`: the render
/// key's text of what was measured, and which measurement). A `PreparedMaterial` holds one (`measurements`), so a
/// second render of the same plan, or a batch's jobs that share a plan, measure nothing again.
///
/// A final class over a `Locked` dictionary of `Sendable` values; allocates its entries. `Sendable`: every access
/// is under the lock. A measurement is made outside the lock: two renders asking at once may both measure, and
/// the same value is kept.
public final class MeasurementCache: Sendable {
    private struct State {
        var values: [String: any Sendable] = [:]
        var measured = 0
        var reused = 0
    }
    private let state = Locked(State())

    public init() {}

    /// The value kept under `key`, or `measure()`'s, kept (a failure is not kept: it is thrown each time), and
    /// whether `measure` ran.
    func value<T: Sendable>(_ key: String, measure: () throws -> T) rethrows -> (value: T, wasMeasured: Bool) {
        if let known = state.withLock({ s -> T? in
            guard let value = s.values[key] as? T else { return nil }
            s.reused += 1
            return value
        }) { return (known, false) }
        let value = try measure()
        state.withLock { $0.values[key] = value; $0.measured += 1 }
        return (value, true)
    }

    /// How many measurements were made, and how many were found made before.
    public var measured: Int { state.withLock { $0.measured } }
    public var reused: Int { state.withLock { $0.reused } }
}
