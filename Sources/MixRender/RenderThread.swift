import Foundation  // Thread

/// A task executor that runs each job it is given on a new thread of its own (8 MiB of stack, as the encoder's).
///
/// A render is synchronous and long (seconds to minutes of CPU): run on Swift's cooperative pool it would hold one
/// of its few threads for all that time, stalling every other task of a server. Under this executor's preference
/// (`withTaskExecutorPreference`) it runs on a dedicated thread instead, yet still inside its task, so that
/// `Task.isCancelled`, which the render loop checks after every block, sees the task's cancellation.
///
/// The body of a preference scope here is one synchronous call, so a scope costs one thread: the job that enters
/// it. No state: `Sendable`, any thread may enqueue.
@available(macOS 15.0, *)
final class RenderThread: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Runs `body`, a blocking call, on a thread of its own within the current task (see the type's comment).
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withTaskExecutorPreference(RenderThread()) { try body() }
    }
}
