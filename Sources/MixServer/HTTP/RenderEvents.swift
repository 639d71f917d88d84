import Foundation
import Logging
import OpenAPIRuntime

/// A render's server-sent events (`GET /v1/renders/{id}/events`): a `state` event at once and whenever the state
/// changes, `progress` events while it renders (at most four a second), a `state` event every 15 s while nothing
/// changes (so proxies keep the stream open), and the end of the stream after the final state, or as soon as the
/// token deletes the render. Each event's data is the render as `GET /v1/renders/{id}` gives it.
///
/// The stream awaits `changes` (this server's renders' progress and ends, `LiveProgress.changes`) rather than polling;
/// a render on another server changes only in the store, which it reads at least once a second.
struct RenderEvents: Sendable {
    let first: JobView
    let changes: ChangeSignal
    let logger: Logger
    let current: @Sendable () async throws -> JobView
    let describe: @Sendable (JobView) async throws -> Components.Schemas.Render

    /// The longest the stream waits for a change here before it reads the store.
    static let storeLookSeconds = 1.0
    /// The least time between two reads of the render (so at most four progress events a second).
    static let leastInterval = 0.25

    init(first: JobView, changes: ChangeSignal, logger: Logger, current: @escaping @Sendable () async throws -> JobView,
         describe: @escaping @Sendable (JobView) async throws -> Components.Schemas.Render) {
        self.first = first
        self.changes = changes
        self.logger = logger
        self.current = current
        self.describe = describe
    }

    func stream() -> ServerSentEventsSerializationSequence<AsyncThrowingStream<ServerSentEvent, any Error>> {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        let task = Task { [self] in
            do {
                try await produce(into: continuation)
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()   // the client went away
            } catch {
                // The stream ends cut (the client sees no final event): say why, for the operator.
                logger.error("events stream ended early", metadata: ["job": "\(first.record.id)", "error": "\(error)"])
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return events.asEncodedServerSentEvents()
    }

    private func produce(into continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation) async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var view = first, sequence = 0
        func send(_ name: String) async throws {
            sequence += 1
            let data = String(decoding: try encoder.encode(try await describe(view)), as: UTF8.self)
            continuation.yield(ServerSentEvent(id: String(sequence), event: name, data: data))
        }
        try await send("state")
        var lastSent = Date(), lastRead = Date()
        var seen = changes.version
        while !view.state.isFinal {
            await changes.wait(after: seen, timeout: .seconds(Self.storeLookSeconds))
            try Task.checkCancellation()
            let sinceRead = Date().timeIntervalSince(lastRead)
            if sinceRead < Self.leastInterval { try await Task.sleep(for: .seconds(Self.leastInterval - sinceRead)) }
            seen = changes.version
            lastRead = Date()
            let next: JobView
            do { next = try await current() } catch ServiceError.notFound {
                // The token deleted the render (or it was forgotten) while the stream ran: the stream ends, cleanly.
                return
            }
            if next.state != view.state {
                view = next
                try await send("state")
                lastSent = Date()
            } else if next.state == .rendering, next.record.progress != view.record.progress {
                view = next
                try await send("progress")
                lastSent = Date()
            } else if Date().timeIntervalSince(lastSent) >= 15 {
                view = next
                try await send("state")
                lastSent = Date()
            }
        }
    }
}
