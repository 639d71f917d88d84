import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// ALAC encoders opened on several threads at once in one process (a batch, the server): each writes its own file,
/// exactly, and `FileSystem.temporaryFolder`, read meanwhile, never sees the folder an encoder is opened with
/// (`ALACScratchFolder` changes `TMPDIR` only under the lock that reader takes). Runs under the Thread Sanitizer.
@Suite struct ALACScratchFolderTests {
    @Test func encodersOpenedOnManyThreadsEachWriteTheirOwnFile() throws {
        let folder = try TemporaryFolder()
        let temporary = FileSystem.temporaryFolder
        let writers = 4, frames = 3 * 4096 + 1000
        // A different sine in each file, so that shared scratch would show in the samples.
        let signals = (0..<writers).map { w in
            TestSignals.sine(frequency: 220 * Double(w + 1), amplitude: 0.5, rate: 48_000, frames: frames, channels: 2)
        }
        let paths = (0..<writers).map { folder.path("w\($0).caf") }
        let seen = Locked(Set<String>())
        let stop = Locked(false)
        let reader = Thread {
            while !stop.withLock({ $0 }) {
                let now = FileSystem.temporaryFolder
                seen.withLock { _ = $0.insert(now) }
            }
        }
        reader.start()
        for _ in 0..<3 {
            let failures = Locked([String]())
            DispatchQueue.concurrentPerform(iterations: writers) { w in
                do {
                    var settings = OutputSettings(format: .caf, sampleRate: 48_000, channelCount: 2, sampleFormat: .pcm16)
                    settings.expectedFrameCount = Int64(frames)
                    let writer = try AudioFileWriter.open(path: paths[w], settings: settings)
                    try signals[w].withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
                    try writer.finish()
                } catch {
                    failures.withLock { $0.append("writer \(w): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            for w in 0..<writers {
                let samples = try readAll(try AudioFile.open(path: paths[w]))
                let error = zip(samples, signals[w]).map { abs($0 - $1) }.max() ?? 1
                // 16 bits, rounded: within half a step, and every frame there.
                #expect(samples.count == signals[w].count && error <= 0.5 / 32768 + 1e-9, "writer \(w): \(samples.count) samples, error \(error)")
            }
        }
        stop.withLock { $0 = true }
        while !reader.isFinished { usleep(1000) }
        // Unset before, TMPDIR is left as /tmp, which temporaryFolder gave for it all along.
        #expect(seen.withLock { $0 } == [temporary], "\(seen.withLock { $0 })")
        #expect(folder.contents == paths.map { ($0 as NSString).lastPathComponent }.sorted())
    }
}
