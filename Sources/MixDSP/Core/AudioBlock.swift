/// A planar block of `Float` samples: `channelCount` channels of `capacity` frames each.
///
/// All memory is allocated once, in `init`; nothing that reads or writes a block allocates. A block may
/// instead view memory held elsewhere (`init(viewing:)`), which it neither allocates nor frees.
/// Channels are staggered by a few cache lines so that equal-sized channels of many blocks
/// do not alias in the cache (measured: page-aligned identical buffers cost about 30 %).
/// Layout: one allocation; channel c starts at float c * stride, stride = `capacity` rounded up to 16
/// floats plus 16 more (one 64-byte cache line of stagger).
///
/// Not thread-safe: nothing guards the samples. A block being written must not be used by another
/// thread at the same time; a block nobody writes any more (shared prepared material) may be read from
/// several threads at once. Not `Sendable`.
public final class AudioBlock {
    public let channelCount: Int
    public let capacity: Int
    private let stride: Int
    private let storage: UnsafeMutablePointer<Float>
    private let ownsStorage: Bool

    public init(channelCount: Int, capacity: Int) {
        precondition(channelCount > 0 && capacity > 0, "an AudioBlock needs at least one channel and one frame")
        self.channelCount = channelCount
        self.capacity = capacity
        // Round each channel up to 16 floats (64 bytes) and add one extra cache line of stagger.
        self.stride = (capacity + 15) / 16 * 16 + 16
        self.storage = .allocate(capacity: stride * channelCount)
        storage.initialize(repeating: 0, count: stride * channelCount)
        ownsStorage = true
    }

    /// A block over memory it does not own: channel c is the `capacity` floats from `storage + c * stride`.
    /// For a buffer held elsewhere (a ring's slot) to be used as a block without a copy; the memory must
    /// outlive the block, which never frees it.
    public init(viewing storage: UnsafeMutablePointer<Float>, channelCount: Int, capacity: Int, stride: Int) {
        precondition(channelCount > 0 && capacity > 0 && stride >= capacity, "a viewed block needs channels of at least one frame, apart by at least that")
        self.channelCount = channelCount
        self.capacity = capacity
        self.stride = stride
        self.storage = storage
        ownsStorage = false
    }

    deinit { if ownsStorage { storage.deallocate() } }

    /// The samples of channel `index`, `capacity` frames long.
    @inlinable
    public func channel(_ index: Int) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: base(index), count: capacity)
    }

    @usableFromInline
    internal func base(_ index: Int) -> UnsafeMutablePointer<Float> {
        precondition(index >= 0 && index < channelCount)
        return storage + index * stride
    }

    /// Sets frames `[offset, offset + count)` of every channel to zero.
    public func clear(offset: Int = 0, count: Int) {
        precondition(offset >= 0 && offset + count <= capacity)
        for c in 0..<channelCount { (base(c) + offset).update(repeating: 0, count: count) }
    }
}
