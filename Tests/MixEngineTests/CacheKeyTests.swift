import DSPTestSupport
import Foundation
import MixIO
@testable import MixEngine
import TestSupport
import Testing

/// The cache key is computed from the resolved plan: the preset's spelling does not change it, anything
/// that changes the audio (or the version) does.
@Suite struct CacheKeyTests {
    /// A folder with a short sine WAV (`sine.wav`) and a copy of it in `copies/`.
    func folder() throws -> TemporaryFolder {
        let s = try TemporaryFolder()
        _ = try s.wav("sine.wav", rate: 44100, frames: 44100, TestSignals.sine(frequency: 440, amplitude: 0.5, rate: 44100))
        try FileManager.default.createDirectory(atPath: s.path("copies"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: s.path("sine.wav"), toPath: s.path("copies/sine.wav"))
        return s
    }

    func key(_ s: TemporaryFolder, _ json: String, name: String = "p.json", format: OutputFileFormat? = nil,
             version: String = MixrenderVersion.string, overrides: RenderOverrides = RenderOverrides()) throws -> CacheKey {
        let job = try RenderJob(presetPath: try s.write(name, json), overrides: overrides)
        return try job.cacheKey(inputs: try InputFile.hashAll(job.plan), format: format, version: version)
    }

    static let base = """
        { "duration": 90, "output": { "sampleRate": 48000 },
          "master": { "gainDb": -1, "fadeOut": "10s" },
          "tracks": [ { "file": "sine.wav", "loop": true, "gainDb": -6, "fadeIn": 5 },
                      { "generator": { "type": "pink", "seed": 7 }, "gainDb": -20, "pan": 0.25 },
                      { "tone": { "frequencyHz": 200 }, "gainDb": -30 } ] }
        """

    @Test func equivalentPresetsHaveTheSameKey() throws {
        let s = try folder()
        let reference = try key(s, Self.base)
        // Keys reordered, times spelled differently, defaults written out, the file reached by another path.
        let respelled = """
            { "tracks": [ { "gainDb": -6, "fadeIn": "5s", "loop": true, "file": "copies/../sine.wav" },
                          { "pan": 0.25, "gainDb": -20, "generator": { "seed": 7, "type": "pink" } },
                          { "gainDb": -30, "tone": { "frequencyHz": 200.0, "waveform": "sine" } } ],
              "master": { "fadeOut": "0:10", "gainDb": -1.0 },
              "output": { "sampleRate": 48000, "channels": 2 },
              "duration": "90s" }
            """
        #expect(try key(s, respelled, name: "q.json") == reference)
        #expect(try key(s, Self.base.replacingOccurrences(of: "\"duration\": 90", with: "\"duration\": \"1:30\""), name: "r.json") == reference)
        // A copy of the file elsewhere is the same input (its content, not its path).
        #expect(try key(s, Self.base.replacingOccurrences(of: "\"sine.wav\"", with: "\"copies/sine.wav\""), name: "c.json") == reference)
        // The same render asked for with an override.
        #expect(try key(s, Self.base.replacingOccurrences(of: "\"duration\": 90", with: "\"duration\": 300"), name: "long.json",
                        overrides: RenderOverrides(durationSeconds: 90)) == reference)
    }

    @Test func theAudioKeyIgnoresTheFormatAndTheFileKeyDoesNot() throws {
        let s = try folder()
        let plain = try key(s, Self.base)
        let ogg = try key(s, Self.base, format: .oggVorbis)
        let flac = try key(s, Self.base, format: .flac)
        #expect(plain.file == nil)
        #expect(ogg.audio == plain.audio && flac.audio == plain.audio)
        #expect(ogg.file != nil && flac.file != nil && ogg.file != flac.file)
        #expect(try key(s, Self.base, format: .oggVorbis) == ogg)
        // The encoding's settings change the file key only.
        let better = try key(s, Self.base, format: .oggVorbis, overrides: RenderOverrides(quality: 0.9))
        #expect(better.audio == plain.audio && better.file != ogg.file)
    }

    @Test func oneByteOfAnInputChangesTheKey() throws {
        let s = try folder()
        let before = try key(s, Self.base)
        // The last byte of the file: the last sample's last byte, the header unchanged.
        var bytes = try FileSystem.readDocument(path: s.path("sine.wav"), maximumBytes: 1 << 30)
        bytes[bytes.count - 1] ^= 0x01
        try FileSystem.writeFile(path: s.path("sine.wav"), bytes: bytes)
        let after = try key(s, Self.base)
        #expect(after.audio != before.audio)
    }

    @Test(arguments: [
        ("a track's gain", "\"gainDb\": -6,", "\"gainDb\": -6.1,"),
        ("a generator's gain", "\"gainDb\": -20,", "\"gainDb\": -19,"),
        ("the master gain", "\"gainDb\": -1,", "\"gainDb\": -2,"),
        ("a fade", "\"fadeIn\": 5", "\"fadeIn\": 6"),
        ("a balance", "\"pan\": 0.25", "\"pan\": 0.3"),
        ("a seed", "\"seed\": 7", "\"seed\": 8"),
        ("a frequency", "\"frequencyHz\": 200", "\"frequencyHz\": 201"),
        ("the length", "\"duration\": 90", "\"duration\": 91"),
        ("the rate", "\"sampleRate\": 48000", "\"sampleRate\": 44100"),
        ("the resampler (to libsamplerate)", "\"sampleRate\": 48000 }", "\"sampleRate\": 48000, \"resampler\": \"medium\" }"),
        ("the resampler (a libsoxr one)", "\"sampleRate\": 48000 }", "\"sampleRate\": 48000, \"resampler\": \"soxr-vhq\" }"),
    ])
    func anyChangeToTheMixChangesTheKey(what: String, from: String, to: String) throws {
        let s = try folder()
        #expect(Self.base.contains(from), "\(what)")
        let changed = Self.base.replacingOccurrences(of: from, with: to)
        #expect(try key(s, changed, name: "changed.json").audio != (try key(s, Self.base)).audio, "\(what)")
    }

    @Test func theVersionChangesTheKey() throws {
        let s = try folder()
        let now = try key(s, Self.base, format: .flac)
        let next = try key(s, Self.base, format: .flac, version: "99.0.0")
        #expect(now.audio != next.audio && now.file != next.file)
        #expect(next.version == "99.0.0")
    }

    @Test func aPartialRenderHasItsOwnKey() throws {
        let s = try folder()
        var part = RenderOverrides()
        part.startSeconds = 10
        #expect(try key(s, Self.base, overrides: part).audio != (try key(s, Self.base)).audio)
    }

    @Test func inputsAreHashedByContent() throws {
        let s = try folder()
        let job = try RenderJob(presetPath: try s.write("p.json", Self.base))
        let inputs = try InputFile.hashAll(job.plan)
        #expect(inputs.count == 1)
        let bytes = try FileSystem.readDocument(path: s.path("sine.wav"), maximumBytes: 1 << 30)
        #expect(inputs[0].bytes == Int64(bytes.count))
        var hash = ContentHash()
        bytes.withUnsafeBytes { hash.update($0) }
        #expect(inputs[0].sha256 == hash.hex)
        // Chunked reads give the digest of the whole file.
        #expect(try ContentHash.file(path: s.path("sine.wav"), chunkBytes: 1000).sha256 == hash.hex)
        // A known vector: SHA-256("abc").
        #expect(ContentHash.of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
