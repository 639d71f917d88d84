import Foundation  // DispatchQueue.concurrentPerform

/// Work spread over every core, with its results in order: the one place the engine fans a loop out
/// (`DispatchQueue.concurrentPerform`) and gathers what each iteration made.
enum Parallel {
    /// `body(k)` for every `k` in `0..<count`, run on all cores; the results in `k`'s order. Every iteration
    /// runs, even after one fails; then the first failure by index is rethrown.
    static func map<T>(_ count: Int, _ body: @Sendable (Int) throws -> T) throws -> [T] {
        let slots = Slots<Result<T, Error>>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { k in slots.set(k, Result { try body(k) }) }
        return try slots.take().map { try $0.get() }
    }

    /// `body(k)` for every `k`, on all cores, for a body that cannot fail.
    static func map<T>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let slots = Slots<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { k in slots.set(k, body(k)) }
        return slots.take()
    }

    /// One slot per iteration. `@unchecked Sendable`, and safe: iteration `k` alone writes slot `k`, once, and
    /// `take` reads them after `concurrentPerform` has returned, which happens after every iteration (its
    /// implementation waits on a group); no slot is read while another thread may write it. A value crosses
    /// from its iteration's thread to the caller's exactly once, so `T` need not be `Sendable`.
    private final class Slots<T>: @unchecked Sendable {
        private let buffer: UnsafeMutableBufferPointer<T?>
        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }
        func set(_ k: Int, _ value: T) { buffer[k] = value }
        func take() -> [T] { buffer.map { $0! } }
        // Deinitialise too: deallocating alone would keep every result (a loaded source's audio) alive.
        deinit { _ = buffer.deinitialize(); buffer.deallocate() }
    }
}
