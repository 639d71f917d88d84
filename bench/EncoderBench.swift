import DSPTestSupport
import MixDSP
import MixIO

/// Encoding the same stereo noise with each lossy writer behind `AudioFileWriter` (Ogg Vorbis, MP3 and Ogg
/// Opus through libsndfile, AAC in M4A through FFmpeg) at the presets' default quality, in one run: speed,
/// bitrate and size per hour, and whether the file decodes to exactly the frames written.
struct EncoderBench {
    let runs: Int
    let isQuick: Bool

    static let rate = 48_000
    static let formats: [OutputFileFormat] = [.oggVorbis, .mp3, .opus, .m4a]

    func run() throws -> Section {
        let seconds = isQuick ? 30.0 : 600.0
        let frames = Int(seconds) * Self.rate
        let folder = try TemporaryFolder(prefix: "mixrender-bench")
        // One minute of pink noise at 0.5 (made once), written over and over: every encoder gets the same frames.
        let loop = Self.pinkNoise(frames: min(frames, 60 * Self.rate))

        var section = Section(id: "encoders", title: "Encoding \(fixed(seconds / 60, 1)) min of 48 kHz stereo pink noise, "
                              + "quality 0.5 (the presets' default)", labels: ["format"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "realtime", title: "x realtime", format: .realtime),
                                        Column(key: "kbps", title: "kbit/s", format: .count),
                                        Column(key: "hour", title: "MiB per hour", format: .mebibytes)])
        var times = [[Double]](repeating: [], count: Self.formats.count)
        var sizes = [Int64](repeating: 0, count: Self.formats.count)
        for _ in 0..<runs {
            for (i, format) in Self.formats.enumerated() {
                let path = folder.path("noise.\(format.fileExtension)")
                times[i].append(try Timing.seconds { try Self.encode(loop, frames: frames, format: format, to: path) })
                sizes[i] = FileSystem.identity(of: path)?.size ?? 0
            }
        }
        var lengths: [String] = []
        for (i, format) in Self.formats.enumerated() {
            let kbps = Double(sizes[i]) * 8 / seconds / 1000
            section.add([format.displayName], ["wall": Spread(times[i]), "realtime": Spread(times[i].map { seconds / $0 }),
                                               "kbps": Spread([kbps.rounded()]), "hour": Spread([kbps * 1000 / 8 * 3600 / 1_048_576])])
            let reader = try AudioFile.open(path: folder.path("noise.\(format.fileExtension)"))
            lengths.append("\(format.displayName) \(reader.info.frameCount)")
        }
        section.notes = [
            "each writer gets the same \(frames) frames in 4096-frame blocks on one thread; runs alternate the formats. "
                + "MP3: LAME's variable bitrate; Opus: its variable bitrate; Vorbis: quality 0.5; AAC: FFmpeg's native "
                + "encoder at \(FFmpegFileWriter.defaultBitrateKbps(quality: 0.5, sampleRate: Self.rate, channelCount: 2)) kbit/s.",
            "frames decoded back (AudioFile.open), \(frames) written: " + lengths.joined(separator: ", ") + ".",
        ]
        return section
    }

    static func encode(_ loop: [Float], frames: Int, format: OutputFileFormat, to path: String) throws {
        let settings = OutputSettings(format: format, sampleRate: rate, channelCount: 2, vorbisQuality: 0.5)
        let writer = try AudioFileWriter.open(path: path, settings: settings)
        let loopFrames = loop.count / 2, block = 4096
        try loop.withUnsafeBufferPointer { samples in
            var done = 0
            while done < frames {
                let at = done % loopFrames
                let n = min(block, frames - done, loopFrames - at)
                try writer.write(interleaved: samples.baseAddress! + at * 2, frames: n)
                done += n
            }
        }
        try writer.finish()
    }

    /// Pink noise at 0.5, interleaved stereo, from the project's generator (seeded).
    static func pinkNoise(frames: Int) -> [Float] {
        let noise = NoiseGenerator(color: .pink, seed: 11, channelCount: 2)
        let block = AudioBlock(channelCount: 2, capacity: 4096)
        var out = [Float](repeating: 0, count: frames * 2)
        var done = 0
        while done < frames {
            let n = min(4096, frames - done)
            try! noise.render(into: block, offset: 0, count: n, at: Int64(done))
            for c in 0..<2 { for i in 0..<n { out[(done + i) * 2 + c] = 0.5 * block.channel(c)[i] } }
            done += n
        }
        return out
    }
}
