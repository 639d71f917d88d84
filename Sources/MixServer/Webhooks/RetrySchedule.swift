import Foundation

/// When to try a failed webhook delivery again, and when to give up: the delays of Standard Webhooks' example
/// schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h after successive failures, about three days in
/// all), each moved by a random jitter so that deliveries failing together do not all come back together.
struct RetrySchedule: Sendable, Equatable {
    /// The wait after the first failed attempt, the second, and so on; after the last, the delivery is given up.
    var delays: [TimeInterval]
    /// How far the jitter may move a delay, as a fraction of it (0.1: up to 10 % earlier or later).
    var jitter: Double
    /// The longest wait a receiver's `Retry-After` may ask for.
    var longestRetryAfter: TimeInterval

    /// Standard Webhooks' example schedule (its first row, "immediately", is the first attempt itself).
    static let standard = RetrySchedule(
        delays: [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600],
        jitter: 0.1, longestRetryAfter: 24 * 3600)

    /// The uploads' schedule: 1 s, 5 s, 30 s, 2 min, 10 min and 30 min after successive failures (about 43 minutes in
    /// all), short because a pre-signed URL is short-lived (Supabase's signed upload URLs last two hours; S3's are
    /// often given for one), and a file nobody has yet is waited for.
    static let uploads = RetrySchedule(delays: [1, 5, 30, 2 * 60, 10 * 60, 30 * 60], jitter: 0.1,
                                       longestRetryAfter: 30 * 60)

    /// How many attempts a delivery gets in all.
    var attemptLimit: Int { delays.count + 1 }

    /// When to try again after `attempts` attempts have failed (the one just made included), or nil to give up.
    /// `retryAfter` is the receiver's `Retry-After` in seconds, honoured when it asks for a longer wait (up to
    /// `longestRetryAfter`). The jitter comes from `generator`, so that tests can seed it.
    func nextAttempt(afterFailedAttempts attempts: Int, retryAfter: TimeInterval? = nil, now: Date,
                     using generator: inout some RandomNumberGenerator) -> Date? {
        guard attempts >= 1, attempts <= delays.count else { return nil }
        let base = delays[attempts - 1]
        let spread = base * max(0, min(jitter, 1))
        var delay = spread > 0 ? base + Double.random(in: -spread...spread, using: &generator) : base
        if let retryAfter, retryAfter.isFinite, retryAfter > delay {
            delay = min(retryAfter, max(longestRetryAfter, base))
        }
        return now.addingTimeInterval(max(delay, 0))
    }

    /// `nextAttempt` with the system's random generator.
    func nextAttempt(afterFailedAttempts attempts: Int, retryAfter: TimeInterval? = nil, now: Date) -> Date? {
        var generator = SystemRandomNumberGenerator()
        return nextAttempt(afterFailedAttempts: attempts, retryAfter: retryAfter, now: now, using: &generator)
    }
}
