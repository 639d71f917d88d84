/// The most recent samples of a mono stream, addressed by absolute position: a ring buffer whose
/// capacity is a power of two. Positions before 0 and from `written` on read as silence.
///
/// Layout: one buffer of `capacity` `Float`s and a count. Allocates it in `init`; `append` and `copy`
/// allocate nothing. Not thread-safe: use from one thread at a time.
public final class SampleHistory {
    public let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Samples appended so far; the next one goes to this position.
    public private(set) var written: Int64 = 0

    /// Allocates room for at least `minimumCapacity` samples (rounded up to a power of two).
    public init(minimumCapacity: Int) {
        precondition(minimumCapacity > 0)
        var capacity = 1
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        self.mask = capacity - 1
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Appends `count` samples (at most `capacity`).
    public func append(_ src: UnsafePointer<Float>, count: Int) {
        precondition(count >= 0 && count <= capacity)
        var done = 0
        while done < count {
            let slot = Int((written + Int64(done)) & Int64(mask))
            let n = min(count - done, capacity - slot)
            (storage + slot).update(from: src + done, count: n)
            done += n
        }
        written += Int64(count)
    }

    /// dst[i] = x[start + i] for i in 0 ..< count, with x = 0 before position 0 and from `written` on.
    /// The samples asked for must still be held: start >= written - capacity.
    public func copy(from start: Int64, count: Int, into dst: UnsafeMutablePointer<Float>) {
        precondition(count >= 0 && start >= written - Int64(capacity), "samples no longer held")
        var position = start
        var done = 0
        // Silence before the stream.
        if position < 0 {
            let n = Int(min(Int64(count), -position))
            dst.update(repeating: 0, count: n)
            done = n
            position += Int64(n)
        }
        // Held samples, in at most two runs around the ring.
        while done < count && position < written {
            let slot = Int(position & Int64(mask))
            let n = Int(min(Int64(count - done), Int64(capacity - slot), written - position))
            (dst + done).update(from: storage + slot, count: n)
            done += n
            position += Int64(n)
        }
        // Silence after the stream's end (so far).
        if done < count { (dst + done).update(repeating: 0, count: count - done) }
    }
}
