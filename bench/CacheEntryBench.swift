import DSPTestSupport
import MixDSP
import MixEngine
import MixIO

/// What checking a `--cache-dir` entry costs: reading an entry whole and verified (`PlanarAudioFile.read`:
/// header against the key, SHA-256 and finite samples in the same pass) against reading its bytes alone and
/// hashing them alone, and against what the entry saves, preparing the sound again from its source (a 44.1 kHz
/// WAV decoded and resampled to 48 kHz, circularly, at the default quality). The entry is in the page cache
/// (read once first), so the figures are the CPU's, not a disk's.
struct CacheEntryBench {
    let runs: Int
    let isQuick: Bool

    func run() throws -> Section {
        let seconds = isQuick ? 20.0 : 300.0
        let folder = try TemporaryFolder(prefix: "mixrender-bench")
        let frames = Int(seconds * 44100)
        let source = folder.path("loop.wav")
        let writer = try SoundFileWriter(path: source, settings: OutputSettings(format: .wav, sampleRate: 44100, channelCount: 2,
                                                                               sampleFormat: .float32))
        let noise = TestSignals.interleaved(channels: 2, frames: frames) { i, c in
            Float(SeededRandom.unit(seed: 9, stream: UInt64(c), index: UInt64(i)) * 2 - 1) * 0.3
        }
        try noise.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frames) }
        try writer.finish()
        let preset = #"{"duration": 10, "tracks": [{"file": "\#(source)", "loop": {"crossfade": 0.5}}]}"#
        let loaded = try PresetLoader.parse(Array(preset.utf8), file: "p.json", baseDirectory: folder.url.path)
        let plan = try Planner(presetFile: folder.path("p.json")).plan(loaded, analysis: Analyzer().analyse(loaded))
        let request = plan.materialRequests[0], context = plan.renderFormat
        let prepared = try request.decode(context)
        let entry = folder.path("entry.f32")
        let key = ContentHash.digest(of: "bench")
        let bounds = MaterialStore.frameBounds(expected: request.expectedFrames(context), sampleRate: context.sampleRate)
        let bytes = Double(prepared.length * 2 * 4)

        var write: [Double] = [], plain: [Double] = [], hash: [Double] = [], verified: [Double] = [], again: [Double] = []
        try PlanarAudioFile.write(prepared.audio, length: prepared.length, key: key, to: entry)
        _ = try FileSystem.readDocument(path: entry, maximumBytes: 1 << 40)
        for _ in 0..<runs {
            write.append(try Timing.seconds { try PlanarAudioFile.write(prepared.audio, length: prepared.length, key: key, to: entry) })
            var file: [UInt8] = []
            plain.append(try Timing.seconds { file = try FileSystem.readDocument(path: entry, maximumBytes: 1 << 40) })
            hash.append(Timing.seconds {
                var h = ContentHash()
                file.withUnsafeBytes { h.update($0) }
                _ = h.digest
            })
            verified.append(try Timing.seconds {
                guard case .audio = try PlanarAudioFile.read(entry, key: key, channelCount: 2, frames: bounds) else {
                    throw BenchError(message: "cache: the entry did not verify")
                }
            })
            again.append(try Timing.seconds { _ = try request.decode(context) })
        }
        var section = Section(id: "cache", title: "A cache entry of \(fixed(seconds, 0)) s of stereo at 48 kHz (\(fixed(bytes / 1e6, 1)) MB)",
                              labels: ["step"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "speed", title: "GB/s", format: .gigabytesPerSecond)])
        for (label, times) in [("read the file's bytes (read(2) into memory)", plain), ("SHA-256 of those bytes in memory", hash),
                               ("read and verify (PlanarAudioFile.read)", verified), ("write (PlanarAudioFile.write, hashing)", write),
                               ("prepare again from the source (decode + resample)", again)] {
            section.add([label], ["wall": Spread(times), "speed": Spread(times.map { bytes / $0 / 1e9 })])
        }
        section.notes = ["the entry is in the page cache; one thread; \(runs) runs, steps alternating."]
        return section
    }
}
