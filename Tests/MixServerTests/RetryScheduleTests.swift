import Foundation
import Testing
@testable import MixServer

/// SplitMix64: a seeded generator, so that jitter is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct RetryScheduleTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func followsStandardWebhooksScheduleWithinTheJitter() {
        let schedule = RetrySchedule.standard
        let expected: [TimeInterval] = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]
        #expect(schedule.delays == expected)
        #expect(schedule.attemptLimit == 10)
        var generator = SeededGenerator(state: 42)
        var delays: [TimeInterval] = []
        for (index, base) in expected.enumerated() {
            let next = schedule.nextAttempt(afterFailedAttempts: index + 1, now: now, using: &generator)
            let delay = try! #require(next).timeIntervalSince(now)
            #expect(delay >= base * 0.9 && delay <= base * 1.1)
            delays.append(delay)
        }
        // Jitter moves them: not every delay is its base.
        #expect(delays != expected)
        #expect(schedule.nextAttempt(afterFailedAttempts: 10, now: now, using: &generator) == nil)
        #expect(schedule.nextAttempt(afterFailedAttempts: 0, now: now, using: &generator) == nil)
    }

    @Test func sameSeedSameSchedule() {
        var first = SeededGenerator(state: 7)
        var second = SeededGenerator(state: 7)
        let a = (1...9).map { RetrySchedule.standard.nextAttempt(afterFailedAttempts: $0, now: now, using: &first) }
        let b = (1...9).map { RetrySchedule.standard.nextAttempt(afterFailedAttempts: $0, now: now, using: &second) }
        #expect(a == b)
    }

    @Test func retryAfterLengthensButIsCapped() {
        var generator = SeededGenerator(state: 1)
        let schedule = RetrySchedule(delays: [5, 300], jitter: 0, longestRetryAfter: 3600)
        #expect(schedule.nextAttempt(afterFailedAttempts: 1, now: now, using: &generator) == now.addingTimeInterval(5))
        #expect(schedule.nextAttempt(afterFailedAttempts: 1, retryAfter: 60, now: now, using: &generator) == now.addingTimeInterval(60))
        #expect(schedule.nextAttempt(afterFailedAttempts: 1, retryAfter: 1, now: now, using: &generator) == now.addingTimeInterval(5))
        #expect(schedule.nextAttempt(afterFailedAttempts: 2, retryAfter: 1e9, now: now, using: &generator) == now.addingTimeInterval(3600))
        #expect(schedule.nextAttempt(afterFailedAttempts: 1, retryAfter: .infinity, now: now, using: &generator) == now.addingTimeInterval(5))
        #expect(schedule.nextAttempt(afterFailedAttempts: 3, retryAfter: 60, now: now, using: &generator) == nil)
    }
}
