import MixIO

/// Something that changes, which tasks await rather than poll: a count of changes (`version`) and the tasks waiting
/// for the next. A waiter reads `version`, looks at the world, and waits for a version past the one it read, so a
/// change made between the look and the wait is never missed. `close` releases every waiter, now and from then on
/// (the server stopping).
///
/// The runner's workers wait here for a job queued on this server, its lease keeper for a cancel that arrived here,
/// and an event stream for its render's progress; each with a time limit, after which it looks at the store itself
/// (for what other servers did).
///
/// Layout: the count, the waiters' continuations by number, and a closed flag, under one `Locked` (a pthread mutex,
/// which the Thread Sanitizer sees, where `Synchronization.Mutex`'s futex it does not). `Sendable`; a change and a
/// wait take the lock briefly and allocate a continuation slot.
final class ChangeSignal: Sendable {
    private enum Slot {
        /// Numbered, its continuation not yet stored.
        case pending
        case waiting(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var version: UInt64 = 0
        var isClosed = false
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: Slot] = [:]
    }

    private let state = Locked(State())

    /// The changes so far.
    var version: UInt64 { state.withLock { $0.version } }

    /// Something changed: every waiter wakes.
    func change() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.version &+= 1
            return Self.takeWaiting(&state)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Every wait returns now and from now on.
    func close() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isClosed = true
            return Self.takeWaiting(&state)
        }
        for continuation in woken { continuation.resume() }
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Returns once `version` is past `seen`, the signal is closed, `timeout` has passed or the task is cancelled,
    /// whichever is first: false when the time limit ended it. It never polls: a change resumes it.
    @discardableResult
    func wait(after seen: UInt64, timeout: Duration) async -> Bool {
        if state.withLock({ $0.isClosed || $0.version != seen }) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitForChange(after: seen); return true }
            group.addTask { (try? await Task.sleep(for: timeout)) == nil }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
    }

    /// Returns once `version` is past `seen`, the signal is closed, or the task is cancelled.
    func wait(after seen: UInt64) async {
        if state.withLock({ $0.isClosed || $0.version != seen }) { return }
        await waitForChange(after: seen)
    }

    private func waitForChange(after seen: UInt64) async {
        let number = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            state.waiters[state.nextWaiter] = .pending
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    // Missing: cancelled before it got here.
                    guard state.waiters[number] != nil, !state.isClosed, state.version == seen else {
                        state.waiters[number] = nil
                        return true
                    }
                    state.waiters[number] = .waiting(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let slot = state.withLock { $0.waiters.removeValue(forKey: number) }
            if case .waiting(let continuation)? = slot { continuation.resume() }
        }
    }

    /// The stored continuations, removed; the numbered ones without one yet see the change when they store theirs.
    private static func takeWaiting(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        var woken: [CheckedContinuation<Void, Never>] = []
        for (number, slot) in state.waiters {
            if case .waiting(let continuation) = slot {
                woken.append(continuation)
                state.waiters[number] = nil
            }
        }
        return woken
    }
}
