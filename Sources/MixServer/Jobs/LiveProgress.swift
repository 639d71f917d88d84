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

/// Wakes the runner's workers when a job is queued here (within 50 ms, rather than at their next poll of the
/// store), and tells the runner which renders were cancelled here (rather than at their next lease renewal).
final class JobSignal: Sendable {
    private let state = Locked(State())

    private struct State {
        /// Signals not yet taken by a worker.
        var pending = 0
        /// Set when the server stops: every wait returns at once.
        var isStopping = false
        var cancelled: Set<String> = []
    }

    /// One waiting worker wakes (or the next to wait returns at once).
    func signal() { state.withLock { $0.pending += 1 } }

    /// Waits for `signal` (taking it), at most `seconds`, checking every 50 ms.
    func wait(seconds: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline {
            let woken = state.withLock { state -> Bool in
                if state.isStopping { return true }
                guard state.pending > 0 else { return false }
                state.pending -= 1
                return true
            }
            if woken || Task.isCancelled { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Every wait returns now and from now on (the server stopping).
    func stopWaiting() { state.withLock { $0.isStopping = true } }

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
