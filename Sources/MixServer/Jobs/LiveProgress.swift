import MixRender

/// The progress of the renders running on this server, as their renders report it (every 50 ms at most): what
/// `GET /v1/renders/{id}` and the events show between the store's updates (every few seconds, for other servers).
/// `changes` changes with every update and every render's end, which an event stream awaits.
final class LiveProgress: Sendable {
    private let progress = Locked([String: JobProgress]())
    let changes = ChangeSignal()

    func update(_ id: String, _ value: JobProgress) {
        progress.withLock { $0[id] = value }
        changes.change()
    }

    /// Render `id` ended here (its job is finished in the store, or back in the queue).
    func remove(_ id: String) {
        _ = progress.withLock { $0.removeValue(forKey: id) }
        changes.change()
    }

    func progress(of id: String) -> JobProgress? { progress.withLock { $0[id] } }
    var all: [String: JobProgress] { progress.withLock { $0 } }

    /// The folders of the live streams of the renders running here (their partial result's `hls`), by job id:
    /// what `StreamRoute` serves until the result is committed, after which its own folder has them.
    private let streams = Locked([String: String]())

    func streamStarted(_ id: String, folder: String) { streams.withLock { $0[id] = folder } }
    func streamEnded(_ id: String) { _ = streams.withLock { $0.removeValue(forKey: id) } }
    func streamFolder(of id: String) -> String? { streams.withLock { $0[id] } }
}

/// Wakes the runner's workers when a job is queued here (at once, rather than at their next look at the store), and
/// its lease keeper when a render was cancelled here (rather than at its next lease renewal). Both are awaited
/// (`ChangeSignal`), never polled.
final class JobSignal: Sendable {
    /// Changes when a job is queued here.
    let queued = ChangeSignal()
    /// Changes when a render is cancelled here.
    let cancels = ChangeSignal()
    private let cancelled = Locked<Set<String>>([])

    /// A job was queued here: the waiting workers wake (one claims it).
    func signal() { queued.change() }

    /// Every wait returns now and from now on (the server stopping).
    func stopWaiting() {
        queued.close()
        cancels.close()
    }

    /// Job `id` was cancelled through this server: its render here stops now.
    func cancelled(_ id: String) {
        _ = cancelled.withLock { $0.insert(id) }
        cancels.change()
    }

    /// The cancels since the last call.
    func takeCancelled() -> Set<String> {
        cancelled.withLock { cancelled in
            defer { cancelled = [] }
            return cancelled
        }
    }
}
