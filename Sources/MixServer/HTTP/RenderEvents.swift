import Foundation
import OpenAPIRuntime

/// A render's server-sent events (`GET /v1/renders/{id}/events`): a `state` event at once and whenever the state
/// changes, `progress` events while it renders (at most four a second), a `state` event every 15 s while nothing
/// changes (so proxies keep the stream open), and the end of the stream after the final state, or as soon as the
/// token deletes the render. Each event's data is the render as `GET /v1/renders/{id}` gives it.
struct RenderEvents: Sendable {
    let first: JobView
    let current: @Sendable () async throws -> JobView
    let describe: @Sendable (JobView) async throws -> Components.Schemas.Render

    init(first: JobView, current: @escaping @Sendable () async throws -> JobView,
         describe: @escaping @Sendable (JobView) async throws -> Components.Schemas.Render) {
        self.first = first
        self.current = current
        self.describe = describe
    }

    func stream() -> ServerSentEventsSerializationSequence<AsyncThrowingStream<ServerSentEvent, any Error>> {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: ServerSentEvent.self)
        let task = Task { [self] in
            do {
                try await produce(into: continuation)
                continuation.finish()
            } catch {
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
        var lastSent = Date()
        while !view.state.isFinal {
            try await Task.sleep(for: .milliseconds(250))
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
