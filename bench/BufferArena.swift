/// Float buffers carved out of one allocation. Each buffer is rounded up to whole cache lines and
/// followed by one more line, so equal-sized buffers start at different offsets within a 4 KiB page
/// (identical page-aligned buffers alias in the cache; measured here: about 30 % slower).
final class BufferArena {
    private let storage: UnsafeMutablePointer<Float>
    let buffers: [UnsafeMutablePointer<Float>]
    let totalFloats: Int

    init(counts: [Int]) {
        var offsets: [Int] = [], total = 0
        for n in counts { offsets.append(total); total += (n + 15) / 16 * 16 + 16 }
        totalFloats = total
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: max(total, 1))
        storage.initialize(repeating: 0, count: max(total, 1))       // touches every page now, not while timing
        self.storage = storage
        buffers = offsets.map { storage + $0 }
    }

    deinit { storage.deallocate() }

    /// Fills `count` floats with uniform noise in [lo, hi) from `seed` (xorshift32).
    static func fill(_ p: UnsafeMutablePointer<Float>, count: Int, seed: UInt32, in range: ClosedRange<Float> = -0.5...0.5) {
        var x = seed &* 2_654_435_761 | 1
        let scale = (range.upperBound - range.lowerBound) / 4_294_967_296
        for i in 0..<count {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            p[i] = range.lowerBound + Float(x) * scale
        }
    }
}
