import DSPTestSupport
import Foundation
import Glibc
import MixDSP
@testable import MixIO
import Testing

/// A cache entry on disk: what is written reads back exactly, and nothing else is taken for it (another key,
/// other sizes, a changed byte, NaN), whatever is at its path (nothing, a link, a FIFO, a folder), without
/// blocking or allocating what a header claims.
@Suite struct PlanarAudioFileTests {
    static let key = ContentHash.digest(of: "a sound"), otherKey = ContentHash.digest(of: "another sound")

    static func block(frames: Int) -> AudioBlock {
        let audio = AudioBlock(channelCount: 2, capacity: frames)
        for c in 0..<2 { for i in 0..<frames { audio.channel(c)[i] = Float(sin(Double(i) * 0.01 + Double(c))) * 0.5 } }
        return audio
    }

    static func reason(_ contents: PlanarAudioFile.Contents) -> String? {
        if case let .damaged(reason) = contents { return reason }
        return nil
    }

    @Test func whatIsWrittenReadsBackExactlyAndOnlyUnderItsKeyAndSizes() throws {
        let s = try TemporaryFolder()
        let path = s.path("e.f32")
        let audio = Self.block(frames: 3000)
        try PlanarAudioFile.write(audio, length: 2500, key: Self.key, to: path)
        guard case let .audio(read, length) = try PlanarAudioFile.read(path, key: Self.key, channelCount: 2, frames: 1000...5000) else {
            Issue.record("the entry did not read back"); return
        }
        #expect(length == 2500)
        for c in 0..<2 { #expect(Array(read.channel(c)[0..<2500]) == Array(audio.channel(c)[0..<2500])) }
        #expect(Self.reason(try PlanarAudioFile.read(path, key: Self.otherKey, channelCount: 2, frames: 1000...5000))?
            .hasPrefix("belongs to another sound") == true)
        #expect(Self.reason(try PlanarAudioFile.read(path, key: Self.key, channelCount: 1, frames: 1000...5000))?
            .hasPrefix("says 2 channels where this sound has 1") == true)
        #expect(Self.reason(try PlanarAudioFile.read(path, key: Self.key, channelCount: 2, frames: 3000...5000))?
            .hasPrefix("says 2500 frames where this sound has 3000-5000") == true)
        // One bit of one sample.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[64 + 4 * 1234] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(Self.reason(try PlanarAudioFile.read(path, key: Self.key, channelCount: 2, frames: 1000...5000))?
            .hasPrefix("does not match its checksum") == true)
    }

    @Test func audioThatIsNotFiniteIsNotWritten() throws {
        let s = try TemporaryFolder()
        let audio = Self.block(frames: 100)
        audio.channel(1)[37] = .infinity
        #expect(throws: AudioIOError.self) { try PlanarAudioFile.write(audio, length: 100, key: Self.key, to: s.path("e.f32")) }
        #expect(!s.contents.contains("e.f32"))
        #expect(PlanarAudioFile.areFinite(UnsafeBufferPointer(rebasing: audio.channel(1)[0..<37])))
        for bad: Float in [.nan, -.infinity, .signalingNaN] {
            var samples = [Float](repeating: 0.25, count: 53)
            samples[50] = bad   // past the SIMD part: the scalar tail is checked too
            #expect(!samples.withUnsafeBufferPointer { PlanarAudioFile.areFinite($0) })
            samples[50] = 0; samples[3] = bad
            #expect(!samples.withUnsafeBufferPointer { PlanarAudioFile.areFinite($0) })
        }
    }

    @Test func whatIsAtThePathIsNeverTrustedNorWaitedFor() throws {
        let s = try TemporaryFolder()
        let read = { (path: String) in try PlanarAudioFile.read(path, key: Self.key, channelCount: 2, frames: 0...100) }
        guard case .absent = try read(s.path("none.f32")) else { Issue.record("a missing entry is not absent"); return }
        #expect(mkfifo(s.path("fifo.f32"), 0o644) == 0)
        #expect(Self.reason(try read(s.path("fifo.f32"))) == "is not a regular file")   // and it returned: no open blocked
        try FileManager.default.createDirectory(atPath: s.path("folder.f32"), withIntermediateDirectories: false)
        #expect(Self.reason(try read(s.path("folder.f32"))) == "is not a regular file")
        _ = try s.write("target", "x")
        try FileManager.default.createSymbolicLink(atPath: s.path("link.f32"), withDestinationPath: s.path("target"))
        #expect(Self.reason(try read(s.path("link.f32"))) == "is a symbolic link, not a cache entry")
        _ = try s.write("short.f32", "MIXRPLN2")
        #expect(Self.reason(try read(s.path("short.f32")))?.hasPrefix("is 8 bytes, shorter than any cache entry") == true)
        _ = try s.write("old.f32", "MIXRPLN1" + String(repeating: "\u{0}", count: 200))
        guard case .outdated = try read(s.path("old.f32")) else { Issue.record("a MIXRPLN1 entry is not outdated"); return }
    }
}
