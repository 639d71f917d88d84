import Foundation
import Testing
@testable import MixServer

/// What the runner and the event streams await instead of polling. A wait says whether its time limit ended it, so
/// these check what woke each wait, not how long it took: the limits are an hour, which only a wait nothing woke
/// would reach (a loaded machine only makes the tests slower).
@Suite struct ChangeSignalTests {
    static let long = Duration.seconds(3600)

    @Test func aChangeWakesEveryWaiter() async throws {
        let signal = ChangeSignal()
        let seen = signal.version
        async let first = signal.wait(after: seen, timeout: Self.long)
        async let second = signal.wait(after: seen, timeout: Self.long)
        try await Task.sleep(for: .milliseconds(20))
        signal.change()
        let (a, b) = await (first, second)
        #expect(a && b, "a wait ended at its time limit, not at the change")
        #expect(signal.version == seen + 1)
    }

    @Test func aChangeBeforeTheWaitIsNotMissed() async {
        let signal = ChangeSignal()
        let seen = signal.version
        signal.change()   // between the look and the wait
        #expect(await signal.wait(after: seen, timeout: Self.long))
    }

    @Test func aWaitEndsAtItsTimeLimitWithNoChange() async {
        let signal = ChangeSignal()
        let started = ContinuousClock.now
        #expect(await signal.wait(after: signal.version, timeout: .milliseconds(30)) == false)
        #expect(ContinuousClock.now - started >= .milliseconds(30))
        #expect(signal.version == 0)
    }

    @Test func closingReleasesEveryWaitNowAndLater() async throws {
        let signal = ChangeSignal()
        async let waiting = signal.wait(after: 0, timeout: Self.long)
        try await Task.sleep(for: .milliseconds(20))
        signal.close()
        #expect(await waiting)
        #expect(await signal.wait(after: 0, timeout: Self.long))
        #expect(signal.isClosed)
    }

    @Test func aCancelledWaitReturns() async throws {
        let signal = ChangeSignal()
        let task = Task { await signal.wait(after: 0, timeout: Self.long) }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        #expect(await task.value, "a cancelled wait ran to its time limit")
        // Many waits cancelled at once, some before they are stored: none is left hanging (the test would not end).
        let tasks = (0..<200).map { _ in Task { await signal.wait(after: 0, timeout: Self.long) } }
        for task in tasks { task.cancel() }
        for task in tasks { #expect(await task.value) }
    }
}
