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
/// **Threads.** `next()`, `release()` and `cancel()` are called from one thread, the reader's. Which chunk each
/// buffer holds, how much of it is written, a failure, the chunk the reader is on and the stop are guarded by one
/// `NSCondition`; a buffer's frames are written by its decoder outside the lock, and read only after the decoder
/// has published them under it. Call `cancel()` when done: it stops the decoders and waits for their threads
/// (`deinit` calls it too, but cannot run while a thread holds the shared state).
final class ParallelReadAhead: DecodedBlocks, @unchecked Sendable {
    let channelCount: Int
    let blockFrames: Int
    private let shared: Shared
    /// The reader's place: the chunk it reads, how far into it, and the frames of the block it holds.
    private var chunk = 0
    private var offset = 0
    private var heldFrames = 0
    private var isCancelled = false

    /// Starts decoding at once, one thread per decoder. Every decoder reads the same `frameCount` frames of
    /// `channelCount` channels from frame 0; `chunkFrames` is a multiple of `blockFrames`.
    init(_ decoders: [AudioDecoder], frameCount: Int64, blockFrames: Int, chunkFrames: Int) {
        precondition(!decoders.isEmpty && blockFrames > 0 && chunkFrames >= blockFrames && chunkFrames % blockFrames == 0)
        channelCount = decoders[0].channelCount
        self.blockFrames = blockFrames
        let chunkCount = Int((frameCount + Int64(chunkFrames) - 1) / Int64(chunkFrames))
        shared = Shared(decoderCount: decoders.count, bufferCount: 2 * (decoders.count + 1), chunkFrames: chunkFrames, channelCount: channelCount,
                        chunkCount: chunkCount, frameCount: frameCount)
        for (w, decoder) in decoders.enumerated() {
            precondition(decoder.channelCount == channelCount)
            let job = DecodingJob(shared: shared, decoder: decoder, first: w, step: decoders.count, blockFrames: blockFrames)
            let thread = Thread { job.run() }
            thread.name = "mixrender waveform decoder \(w + 1)"
            thread.stackSize = 8 << 20   // as the main thread's: decoders may keep large frames on the stack
            thread.start()
        }
    }

    deinit { cancel() }

    /// The next decoded block, waiting for it if needed; nil at the end of the file. Rethrows a decoder's error
    /// when the reader reaches the chunk it failed in (after the blocks decoded before it). Call `release()` when
    /// done with the block.
    func next() throws -> (samples: UnsafePointer<Float>, frames: Int)? {
        precondition(heldFrames == 0, "release() the block before asking for the next")
        let s = shared
        s.condition.lock()
        defer { s.condition.unlock() }
        while chunk < s.chunkCount {
            let buffer = chunk % s.bufferCount
            let state = s.buffers[buffer]
            if state.chunk == chunk {
                let written = state.written
                if written > offset {
                    heldFrames = min(blockFrames, written - offset)
                    return (UnsafePointer(s.samples + (buffer * s.chunkFrames + offset) * channelCount), heldFrames)
                }
                if state.isComplete {
                    if let failure = state.failure { throw failure }
                    // A chunk cut short: the decoder found the end of the file before the length it was told.
                    guard offset == s.frames(ofChunk: chunk) else { return nil }
                    chunk += 1
                    offset = 0
                    s.readingChunk = chunk
                    s.condition.broadcast()
                    continue
                }
            }
            s.condition.wait()
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
        guard !isCancelled else { return }
        isCancelled = true
        let s = shared
        s.condition.lock()
        s.isStopping = true
        s.condition.broadcast()
        while s.runningDecoders > 0 { s.condition.wait() }
        s.condition.unlock()
    }

    /// The state the reader and the decoders share, all of it guarded by `condition` but the buffers' frames.
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        let bufferCount: Int
        let chunkFrames: Int
        let channelCount: Int
        let chunkCount: Int
        let frameCount: Int64
        /// `bufferCount` buffers of `chunkFrames` interleaved frames, one after another.
        let samples: UnsafeMutablePointer<Float>
        /// What each buffer holds.
        var buffers: [BufferState]
        /// The chunk the reader is on: every chunk before it is read, and its buffer free.
        var readingChunk = 0
        var isStopping = false
        var runningDecoders: Int

        init(decoderCount: Int, bufferCount: Int, chunkFrames: Int, channelCount: Int, chunkCount: Int, frameCount: Int64) {
            self.bufferCount = bufferCount
            self.chunkFrames = chunkFrames
            self.channelCount = channelCount
            self.chunkCount = chunkCount
            self.frameCount = frameCount
            samples = .allocate(capacity: bufferCount * chunkFrames * channelCount)
            buffers = Array(repeating: BufferState(), count: bufferCount)
            runningDecoders = decoderCount
        }

        deinit { samples.deallocate() }

        /// One buffer: the chunk it holds (-1: none yet), the frames of it written, whether its decoder is done
        /// with it, and the error that stopped that decoder in it.
        struct BufferState {
            var chunk = -1
            var written = 0
            var isComplete = false
            var failure: Error?
        }

        /// The frames of the file chunk `k` holds.
        func frames(ofChunk k: Int) -> Int {
            Int(min(Int64(chunkFrames), frameCount - Int64(k) * Int64(chunkFrames)))
        }
    }

    /// One decoder's work: chunks `first, first + step, ...`, chunk `k` into buffer `k % bufferCount`.
    private struct DecodingJob: @unchecked Sendable {
        let shared: Shared
        let decoder: AudioDecoder
        let first: Int
        let step: Int
        let blockFrames: Int

        func run() {
            let s = shared
            defer {
                s.condition.lock()
                s.runningDecoders -= 1
                s.condition.broadcast()
                s.condition.unlock()
            }
            for k in stride(from: first, to: s.chunkCount, by: step) {
                let buffer = k % s.bufferCount
                let base = s.samples + buffer * s.chunkFrames * s.channelCount
                // Wait until the reader is past the chunk this buffer held.
                s.condition.lock()
                while !s.isStopping && s.readingChunk <= k - s.bufferCount { s.condition.wait() }
                if s.isStopping { s.condition.unlock(); return }
                s.buffers[buffer] = Shared.BufferState(chunk: k)
                s.condition.unlock()

                var done = 0, failure: Error?
                let target = s.frames(ofChunk: k)
                do {
                    try decoder.seek(to: Int64(k) * Int64(s.chunkFrames))
                    while done < target {
                        let n = try decoder.read(into: base + done * s.channelCount, frames: min(blockFrames, target - done))
                        guard n > 0 else { break }
                        done += n
                        s.condition.lock()
                        s.buffers[buffer].written = done
                        s.condition.broadcast()
                        let isStopping = s.isStopping
                        s.condition.unlock()
                        if isStopping { return }
                    }
                } catch {
                    failure = error
                }
                s.condition.lock()
                s.buffers[buffer].isComplete = true
                s.buffers[buffer].failure = failure
                s.condition.broadcast()
                s.condition.unlock()
                if failure != nil || done < target { return }
            }
        }
    }
}
