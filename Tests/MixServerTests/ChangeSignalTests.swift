import Foundation
import Testing
@testable import MixServer

/// What the runner and the event streams await instead of polling. Every wait here has a time limit of a minute, so
/// a wait that a change fails to end shows as a test running a minute (checked: each returns well inside it).
@Suite struct ChangeSignalTests {
    static let long = Duration.seconds(60)

    @Test func aChangeWakesEveryWaiter() async throws {
        let signal = ChangeSignal()
        let seen = signal.version
        let started = ContinuousClock.now
        async let first: Void = signal.wait(after: seen, timeout: Self.long)
        async let second: Void = signal.wait(after: seen, timeout: Self.long)
        try await Task.sleep(for: .milliseconds(20))
        signal.change()
        _ = await (first, second)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(signal.version == seen + 1)
    }

    @Test func aChangeBeforeTheWaitIsNotMissed() async {
        let signal = ChangeSignal()
        let seen = signal.version
        signal.change()   // between the look and the wait
        let started = ContinuousClock.now
        await signal.wait(after: seen, timeout: Self.long)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aWaitEndsAtItsTimeLimitWithNoChange() async {
        let signal = ChangeSignal()
        let started = ContinuousClock.now
        await signal.wait(after: signal.version, timeout: .milliseconds(30))
        #expect(ContinuousClock.now - started >= .milliseconds(30))
        #expect(signal.version == 0)
    }

    @Test func closingReleasesEveryWaitNowAndLater() async throws {
        let signal = ChangeSignal()
        let started = ContinuousClock.now
        async let waiting: Void = signal.wait(after: 0, timeout: Self.long)
        try await Task.sleep(for: .milliseconds(20))
        signal.close()
        await waiting
        await signal.wait(after: 0, timeout: Self.long)
        #expect(signal.isClosed)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aCancelledWaitReturns() async throws {
        let signal = ChangeSignal()
        let started = ContinuousClock.now
        let task = Task { await signal.wait(after: 0, timeout: Self.long) }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        await task.value
        #expect(ContinuousClock.now - started < .seconds(30))
        // Many waits cancelled at once, some before they are stored: none is left hanging.
        let tasks = (0..<200).map { _ in Task { await signal.wait(after: 0, timeout: Self.long) } }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        #expect(ContinuousClock.now - started < .seconds(30))
    }
}
