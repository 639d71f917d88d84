import MixDSP
import MixEngine

/// The procedural generators (rain, wind, surf, fire, crickets; noise for scale): nanoseconds per stereo frame at 48 kHz,
/// rendering 4096-frame blocks on through the timeline as the renderer does, and the cost of one seek (a
/// block started somewhere new, with the generator's warm-up). One row per generator: a simple list.
struct GeneratorBench {
    let timing: Timing
    let blockFrames = 4096
    let rate = 48_000

    func run() -> Section {
        let columns = [Column(key: "nsPerFrame", title: "ns/frame", format: .nanoseconds),
                       Column(key: "realtime", title: "x realtime", format: .realtime)]
        var section = Section(id: "generators", title: "Generators: stereo at 48 kHz, 4096-frame blocks, rendered on",
                              labels: ["generator", "what"], columns: columns)
        let block = AudioBlock(channelCount: 2, capacity: blockFrames)
        let n = blockFrames
        func add(_ name: String, _ what: String, _ make: () -> FrameSource, seek: Bool = false, from seconds: Int64 = 3600) {
            let source = make()
            var position: Int64 = seek ? seconds * Int64(rate) : 0
            let seconds = timing.measure {
                try! source.render(into: block, offset: 0, count: n, at: position)
                blackHole(block.channel(0)[0])
                // rendering on: the next block; seeking: a block 7 s further, never where the last one ended
                position += seek ? 7 * Int64(rate) : Int64(n)
            }
            let perFrame = seconds.map { $0 / Double(n) }
            section.add([name, what], ["nsPerFrame": Spread(perFrame.map { $0 * 1e9 }),
                                       "realtime": Spread(perFrame.map { 1 / ($0 * Double(rate)) })])
        }
        add("noise", "pink (for scale)") { NoiseGenerator(color: .pink, seed: 1, channelCount: 2) }
        add("rain", "intensity 0.6 (188 drops/s)") { RainGenerator(intensity: 0.6, seed: 4, sampleRate: rate, channelCount: 2) }
        add("rain", "intensity 1 (400 drops/s)") { RainGenerator(intensity: 1, seed: 4, sampleRate: rate, channelCount: 2) }
        add("wind", "intensity 0.8") { WindGenerator(intensity: 0.8, seed: 2, sampleRate: rate, channelCount: 2) }
        add("surf", "intensity 0.7, period 3 s") { SurfGenerator(intensity: 0.7, periodSeconds: 3, seed: 2, sampleRate: rate, channelCount: 2) }
        add("fire", "intensity 0.5") { FireGenerator(intensity: 0.5, seed: 3, sampleRate: rate, channelCount: 2) }
        add("fire", "intensity 1") { FireGenerator(intensity: 1, seed: 3, sampleRate: rate, channelCount: 2) }
        add("crickets", "intensity 0.4 (6 crickets), 22 °C") { CricketChorus(intensity: 0.4, temperatureC: 22, seed: 5, sampleRate: rate, channelCount: 2) }
        add("crickets", "intensity 1 (12 crickets), 35 °C") { CricketChorus(intensity: 1, temperatureC: 35, seed: 5, sampleRate: rate, channelCount: 2) }
        add("surf", "seek: each block 7 s on (0.1 s warm-up)", { SurfGenerator(intensity: 0.7, periodSeconds: 3, seed: 2, sampleRate: rate, channelCount: 2) }, seek: true)
        add("rain", "seek: each block 7 s on (its epoch's warm start)", { RainGenerator(intensity: 0.6, seed: 4, sampleRate: rate, channelCount: 2) }, seek: true)
        add("wind", "seek: each block 7 s on (its epoch's warm start)", { WindGenerator(intensity: 0.8, seed: 2, sampleRate: rate, channelCount: 2) }, seek: true)
        add("fire", "seek: each block 7 s on (0.1 s warm-up)", { FireGenerator(intensity: 0.5, seed: 3, sampleRate: rate, channelCount: 2) }, seek: true)
        // As a render makes them (wrapped in the DC blocker, whose seek renders the generator from up to 5 s before):
        // a seek 10 seconds in against one 10 hours in.
        let generators: [(String, () -> FrameSource)] = [
            ("rain", { RainGenerator(intensity: 0.6, seed: 4, sampleRate: rate, channelCount: 2) }),
            ("wind", { WindGenerator(intensity: 0.8, seed: 2, sampleRate: rate, channelCount: 2) }),
            ("surf", { SurfGenerator(intensity: 0.7, periodSeconds: 3, seed: 2, sampleRate: rate, channelCount: 2) }),
            ("fire", { FireGenerator(intensity: 0.5, seed: 3, sampleRate: rate, channelCount: 2) }),
            ("crickets", { CricketChorus(intensity: 0.4, temperatureC: 22, seed: 5, sampleRate: rate, channelCount: 2) }),
        ]
        for (name, make) in generators {
            add(name, "as rendered (DC blocker): rendered on", { DCBlocker(make(), sampleRate: rate) })
            add(name, "as rendered: seek from 10 s, each block 7 s on", { DCBlocker(make(), sampleRate: rate) }, seek: true, from: 10)
            add(name, "as rendered: seek from 10 h, each block 7 s on", { DCBlocker(make(), sampleRate: rate) }, seek: true, from: 36_000)
        }
        section.notes.append("ns/frame is per stereo frame of the block; a seek's figure includes the warm-up it runs first "
                             + "(the DC blocker's: the generator from the start of its 1 s epoch, less 0.75 s).")
        return section
    }
}
