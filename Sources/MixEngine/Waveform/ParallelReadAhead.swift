import Foundation  // Thread, NSCondition
import MixDSP

/// Decodes one file on several threads at once, for a reader that takes its blocks in order: the file is cut into
/// chunks of `chunkFrames`, and decoder `w` of `N` (each a reader of the same file, on a thread of its own)
/// decodes chunks `w, w + N, w + 2N, ...`, seeking to each. The reader gets the file's blocks in order, as
/// `ReadAheadDecoder` gives them, and takes a chunk's blocks while its decoder is still writing the rest.
///
/// **Why this is exact.** Only decoders whose seek gives the very samples a read from the start gives are used
/// (`AudioFileReader.seeksToTheSameSamples`: Ogg Vorbis, and FLAC and PCM through FFmpeg); so the blocks are the
/// file's, whoever decoded them, and the analysis is the one-decoder analysis bit for bit.
///
/// **What it costs.** Each decoder reads every page of the file, decoding only its own chunks and, before each, the
/// frames from the last page that ends 2048 frames or more before it (`OggVorbisFileReader.seek`: 2048 and about
/// half a page, a page being about 14,000 frames in mixrender's files), and the buffers are out of the caches by
/// the time they are read: an hour of Ogg Vorbis took 8 to 10 % more CPU on two decoders than on one.
///
/// **Memory layout.** `2 (N + 1)` buffers of `chunkFrames` interleaved frames, in one allocation made in `init`:
/// chunk `k` goes to buffer `k % 2 (N + 1)` once the reader is done with the chunk before it there, so that a
/// decoder whose chunk waits to be read can start its next ones. With `N + 1`, a decoder that finished its chunk
/// often waited for the reader, which waited for the other decoder: an hour of Ogg Vorbis on two decoders took
/// 2.23 s with 3 buffers, 2.07 s with 5 and 2.03 s with 8 (1 MiB each, stereo at 48 kHz; four runs each, here).
/// `next`, `release` and `cancel` allocate nothing (an error is boxed only when one is thrown).
///
/// **Threads.** A `ChunkScheduler` deals the chunks to the decoders and hands them to the reader in order, a
/// chunk's blocks as soon as they are decoded. `next()`, `release()` and `cancel()` are called from one thread, the
/// reader's. Call `cancel()` when done: it stops the decoders and waits for their threads (`deinit` calls it too).
final class ParallelReadAhead: DecodedBlocks {
    let channelCount: Int
    let blockFrames: Int
    private let scheduler: ChunkScheduler
    private let buffers: ChunkBuffers
    /// The reader's place: the chunk it reads, how far into it, and the frames of the block it holds.
    private var chunk = 0
    private var offset = 0
    private var heldFrames = 0

    /// Starts decoding at once, one thread per decoder. Every decoder reads the same `frameCount` frames of
    /// `channelCount` channels from frame 0; `chunkFrames` is a multiple of `blockFrames`.
    init(_ decoders: [AudioDecoder], frameCount: Int64, blockFrames: Int, chunkFrames: Int) {
        precondition(!decoders.isEmpty && blockFrames > 0 && chunkFrames >= blockFrames && chunkFrames % blockFrames == 0)
        channelCount = decoders[0].channelCount
        self.blockFrames = blockFrames
        let buffers = ChunkBuffers(count: 2 * (decoders.count + 1), chunkFrames: chunkFrames, channelCount: channelCount, frameCount: frameCount)
        self.buffers = buffers
        scheduler = ChunkScheduler(chunkCount: Int((frameCount + Int64(chunkFrames) - 1) / Int64(chunkFrames)), slotCount: buffers.count)
        scheduler.start(decoders.map { decoder in
            precondition(decoder.channelCount == decoders[0].channelCount)
            return ChunkDecoder(decoder: decoder, buffers: buffers, blockFrames: blockFrames)
        }, threadName: "mixrender waveform decoder")
    }

    deinit { cancel() }

    /// The next decoded block, waiting for it if needed; nil at the end of the file. Rethrows a decoder's error
    /// when the reader reaches the chunk it failed in (after the blocks decoded before it). Call `release()` when
    /// done with the block.
    func next() throws -> (samples: UnsafePointer<Float>, frames: Int)? {
        precondition(heldFrames == 0, "release() the block before asking for the next")
        while chunk < scheduler.chunkCount {
            let (slot, decoded) = try scheduler.frames(ofChunk: chunk, after: offset,
                                                       wanting: max(1, min(blockFrames, buffers.frames(ofChunk: chunk) - offset)))
            if decoded > offset {
                heldFrames = min(blockFrames, decoded - offset)
                return (UnsafePointer(buffers.chunk(slot) + offset * channelCount), heldFrames)
            }
            // A chunk cut short: the decoder found the end of the file before the length it was told.
            guard offset == buffers.frames(ofChunk: chunk) else { return nil }
            scheduler.finished(chunk: chunk)
            chunk += 1
            offset = 0
        }
        return nil
    }

    /// Frees the block `next()` returned.
    func release() {
        offset += heldFrames
        heldFrames = 0
    }

    /// Stops the decoders and waits for their threads to end. Later calls return at once.
    func cancel() {
        scheduler.stop()
    }

    /// The chunks' buffers: `count` of `chunkFrames` interleaved frames, one after another, in one allocation, for
    /// a file of `frameCount` frames. Held by the reader and every decoder, so that it outlives their threads.
    private final class ChunkBuffers {
        let count: Int
        let chunkFrames: Int
        let channelCount: Int
        let frameCount: Int64
        private let samples: UnsafeMutablePointer<Float>

        init(count: Int, chunkFrames: Int, channelCount: Int, frameCount: Int64) {
            self.count = count
            self.chunkFrames = chunkFrames
            self.channelCount = channelCount
            self.frameCount = frameCount
            samples = .allocate(capacity: count * chunkFrames * channelCount)
        }

        /// The frames of the file chunk `k` holds.
        func frames(ofChunk k: Int) -> Int {
            Int(min(Int64(chunkFrames), frameCount - Int64(k) * Int64(chunkFrames)))
        }

        deinit { samples.deallocate() }

        /// Buffer `i`'s first frame.
        func chunk(_ i: Int) -> UnsafeMutablePointer<Float> { samples + i * chunkFrames * channelCount }
    }

    /// One decoder: seeks to each chunk it is given and decodes it block by block into its buffer.
    private final class ChunkDecoder: ChunkWorker {
        let decoder: AudioDecoder
        let buffers: ChunkBuffers
        let blockFrames: Int

        init(decoder: AudioDecoder, buffers: ChunkBuffers, blockFrames: Int) {
            self.decoder = decoder
            self.buffers = buffers
            self.blockFrames = blockFrames
        }

        func work(chunk k: Int, slot: Int, progress: (Int) -> Bool) throws -> Bool {
            let target = buffers.frames(ofChunk: k)
            let base = buffers.chunk(slot)
            try decoder.seek(to: Int64(k) * Int64(buffers.chunkFrames))
            var done = 0
            while done < target {
                let n = try decoder.read(into: base + done * buffers.channelCount, frames: min(blockFrames, target - done))
                guard n > 0 else { return false }
                done += n
                guard progress(done) else { return true }
            }
            return true
        }
    }
}
