import DSPTestSupport
import MixDSP
import MixEngine

/// Each kernel of the DSP core on 4096-frame stereo blocks, as the renderer calls it.
/// Frames are stereo frames (two samples); every buffer stays in cache.
struct KernelBench {
    let timing: Timing
    let blockFrames = 4096
    let rate = 48_000

    func run() -> [Section] {
        let columns = [Column(key: "framesPerSecond", title: "Mframes/s", format: .framesPerSecond),
                       Column(key: "nsPerFrame", title: "ns/frame", format: .nanoseconds),
                       Column(key: "speedUp", title: "before time / time", format: .ratio)]
        var section = Section(id: "kernels", title: "DSP kernels: one 4096-frame stereo block per call",
                              labels: ["kernel", "what"], columns: columns)
        let n = blockFrames
        let block = AudioBlock(channelCount: 2, capacity: n)
        let other = AudioBlock(channelCount: 2, capacity: n)
        let gains = AudioBlock(channelCount: 2, capacity: n)
        for c in 0..<2 {
            BufferArena.fill(block.channel(c).baseAddress!, count: n, seed: UInt32(c + 1))
            BufferArena.fill(other.channel(c).baseAddress!, count: n, seed: UInt32(c + 7))
        }
        BufferArena.fill(gains.channel(0).baseAddress!, count: n, seed: 9, in: 0.25...1)
        let g = gains.channel(0).baseAddress!, scratch = gains.channel(1).baseAddress!
        let l = block.channel(0).baseAddress!, r = block.channel(1).baseAddress!

        func figures(_ seconds: [Double]) -> [String: Spread] {
            let perFrame = seconds.map { $0 / Double(n) }
            return ["framesPerSecond": Spread(perFrame.map { 1 / $0 }), "nsPerFrame": Spread(perFrame.map { $0 * 1e9 })]
        }
        func add(_ name: String, _ what: String, _ body: @escaping () -> Void) {
            section.add([name, what], figures(timing.measure(body)))
        }
        /// The code this bench replaced and its replacement, measured in alternation.
        func compare(_ name: String, _ what: String, before: @escaping () -> Void, after: @escaping () -> Void) {
            let times = timing.alternate([before, after])
            section.add([name, what + ", before"], figures(times[0]))
            var f = figures(times[1])
            f["speedUp"] = Spread(zip(times[0], times[1]).map { $0 / $1 })
            section.add([name, what + ", after"], f)
        }

        // Gain ramps and fades: the envelope rendered into a gain buffer, block after block through a
        // 10-minute segment (each value from the absolute frame position).
        let span = Int64(600 * rate)
        for curve in Curve.allCases {
            let envelope = Envelope.fadeIn(start: 0, length: span, curve: curve)
            var position: Int64 = 0
            add("envelope render", "\(curve.rawValue) fade, per-sample values") {
                blackHole(envelope.render(into: g, count: n, at: position))
                position = (position + Int64(n)) % (span - Int64(n))
            }
        }
        let automation = Envelope(points: [Envelope.Point(position: 0, value: 0.25),
                                           Envelope.Point(position: span, value: 1, curve: .exponential)])
        var autoPosition: Int64 = 0
        add("envelope render", "exponential ramp 0.25 -> 1 (dB-linear)") {
            blackHole(automation.render(into: g, count: n, at: autoPosition))
            autoPosition = (autoPosition + Int64(n)) % (span - Int64(n))
        }
        let constant = Envelope.fadeOut(end: 4 * span, length: span, curve: .sCurve)
        add("envelope render", "constant stretch (returns one gain)") {
            blackHole(constant.render(into: g, count: n, at: 1000))
        }
        let stack = GainStack(constant: 0.7, envelopes: [Envelope.fadeIn(start: 0, length: 2 * span, curve: .sCurve),
                                                         Envelope.fadeOut(end: 2 * span, length: 2 * span, curve: .linear)])
        var stackPosition: Int64 = 0
        add("gain stack", "constant x 2 ramping envelopes") {
            blackHole(stack.render(into: g, scratch: scratch, count: n, at: stackPosition))
            stackPosition = (stackPosition + Int64(n)) % (span - Int64(n))
        }
        BufferArena.fill(g, count: n, seed: 9, in: 0.25...1)

        // Applying gains (the master fade) and pan (balance gains into the bus). Gains near 1 and a
        // sign flip keep the block's values from decaying into denormals over millions of calls.
        let unity = AudioBlock(channelCount: 1, capacity: n)
        BufferArena.fill(unity.channel(0).baseAddress!, count: n, seed: 11, in: 0.999...1.001)
        let u = unity.channel(0).baseAddress!
        add("apply gain", "Kernels.multiply, both channels by one gain buffer") {
            Kernels.multiply(l, by: u, count: n); Kernels.multiply(r, by: u, count: n)
        }
        add("apply gain", "Kernels.scale, both channels by a constant") {
            Kernels.scale(l, by: -1, count: n); Kernels.scale(r, by: -1, count: n)
        }
        let balance = balanceGains(pan: -0.4, channelCount: 2)
        add("pan", "clear bus; bus += level x balance x track (Kernels.addScaled, L and R)") {
            block.clear(count: n)
            Kernels.addScaled(other.channel(0).baseAddress!, by: 0.5 * balance[0], into: l, count: n)
            Kernels.addScaled(other.channel(1).baseAddress!, by: 0.5 * balance[1], into: r, count: n)
        }
        add("pan", "clear bus; bus += balance x gain buffer x track (Kernels.addProduct, L and R)") {
            block.clear(count: n)
            Kernels.addProduct(other.channel(0).baseAddress!, gains: g, by: balance[0], into: l, count: n)
            Kernels.addProduct(other.channel(1).baseAddress!, gains: g, by: balance[1], into: r, count: n)
        }

        // The limiter, on a refilled block each call (the copy is part of the figure, about 0.1 ns/frame).
        // Before: the per-frame loop; after: the idle fast path, and ring indices without `%`.
        let quiet = AudioBlock(channelCount: 2, capacity: n), loud = AudioBlock(channelCount: 2, capacity: n)
        for c in 0..<2 {
            BufferArena.fill(quiet.channel(c).baseAddress!, count: n, seed: UInt32(20 + c), in: -0.7...0.7)
            BufferArena.fill(loud.channel(c).baseAddress!, count: n, seed: UInt32(30 + c), in: -2...2)
        }
        for (what, input) in [("idle: input below the ceiling", quiet), ("active: input 6 dB over the ceiling", loud)] {
            let limiter = Limiter(channelCount: 2, sampleRate: rate, ceilingDb: -1, lookaheadMs: 5, releaseMs: 200)
            let reference = ReferenceLimiter(channelCount: 2, sampleRate: rate, ceilingDb: -1, lookaheadMs: 5, releaseMs: 200)
            compare("limiter", what, before: {
                for c in 0..<2 { Kernels.copy(input.channel(c).baseAddress!, to: block.channel(c).baseAddress!, count: n) }
                reference.process(block, count: n)
            }, after: {
                for c in 0..<2 { Kernels.copy(input.channel(c).baseAddress!, to: block.channel(c).baseAddress!, count: n) }
                limiter.process(block, count: n)
            })
        }

        // Sample-peak against true-peak detection (TruePeakDetector: 4x, 24 taps per phase), in alternation on
        // the same input; the ratio column is sample-peak time / true-peak time. Idle blocks of the quiet input
        // (samples up to -3 dBFS) are not quiet enough for the true-peak fast path (the filter's gain bound,
        // 2.29, puts it below -8.2 dBFS for a -1 dB ceiling), so they run the filter.
        for (what, input) in [("idle: input below the ceiling", quiet), ("active: input 6 dB over the ceiling", loud)] {
            let samplePeak = Limiter(channelCount: 2, sampleRate: rate, ceilingDb: -1, lookaheadMs: 5, releaseMs: 200)
            let truePeak = Limiter(channelCount: 2, sampleRate: rate, ceilingDb: -1, lookaheadMs: 5, releaseMs: 200,
                                   detection: .truePeak)
            let times = timing.alternate([{
                for c in 0..<2 { Kernels.copy(input.channel(c).baseAddress!, to: block.channel(c).baseAddress!, count: n) }
                samplePeak.process(block, count: n)
            }, {
                for c in 0..<2 { Kernels.copy(input.channel(c).baseAddress!, to: block.channel(c).baseAddress!, count: n) }
                truePeak.process(block, count: n)
            }])
            section.add(["limiter detection", what + ", sample peak"], figures(times[0]))
            var f = figures(times[1])
            f["speedUp"] = Spread(zip(times[0], times[1]).map { $0 / $1 })
            section.add(["limiter detection", what + ", true peak"], f)
        }
        let detector = TruePeakDetector(channelCount: 2)
        let peaks = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { peaks.deallocate() }
        add("true-peak detector", "TruePeakDetector.process alone, stereo (3 x 24 taps per channel and frame)") {
            detector.process(loud, count: n, peaks: peaks)
        }
        blackHole(peaks[n - 1])

        // The bus sum of the renderer: six tracks at constant gains (level x balance) into a cleared bus.
        let tracks = AudioBlock(channelCount: 12, capacity: n)
        for k in 0..<12 { BufferArena.fill(tracks.channel(k).baseAddress!, count: n, seed: UInt32(40 + k)) }
        let terms = UnsafeMutableBufferPointer<MixTerm>.allocate(capacity: 6)
        defer { terms.deallocate() }
        compare("bus sum", "6 tracks x constant gain, stereo (addScaled per track vs Kernels.mix)", before: {
            block.clear(count: n)
            for t in 0..<6 {
                for c in 0..<2 {
                    Kernels.addScaled(tracks.channel(2 * t + c).baseAddress!, by: 0.3 + 0.1 * Float(t), into: block.channel(c).baseAddress!, count: n)
                }
            }
        }, after: {
            block.clear(count: n)
            for c in 0..<2 {
                for t in 0..<6 { terms[t] = MixTerm(source: tracks.channel(2 * t + c).baseAddress!, gains: nil, scale: 0.3 + 0.1 * Float(t)) }
                Kernels.mix(UnsafeBufferPointer(terms), into: block.channel(c).baseAddress!, count: n)
            }
        })

        // Generators, meters and the writer's interleave.
        for color in [NoiseGenerator.Color.white, .pink] {
            let generator = NoiseGenerator(color: color, seed: 42, channelCount: 2)
            var position: Int64 = 0
            add("noise", "\(color.rawValue) noise generator") {
                try! generator.render(into: block, offset: 0, count: n, at: position)
                position += Int64(n)
            }
        }
        for waveform in ToneGenerator.Waveform.allCases {
            let tone = ToneGenerator(waveform: waveform, frequencyHz: 200, sampleRate: 48000, amplitude: 0.2, channelCount: 2)
            var position: Int64 = 0
            add("tone", "\(waveform.rawValue) tone generator, stereo (each sample from its position)") {
                try! tone.render(into: block, offset: 0, count: n, at: position)
                position += Int64(n)
            }
        }
        let brown = NoiseGenerator(color: .brown, seed: 42, channelCount: 2)
        let referenceBrown = ReferenceNoise(color: .brown, seed: 42, channelCount: 2)
        var brownPosition: Int64 = 0
        compare("noise", "brown noise generator (channels one after the other vs side by side)", before: {
            referenceBrown.generate(into: block, count: n)
        }, after: {
            try! brown.render(into: block, offset: 0, count: n, at: brownPosition)
            brownPosition += Int64(n)
        })
        for c in 0..<2 { BufferArena.fill(block.channel(c).baseAddress!, count: n, seed: UInt32(c + 1)) }
        compare("meters", "peak + sum of squares, stereo (scalar, one channel at a time vs SIMD peak, paired sums)", before: {
            blackHole(ReferenceKernels.meters(l, r, count: n))
        }, after: {
            blackHole(max(Kernels.peak(l, count: n), Kernels.peak(r, count: n)))
            blackHole(Kernels.sumOfSquares(l, r, count: n))
        })
        let interleaved = UnsafeMutablePointer<Float>.allocate(capacity: 2 * n)
        defer { interleaved.deallocate() }
        add("interleave", "Kernels.interleave, stereo (the writer's copy)") {
            Kernels.interleave(block, count: n, into: interleaved)
        }
        blackHole(block.channel(0)[0] + interleaved[1])
        section.notes = [
            "before rows run the code this bench replaced (Tests/Support/DSPTestSupport/Reference, the copies the tests "
                + "check the new code against), in alternation with the after rows. "
                + "The limiter's before keeps its statistics in internal properties: faster here than it was inside "
                + "MixDSP (about 30 ns/frame), where every frame paid seven dynamic exclusivity checks on public properties.",
            "envelope render: Envelope.render through a 10-minute segment; every value from its absolute frame position.",
            "limiter detection: the ratio column is sample-peak time / true-peak time (below 1: true peak is slower).",
        ]
        return [section]
    }
}
