import MixDSP
import MixIO

/// libsamplerate (MixIO's `SampleRateResampler`) and libsoxr (`SoxrResampler`), for each quality: stereo noise converted
/// to 48 kHz in 4096-frame input chunks (as a looped file is converted once at preparation).
struct ResamplerBench {
    let runs: Int
    let isQuick: Bool

    func run() throws -> Section {
        var section = Section(id: "resampler", title: "SampleRateResampler (libsamplerate sinc, libsoxr), stereo, to 48 kHz",
                              labels: ["quality", "from"],
                              columns: [Column(key: "framesPerSecond", title: "Mframes/s out", format: .framesPerSecond),
                                        Column(key: "realtime", title: "x realtime", format: .realtime),
                                        Column(key: "vsMedium", title: "this / medium", format: .ratio)])
        let seconds = isQuick ? 1.0 : 8.0
        section.notes = ["\(fixed(seconds, 0)) s of noise per run; output frames counted; one thread."]
        var medium: [Int: Double] = [:]     // input rate -> medium's median frames/s
        for quality in [ResamplerChoice.medium, .best, .fast, .soxrHQ, .soxrVHQ] {
            for inputRate in [44_100, 22_050] {
                let frames = Int(seconds * Double(inputRate))
                let input = UnsafeMutablePointer<Float>.allocate(capacity: 2 * frames)
                defer { input.deallocate() }
                BufferArena.fill(input, count: 2 * frames, seed: 5, in: -0.5...0.5)
                let capacity = Int(Double(frames) * 48_000 / Double(inputRate)) + 8192
                let output = UnsafeMutablePointer<Float>.allocate(capacity: 2 * capacity)
                defer { output.deallocate() }
                let resampler = try makeSampleRateConverter(channelCount: 2, inputRate: inputRate, outputRate: 48_000, quality: quality)
                var produced = 0
                func convert() throws {
                    try resampler.reset()
                    var used = 0, made = 0
                    while true {
                        let chunk = min(4096, frames - used)
                        let (u, m) = try resampler.process(input: input + 2 * used, inputFrames: chunk,
                                                           output: output + 2 * made, outputCapacity: capacity - made,
                                                           endOfInput: used + chunk == frames)
                        used += u; made += m
                        if m == 0 && used == frames { break }
                    }
                    produced = made
                }
                try convert()                                           // warm-up
                var times: [Double] = []
                for _ in 0..<runs { times.append(try Timing.seconds { try convert() }) }
                let speeds = times.map { Double(produced) / $0 }
                if quality == .medium { medium[inputRate] = Spread(speeds).median }
                section.add([quality.rawValue, "\(fixed(Double(inputRate) / 1000, 2)) kHz"],
                            ["framesPerSecond": Spread(speeds),
                             "realtime": Spread(times.map { Double(produced) / 48_000 / $0 }),
                             "vsMedium": Spread(speeds.map { $0 / medium[inputRate]! })])
            }
        }
        return section
    }
}
