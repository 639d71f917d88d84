import MixDSP
import MixIO

/// Holds the columns of one zoom level for the writers, in fixed-size records of `Float`s:
/// per channel min, max, RMS; then low, mid, high, centroid (Hz); then the spectrogram rows.
///
/// Records collect in a 256 KiB chunk; when it fills, it goes to an anonymous temporary file (a MixIO
/// `SpillFile`: created in the temporary folder and unlinked at once, so nothing is left behind even
/// after a crash). Memory
/// therefore stays flat however long the audio: an hour at 256 samples per pixel is about 20 MB on disk.
/// Writers read the columns back in order with `forEach`, as often as they need.
///
/// Allocation: `init` allocates the chunk; `append` allocates nothing until the chunk first fills (then
/// it creates the `SpillFile`); `forEach` allocates a chunk-sized read buffer once spilled. Not
/// thread-safe: filled on the analysis thread, then read by the writers, one thread at a time.
public final class WaveformColumnStore: WaveformColumnSink {
    public let samplesPerPixel: Int
    public let channelCount: Int
    public let rowCount: Int
    /// Floats per column.
    public let recordSize: Int
    /// Columns held.
    public private(set) var count = 0
    /// Frames covered: the sum of the columns' frame counts.
    public private(set) var frameCount: Int64 = 0
    /// The largest |min| or |max| of any column and channel: the peak of what is drawn.
    public private(set) var peak: Float = 0

    private let chunkRecords: Int
    private let chunk: UnsafeMutablePointer<Float>
    private var chunkUsed = 0
    private var spill: SpillFile?
    private var spilledRecords = 0
    private var recordBytes: Int { MemoryLayout<Float>.size * recordSize }

    public init(samplesPerPixel: Int, channelCount: Int, rowCount: Int) {
        self.samplesPerPixel = samplesPerPixel
        self.channelCount = channelCount
        self.rowCount = rowCount
        recordSize = 3 * channelCount + 4 + rowCount
        chunkRecords = max(1, 65536 / recordSize)
        chunk = .allocate(capacity: chunkRecords * recordSize)
    }

    deinit { chunk.deallocate() }

    public func append(_ column: WaveformColumn) throws {
        precondition(column.channels.count == channelCount && column.spectrum.count == rowCount)
        if chunkUsed == chunkRecords { try spillChunk() }
        let r = chunk + chunkUsed * recordSize
        for (c, levels) in column.channels.enumerated() {
            r[3 * c] = levels.min; r[3 * c + 1] = levels.max; r[3 * c + 2] = levels.rms
            peak = max(peak, levels.peak)
        }
        let b = r + 3 * channelCount
        b[0] = column.bands.low; b[1] = column.bands.mid; b[2] = column.bands.high; b[3] = column.bands.centroidHz
        if rowCount > 0 { (b + 4).update(from: column.spectrum.baseAddress!, count: rowCount) }
        chunkUsed += 1
        count += 1
        frameCount += Int64(column.frameCount)
    }

    /// Calls `body` with every column, in order.
    public func forEach(_ body: (StoredColumn) throws -> Void) throws {
        if let spill {
            try flushChunk()
            let reading = UnsafeMutablePointer<Float>.allocate(capacity: chunkRecords * recordSize)
            defer { reading.deallocate() }
            var done = 0
            while done < spilledRecords {
                let n = min(spilledRecords - done, chunkRecords)
                do {
                    try spill.read(at: Int64(done) * Int64(recordBytes),
                                   into: UnsafeMutableRawBufferPointer(start: reading, count: n * recordBytes))
                } catch let error as AudioIOError {
                    throw AudioIOError(path: "", function: error.function, reason: error.reason,
                                       operation: "read back waveform columns", code: error.code)
                }
                for i in 0..<n { try body(StoredColumn(base: reading + i * recordSize, channelCount: channelCount, rowCount: rowCount)) }
                done += n
            }
        } else {
            for i in 0..<chunkUsed {
                try body(StoredColumn(base: chunk + i * recordSize, channelCount: channelCount, rowCount: rowCount))
            }
        }
    }

    /// One stored column, valid during the `forEach` call that passes it.
    /// A value: a pointer to its record in the store's buffer and two counts; allocates nothing. Not
    /// `Sendable`: use it on the thread of that call.
    public struct StoredColumn {
        let base: UnsafePointer<Float>
        let channelCount: Int
        let rowCount: Int

        public func min(_ channel: Int) -> Float { base[3 * channel] }
        public func max(_ channel: Int) -> Float { base[3 * channel + 1] }
        public func rms(_ channel: Int) -> Float { base[3 * channel + 2] }
        public var low: Float { base[3 * channelCount] }
        public var mid: Float { base[3 * channelCount + 1] }
        public var high: Float { base[3 * channelCount + 2] }
        public var centroidHz: Float { base[3 * channelCount + 3] }
        public var spectrum: UnsafeBufferPointer<Float> {
            UnsafeBufferPointer(start: base + 3 * channelCount + 4, count: rowCount)
        }
    }

    private func spillChunk() throws {
        if spill == nil {
            do {
                spill = try SpillFile(prefix: "mixrender-waveform-")
            } catch let error as AudioIOError {
                throw error   // cannot create a temporary file in '/tmp': <reason> (<function>)
            }
        }
        try flushChunk()
    }

    private func flushChunk() throws {
        guard let spill, chunkUsed > 0 else { return }
        do {
            try spill.append(UnsafeRawBufferPointer(start: chunk, count: chunkUsed * recordBytes))
        } catch let error as AudioIOError {
            throw AudioIOError(path: "", function: error.function, reason: error.reason,
                               operation: "store waveform columns in the temporary folder", code: error.code)
        }
        spilledRecords += chunkUsed
        chunkUsed = 0
    }
}
