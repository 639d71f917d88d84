import MixRender

/// The progress of the renders running on this server, as their renders report it (every 50 ms at most): what
/// `GET /v1/renders/{id}` and the events show between the store's updates (every few seconds, for other servers).
final class LiveProgress: Sendable {
    private let progress = Locked([String: JobProgress]())

    func update(_ id: String, _ value: JobProgress) { progress.withLock { $0[id] = value } }
    func remove(_ id: String) { _ = progress.withLock { $0.removeValue(forKey: id) } }
    func progress(of id: String) -> JobProgress? { progress.withLock { $0[id] } }
    var all: [String: JobProgress] { progress.withLock { $0 } }
}

/// Wakes the runner's workers when a job is queued (rather than at their next poll), and tells the runner which
/// renders were cancelled here (rather than at their next lease renewal).
final class JobSignal: Sendable {
    private let state = Locked(State())

    private struct State {
        var waiters: [CheckedContinuation<Void, Never>] = []
        var pending = 0
        var cancelled: Set<String> = []
    }

    /// One waiting worker wakes (or the next to wait returns at once).
    func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiters.isEmpty { state.pending += 1; return nil }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }

    /// Waits for `signal`, or at most `seconds`.
    func wait(seconds: Double) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { continuation in
                    let ready: Bool = state.withLock { state in
                        if state.pending > 0 { state.pending -= 1; return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
            await group.next()
            // The sleeper finished first: wake the waiter this task left (it resumes once, here or by a signal).
            wakeAll()
            group.cancelAll()
        }
    }

    /// Every waiting worker wakes (a timeout, or the server stopping).
    func wakeAll() {
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Job `id` was cancelled through this server: its render here stops now.
    func cancelled(_ id: String) { _ = state.withLock { $0.cancelled.insert(id) } }

    /// The cancels since the last call.
    func takeCancelled() -> Set<String> {
        state.withLock { state in
            defer { state.cancelled = [] }
            return state.cancelled
        }
    }
}
