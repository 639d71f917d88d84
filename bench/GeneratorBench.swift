import MixDSP

/// The procedural generators, one row each: ns per stereo frame at 48 kHz, rendered contiguously in
/// 4096-frame blocks (as the renderer calls them), and the cost of one seek (a render at a new position).
/// To add a generator, add one entry to `generators`.
struct GeneratorBench {
    let timing: Timing
    let blockFrames = 4096
    let rate = 48_000

    /// Name, settings and a maker of each generator measured.
    var generators: [(String, String, () -> FrameSource)] {
        [
            ("rain", "intensity 0.6 (188 drops/s)", { RainGenerator(intensity: 0.6, seed: 4, sampleRate: 48_000, channelCount: 2) }),
            ("rain", "intensity 1 (400 drops/s)", { RainGenerator(intensity: 1, seed: 4, sampleRate: 48_000, channelCount: 2) }),
            ("wind", "intensity 0.8", { WindGenerator(intensity: 0.8, seed: 2, sampleRate: 48_000, channelCount: 2) }),
            ("noise", "pink (for comparison)", { NoiseGenerator(color: .pink, seed: 1, channelCount: 2) }),
        ]
    }

    func run() throws -> Section {
        let columns = [Column(key: "nsPerFrame", title: "ns/frame", format: .nanoseconds),
                       Column(key: "realtime", title: "x realtime", format: .realtime)]
        var section = Section(id: "generators", title: "Generators: stereo 48 kHz, 4096-frame blocks", labels: ["generator", "what"],
                              columns: columns)
        let block = AudioBlock(channelCount: 2, capacity: blockFrames)
        for (name, what, make) in generators {
            let source = make()
            var position: Int64 = 0
            var failure: Error?
            let seconds = timing.measure {
                do { try source.render(into: block, offset: 0, count: blockFrames, at: position) } catch { failure = error }
                position += Int64(blockFrames)
            }
            if let failure { throw failure }
            let perFrame = seconds.map { $0 / Double(blockFrames) }
            section.add([name, what], ["nsPerFrame": Spread(perFrame.map { $0 * 1e9 }),
                                       "realtime": Spread(perFrame.map { 1 / ($0 * Double(rate)) })])
        }
        return section
    }
}
