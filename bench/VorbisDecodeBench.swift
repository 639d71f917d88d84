import DSPTestSupport
import MixDSP
import MixIO

/// Decoding a long Ogg Vorbis file whole, in blocks as `mixrender waveform` reads it: libsndfile (which
/// calls libvorbis) against FFmpeg's own Vorbis decoder (`FFmpegFileReader`), in one run, with how far
/// apart their samples are.
struct VorbisDecodeBench {
    let runs: Int
    let isQuick: Bool

    /// One 16-bit step: the waveform golden's absolute tolerance (its numbers are on the 16-bit scale), and
    /// the bar for calling two decodes the same.
    static let sameWithin: Float = 0x1p-15

    func run() throws -> Section {
        let seconds = isQuick ? 20.0 : 600.0
        let folder = try TemporaryFolder(prefix: "mixrender-bench")
        let path = folder.path("noise.ogg")
        let made = try Timing.seconds { try Self.writeNoise(path, seconds: seconds) }

        var section = Section(id: "vorbis", title: "Decoding \(fixed(seconds / 60, 1)) min of 44.1 kHz stereo Ogg Vorbis, whole",
                              labels: ["decoder"],
                              columns: [Column(key: "wall", title: "wall s", format: .seconds),
                                        Column(key: "open", title: "open s", format: .seconds),
                                        Column(key: "realtime", title: "x realtime", format: .realtime),
                                        Column(key: "ratio", title: "libsndfile / this", format: .ratio)])
        let decoders: [(String, () throws -> any AudioFileReader)] = [
            ("libsndfile (libvorbis)", { try SoundFileReader(path: path) }),
            ("FFmpeg (counting pass at open)", { try FFmpegFileReader(path: path) }),
            ("FFmpeg, info from libsndfile (waveform)", { try AudioFile.open(path: path, purpose: .wholeFile) }),
        ]
        // Runs alternate the decoders, after one warm-up each.
        var times = [[(open: Double, wall: Double)]](repeating: [], count: decoders.count)
        for decoder in decoders { _ = try Self.decode(decoder.1) }
        for _ in 0..<runs {
            for (i, decoder) in decoders.enumerated() { times[i].append(try Self.decode(decoder.1)) }
        }
        let reference = Spread(times[0].map(\.wall)).median
        for (i, decoder) in decoders.enumerated() {
            section.add([decoder.0], ["wall": Spread(times[i].map(\.wall)), "open": Spread(times[i].map(\.open)),
                                      "realtime": Spread(times[i].map { seconds / $0.wall }),
                                      "ratio": Spread(times[i].map { reference / $0.wall })])
        }
        let (difference, frames) = try Self.compare(SoundFileReader(path: path), FFmpegFileReader(path: path))
        section.notes = [
            "pink noise at 0.5, written by SoundFileWriter at Vorbis quality 0.4 (\(fixed(made, 1)) s); each decoder reads "
                + "\(WaveformBlock.frames)-frame blocks to the end; runs alternate the decoders, one thread.",
            "open = opening alone: libsndfile reads the headers and the last page's granule position; FFmpeg's counting "
                + "pass decodes the whole file once for its exact length; the waveform's way (AudioFile.open(path:purpose: .wholeFile)) "
                + "opens with libsndfile for the info, then decodes with FFmpeg.",
            "samples: libsndfile \(frames.sndfile) frames, FFmpeg \(frames.ffmpeg); max |difference| \(difference) "
                + "(\(difference <= Self.sameWithin ? "within" : "BEYOND") one 16-bit step, 2^-15, the waveform golden's tolerance).",
        ]
        return section
    }

    /// The block size the waveform command reads with.
    enum WaveformBlock { static let frames = 16384 }

    /// Seconds to open, and to open and read to the end.
    private static func decode(_ open: () throws -> any AudioFileReader) throws -> (open: Double, wall: Double) {
        var buffer = [Float](repeating: 0, count: WaveformBlock.frames * 2)
        var reader: (any AudioFileReader)?
        let start = Timing.clock.now
        let opening = try Timing.seconds { reader = try open() }
        while try reader!.read(into: &buffer, frames: WaveformBlock.frames) > 0 {}
        return (opening, (Timing.clock.now - start).seconds)
    }

    /// The largest sample difference between two decodes of one file, and how many frames each gave.
    private static func compare(_ a: any AudioFileReader, _ b: any AudioFileReader) throws
        -> (Float, frames: (sndfile: Int64, ffmpeg: Int64)) {
        let block = WaveformBlock.frames, channels = a.channelCount
        var x = [Float](repeating: 0, count: block * channels), y = x
        var worst: Float = 0, framesA: Int64 = 0, framesB: Int64 = 0
        while true {
            let n = try a.read(into: &x, frames: block), m = try b.read(into: &y, frames: block)
            framesA += Int64(n); framesB += Int64(m)
            for i in 0..<(min(n, m) * channels) { worst = max(worst, abs(x[i] - y[i])) }
            if n == 0 && m == 0 { return (worst, (framesA, framesB)) }
        }
    }

    /// Writes `seconds` of stereo pink noise (`NoiseGenerator`) as Ogg Vorbis, in 4096-frame blocks.
    private static func writeNoise(_ path: String, seconds: Double) throws {
        let rate = 44_100, frames = Int(seconds * Double(rate)), chunk = 4096
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(
            format: .oggVorbis, sampleRate: rate, channelCount: 2, vorbisQuality: 0.4))
        let noise = NoiseGenerator(color: .pink, seed: 11, channelCount: 2)
        let block = AudioBlock(channelCount: 2, capacity: chunk)
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: 2 * chunk)
        defer { interleaved.deallocate() }
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            try noise.render(into: block, offset: 0, count: n, at: Int64(done))
            for c in 0..<2 { for i in 0..<n { block.channel(c)[i] *= 0.5 } }
            Kernels.interleave(block, offset: 0, count: n, into: interleaved)
            try writer.write(interleaved: interleaved, frames: n)
            done += n
        }
        try writer.finish()
    }
}
