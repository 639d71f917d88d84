import DSPTestSupport
import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import TestSupport
import Testing

/// `ParallelReadAhead`: several decoders of one file, each decoding every Nth chunk, give the reader the file's
/// blocks in order, a decoder's failure where it happened, and stop when cancelled; and `mixrender waveform`
/// decoding an Ogg Vorbis file on several threads gives the one-thread analysis exactly.
@Suite struct ParallelReadAheadTests {
    private func readAll(_ blocks: ParallelReadAhead) throws -> [Float] {
        var values: [Float] = []
        while let block = try blocks.next() {
            #expect(block.frames <= blocks.blockFrames)
            values += UnsafeBufferPointer(start: block.samples, count: block.frames)
            blocks.release()
        }
        return values
    }

    @Test(arguments: [1, 2, 3, 5])
    func theBlocksComeInOrder(decoders: Int) throws {
        for frames in [1, 399, 400, 401, 10_007] {
            let blocks = ParallelReadAhead((0..<decoders).map { _ in CountingDecoder(frames: frames) },
                                           frameCount: Int64(frames), blockFrames: 100, chunkFrames: 400)
            defer { blocks.cancel() }
            #expect(try readAll(blocks) == (0..<frames).map(Float.init), "\(decoders) decoders, \(frames) frames")
        }
    }

    /// A decoder's failure reaches the reader after every frame before it, whichever decoder fails first in time.
    @Test(arguments: [1, 2, 3])
    func aFailureComesAfterTheFramesBeforeIt(decoders: Int) throws {
        for failingAt in [0, 250, 1_234, 9_999] {
            let blocks = ParallelReadAhead((0..<decoders).map { _ in CountingDecoder(frames: 10_000, failingAt: failingAt) },
                                           frameCount: 10_000, blockFrames: 100, chunkFrames: 400)
            defer { blocks.cancel() }
            var values: [Float] = []
            #expect(throws: CountingDecoder.Failure(at: failingAt)) {
                while let block = try blocks.next() {
                    values += UnsafeBufferPointer(start: block.samples, count: block.frames)
                    blocks.release()
                }
            }
            #expect(values == (0..<failingAt).map(Float.init), "\(decoders) decoders, failing at \(failingAt)")
        }
    }

    /// A file shorter than it said ends the reading where it ends.
    @Test func aShortFileEndsWhereItEnds() throws {
        let blocks = ParallelReadAhead((0..<2).map { _ in CountingDecoder(frames: 1_000) },
                                       frameCount: 5_000, blockFrames: 100, chunkFrames: 400)
        defer { blocks.cancel() }
        #expect(try readAll(blocks) == (0..<1_000).map(Float.init))
    }

    @Test func cancellingStopsTheDecoders() throws {
        let blocks = ParallelReadAhead((0..<3).map { _ in CountingDecoder(frames: 100_000_000) },
                                       frameCount: 100_000_000, blockFrames: 100, chunkFrames: 1_000)
        for _ in 0..<25 {
            _ = try blocks.next()
            blocks.release()
        }
        blocks.cancel()   // returns once the three threads have ended, with 99.99 % of the file undecoded
        blocks.cancel()
    }

    /// Twenty seconds of 48 kHz stereo Ogg Vorbis (seven chunks): read whole, FFmpeg seeks in it to the same
    /// samples, so two and three decoding threads give the one-thread waveform byte for byte.
    @Test func aWaveformDecodedOnSeveralThreadsIsTheSame() throws {
        let scratch = try TemporaryFolder()
        let frames = 20 * 48_000
        var noise = TestSignals.Noise(seed: 11)
        var samples = [Float](repeating: 0, count: 2 * frames)
        for i in samples.indices {
            let tone = Float(0.3 * sin(2 * Double.pi * 220 * Double(i / 2) / 48_000))
            samples[i] = tone * Float(1 + i % 2) / 2 + 0.2 * noise.sample()
        }
        let path = try scratch.oggVorbis("long.ogg", interleaved: samples)

        var options = WaveformOptions()
        options.resolution = .samplesPerPixel([256])
        var outputs: [Data] = []
        for threads in [1, 2, 3] {
            let output = scratch.path("t\(threads).json")
            let job = try WaveformJob(inputPath: path, outputPath: output, options: options, decodingThreads: threads)
            #expect(job.decodingThreads == threads)
            _ = try job.run()
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        #expect(outputs[1] == outputs[0] && outputs[2] == outputs[0])

        // Short files, and files whose seeks are not known to give the same samples, decode on one thread.
        let wav = try scratch.wav("long.wav", frames: frames, format: .pcm16) { n, _ in Float(n % 100) / 200 }
        #expect(try WaveformJob(inputPath: wav, outputPath: nil, options: WaveformOptions(), decodingThreads: 2).decodingThreads == 1)
        let short = try scratch.oggVorbis("short.ogg", interleaved: Array(samples[..<(2 * 48_000 * 5)]))
        #expect(try WaveformJob(inputPath: short, outputPath: nil, options: WaveformOptions(), decodingThreads: 2).decodingThreads == 1)
    }
}
