import MixEngine
import MixIO

/// A render's encoded bytes as an `AsyncSequence` of chunks (at most 64 KiB each), for a program that sends them
/// on (an HTTP response body) rather than writing a file: `for try await chunk in try render.encodedBytes(format: .ogg)`.
///
/// Iterating starts the render, on a thread of its own, encoding into a pipe that the iterator reads; the pipe's
/// 64 KiB are the only buffer, so a slow reader slows the render and the stream never piles up in memory. The
/// sequence ends when the render has finished, or throws its error (an `EngineError`). Cancelling the iterating
/// task stops the render within a block and throws `CancellationError`; an iterator dropped early stops it too.
/// Each iteration is a render of its own.
///
/// A value (`Sendable`); its iterator is not to be shared between tasks.
@available(macOS 15.0, *)
public struct EncodedAudioBytes: AsyncSequence, Sendable {
    /// A chunk of the encoded stream, as the encoder wrote it (at most 64 KiB, never empty).
    public typealias Element = [UInt8]
    let render: PresetRender
    let format: OutputFileFormat
    let progress: AsyncStream<RenderProgress>.Continuation?

    /// Starts a render of its own, read through the returned iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(stream: Stream(render: render, format: format, progress: progress)) }

    /// Reads the encoded stream of one render, chunk by chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: Stream
        /// The next chunk; nil once the render has finished; throws its error, or `CancellationError`.
        public mutating func next() async throws -> [UInt8]? { try await stream.next() }
    }

    /// One iteration's render and pipe. `next` is called by one task at a time (an iterator's contract); the
    /// render task and the pipe are guarded by a `Locked` for `deinit` and the cancellation handler, which may run
    /// on other threads.
    final class Stream: Sendable {
        private struct State {
            var pipe: BytePipe?
            var task: Task<RenderResult, any Error>?
            var isDone = false
        }
        private let state = Locked(State())
        private let render: PresetRender
        private let format: OutputFileFormat
        private let progress: AsyncStream<RenderProgress>.Continuation?

        init(render: PresetRender, format: OutputFileFormat, progress: AsyncStream<RenderProgress>.Continuation?) {
            self.render = render
            self.format = format
            self.progress = progress
        }

        func next() async throws -> [UInt8]? {
            if state.withLock({ $0.isDone }) { return nil }
            let (pipe, task) = try start()
            let chunk = try await withTaskCancellationHandler {
                try await RenderThread.run { try pipe.read() }
            } onCancel: {
                task.cancel()
            }
            if Task.isCancelled {
                // The render stops within a block and closes its end; what it wrote meanwhile is read and dropped.
                task.cancel()
                try await RenderThread.run { Self.drain(pipe) }
                state.withLock { $0.isDone = true }
                throw CancellationError()
            }
            if !chunk.isEmpty { return chunk }
            // The end of the stream: the render has returned (or failed) and closed its end.
            state.withLock { $0.isDone = true }
            pipe.closeReading()
            _ = try await task.value
            return nil
        }

        /// The pipe and the render writing into it, started on the first call.
        private func start() throws -> (BytePipe, Task<RenderResult, any Error>) {
            try state.withLock { state in
                if let pipe = state.pipe, let task = state.task { return (pipe, task) }
                let pipe = try LibraryError.wrapping(output: "the stream") { try BytePipe() }
                let render = render, format = format, progress = progress
                let task = Task {
                    defer { pipe.closeWriting() }
                    return try await render.render(toFileDescriptor: pipe.writeDescriptor, format: format, progress: progress)
                }
                state.pipe = pipe
                state.task = task
                return (pipe, task)
            }
        }

        /// Reads `pipe` to its end and closes it.
        private static func drain(_ pipe: BytePipe) {
            while let chunk = try? pipe.read(), !chunk.isEmpty {}
            pipe.closeReading()
        }

        /// An iterator dropped before the end: the render is cancelled, and the pipe drained on a thread of its own
        /// until the render has closed its end (closing it first would kill the process with SIGPIPE).
        deinit {
            let (pipe, task, isDone) = state.withLock { ($0.pipe, $0.task, $0.isDone) }
            guard let pipe, let task, !isDone else { return }
            task.cancel()
            Task { try? await RenderThread.run { Self.drain(pipe) } }
        }
    }
}
