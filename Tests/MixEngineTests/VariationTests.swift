import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// Issue 13's natural variation, preset to audio: `drift` on any track, the `events` kind, the
/// `resequence` kind. All material is made here from formulas with fixed seeds; tolerances are stated.
@Suite struct VariationTests {
    /// Seeded noise in [-1, 1) for test material.
    static func noise(_ seed: UInt64, _ n: Int) -> Double { SeededRandom.unit(seed: seed, stream: 99, index: UInt64(n)) * 2 - 1 }

    static func plan(_ json: String, in folder: TemporaryFolder) throws -> RenderPlan {
        try RenderJob(presetPath: try folder.preset(json)).plan
    }

    static func render(_ json: String, in folder: TemporaryFolder, range: Range<Int64>? = nil, blockFrames: Int = 4096) throws -> [[Float]] {
        let (capture, _, _) = try renderToMemory(try folder.preset(json), blockFrames: blockFrames, range: range)
        return capture.channels
    }

    static func expectError(_ json: String, in folder: TemporaryFolder, _ fragment: String) {
        do {
            _ = try plan(json, in: folder)
            Issue.record("no error; expected one containing \(fragment)")
        } catch {
            #expect("\(error)".contains(fragment), "\(error)")
        }
    }

    // MARK: - Drift

    @Test func driftStaysInItsBandAndNeverMovesFasterThanItsTimeScaleAllows() throws {
        let folder = try TemporaryFolder()
        let plan = try Self.plan("""
            { "duration": "30m", "output": { "sampleRate": 8000, "channels": 1 },
              "tracks": [ { "generator": { "type": "pink", "seed": 1 }, "gainDb": -10,
                            "drift": { "gainDb": 6, "timeScale": "20s", "seed": 9 } } ] }
            """, in: folder)
        let envelope = try #require(plan.tracks[0].gains.envelopes.last)
        let n = Int(plan.frameCount)
        var values = [Float](repeating: 0, count: n)
        values.withUnsafeMutableBufferPointer { v in
            if let c = envelope.render(into: v.baseAddress!, count: n, at: 0) { for i in 0..<n { v[i] = c } }
        }
        let (lo, hi) = (Float(gain(fromDecibels: -3)), Float(gain(fromDecibels: 3)))
        let bound = Drift.maximumSlope(range: Double(hi - lo), spacing: 20 * 8000)
        var steepest = 0.0
        for i in 1..<n { steepest = max(steepest, Double(abs(values[i] - values[i - 1]))) }
        // Float rounding of values near 1 adds up to 1.2e-7 per step.
        #expect(steepest <= bound * 1.001 + 2.4e-7, "steepest step \(steepest), bound \(bound)")
        #expect(values.min()! >= lo * (1 - 1e-6) && values.max()! <= hi * (1 + 1e-6), "\(values.min()!)...\(values.max()!)")
        // It moves: over 90 random points it covers most of its band.
        #expect(dB(Double(values.max()!)) - dB(Double(values.min()!)) > 4.5)
        // The same seed gives the same drift; another seed another.
        let again = try Self.plan(try String(contentsOfFile: folder.path("preset.json"), encoding: .utf8), in: folder)
        #expect(again.tracks[0].gains.envelopes.last == envelope)
    }

    @Test func panDriftStaysWithinItsRangeAndAPartialRenderIsTheSliceOfTheFullOne() throws {
        let folder = try TemporaryFolder()
        let json = """
            { "duration": "4m", "output": { "sampleRate": 8000, "channels": 2, "bitDepth": "float" },
              "tracks": [ { "tone": { "frequencyHz": 200 }, "pan": 0.2,
                            "drift": { "gainDb": 0, "timeScale": "10s", "pan": 0.5, "seed": 4 } } ] }
            """
        let full = try Self.render(json, in: folder)
        // Pan within 0.2 +- 0.5: one side at unity, the other at least cos(0.7 pi/2) = 0.454; the right one
        // (pan as far as -0.3) at least cos(0.3 pi/2) = 0.891. Measured per 0.1 s (20 cycles).
        var leftMin = 1.0, rightMin = 1.0, ratios: [Double] = []
        for w in stride(from: 0, to: full[0].count - 800, by: 800) {
            let l = rms(full[0][w..<(w + 800)]), r = rms(full[1][w..<(w + 800)])
            let top = max(l, r)
            leftMin = min(leftMin, l / top); rightMin = min(rightMin, r / top)
            ratios.append(l / r)
        }
        #expect(leftMin >= 0.454 - 0.002 && rightMin >= 0.891 - 0.002, "left \(leftMin), right \(rightMin)")
        #expect(Set(ratios.map { ($0 * 20).rounded() }).count > 5, "the pan moves")
        let part = try Self.render(json, in: folder, range: 700_001..<1_300_000, blockFrames: 1000)
        for c in 0..<2 { #expect(Array(full[c][700_001..<1_300_000]) == part[c]) }
    }

    @Test func driftErrorsNameTheirPath() throws {
        let folder = try TemporaryFolder()
        Self.expectError(#"{"duration": 60, "tracks": [{"generator": {"type": "pink"}, "drift": {"timeScale": "2s"}}]}"#,
                         in: folder, "tracks[0].drift.timeScale: 2s is outside 10s...1h")
        Self.expectError(#"{"duration": 60, "tracks": [{"generator": {"type": "pink"}, "drift": {"gainDb": 40}}]}"#,
                         in: folder, "tracks[0].drift.gainDb")
        Self.expectError(#"{"duration": 60, "tracks": [{"generator": {"type": "pink"}, "drift": {"speed": 1}}]}"#,
                         in: folder, "tracks[0].drift: unknown key 'speed' (did you mean 'seed'?)")
    }

    // MARK: - Events

    /// Three one-shots at 8 kHz: decaying sine bursts of 0.5, 1 and 2 s starting at full height.
    static func oneShots(_ folder: TemporaryFolder) throws -> [String] {
        try [(0.5, 500.0), (1.0, 700.0), (2.0, 300.0)].enumerated().map { k, shot in
            try folder.wav("shot\(k).wav", rate: 8000, frames: Int(shot.0 * 8000)) { i, _ in
                Float(0.5 * cos(2 * Double.pi * shot.1 * Double(i) / 8000) * exp(-3 * Double(i) / (shot.0 * 8000)))
            }
        }
    }

    static func events(_ plan: RenderPlan) throws -> [TimelineEvent] {
        guard let events = (plan.timeline.notes.first?.note as? EventsNote)?.events else { throw EngineError.preset(PresetError(file: "", jsonPath: "", message: "no events")) }
        return events
    }

    @Test func eventCountsGainsAndPansStayWithinTheirRanges() throws {
        let folder = try TemporaryFolder()
        let files = try Self.oneShots(folder)
        let plan = try Self.plan("""
            { "duration": "8h", "output": { "sampleRate": 8000, "channels": 2 },
              "tracks": [ { "events": { "files": ["\(files[0])", "\(files[1])", "\(files[2])"], "interval": ["20s", "60s"],
                            "gainDb": [-12, -3], "pan": [-0.8, 0.8], "seed": 3 } } ] }
            """, in: folder)
        let events = try Self.events(plan)
        // 8 h of gaps between 20 s and 60 s: between 480 and 1440 events; 720 expected (mean gap 40 s).
        print("events over 8 h with gaps of 20 s to 60 s: \(events.count) (720 expected, 480 to 1440 possible)")
        #expect(events.count >= 480 && events.count <= 1440, "\(events.count) events")
        #expect(abs(events.count - 720) < 720 / 10, "\(events.count) events, 720 expected")
        #expect(plan.tracks[0].events.count == events.count)
        for (k, e) in events.enumerated() {
            #expect(e.gainDb >= -12 && e.gainDb <= -3 && e.pan >= -0.8 && e.pan <= 0.8)
            let event = plan.tracks[0].events[k]
            #expect(event.start == e.start && abs(dB(Double(event.gains.constant)) - e.gainDb) < 1e-4)
            if k > 0 {
                let gap = e.start - events[k - 1].start
                #expect(gap >= 20 * 8000 && gap <= 60 * 8000 + 1)
                #expect(e.start >= events[k - 1].end, "events do not overlap")
            }
        }
        // Draws spread over their ranges, and over the files.
        #expect(events.map(\.gainDb).min()! < -11 && events.map(\.gainDb).max()! > -4)
        #expect(events.map(\.pan).min()! < -0.7 && events.map(\.pan).max()! > 0.7)
        #expect(Set(events.map(\.file)) == ["shot0.wav", "shot1.wav", "shot2.wav"])
        #expect(TimelineJSON.document(plan.timeline).contains("\"type\": \"events\""))
    }

    @Test func eachEventLandsAtTheFrameTheTimelineGivesWithItsGainAndPan() throws {
        let folder = try TemporaryFolder()
        let files = try Self.oneShots(folder)
        let json = """
            { "duration": "5m", "output": { "sampleRate": 8000, "channels": 2, "bitDepth": "float" },
              "tracks": [ { "events": { "files": ["\(files[0])", "\(files[1])", "\(files[2])"], "interval": ["3s", "9s"],
                            "gainDb": [-12, 0], "pan": [-1, 1], "seed": 11 } } ] }
            """
        let plan = try Self.plan(json, in: folder)
        let events = try Self.events(plan)
        let out = try Self.render(json, in: folder)
        #expect(events.count >= 300 / 9 && events.count <= 300 / 3)
        for e in events {
            let s = Int(e.start)
            // Silent just before (the previous event ended before it started), sounding at its frame.
            #expect(out[0][s - 1] == 0 && out[1][s - 1] == 0, "before \(s)")
            let g = gain(fromDecibels: e.gainDb) * 0.5
            let balance = balanceGains(pan: e.pan, channelCount: 2)
            for c in 0..<2 {
                // The first sample is 0.5 x gain x balance (the limiter never acts at these levels: 1e-6).
                #expect(abs(Double(out[c][s]) - g * Double(balance[c])) < 1e-6, "event at \(s), channel \(c)")
            }
        }
        let part = try Self.render(json, in: folder, range: 1_000_003..<1_900_000, blockFrames: 777)
        for c in 0..<2 { #expect(Array(out[c][1_000_003..<1_900_000]) == part[c]) }
    }

    @Test func eventErrorsNameTheirPath() throws {
        let folder = try TemporaryFolder()
        let files = try Self.oneShots(folder)
        Self.expectError(#"{"duration": 60, "tracks": [{"events": {"files": ["\#(files[0])"], "interval": ["9s", "3s"]}}]}"#,
                         in: folder, "tracks[0].events.interval: [9s, 3s] is not [shortest, longest]")
        Self.expectError(#"{"duration": 60, "tracks": [{"events": {"files": ["\#(files[0])"], "interval": "0.1s"}}]}"#,
                         in: folder, "tracks[0].events.interval")
        Self.expectError(#"{"duration": 60, "tracks": [{"events": {"files": []}}]}"#, in: folder, "tracks[0].events.files")
        Self.expectError(#"{"duration": 60, "tracks": [{"events": {"files": ["\#(files[0])"], "interval": "1s", "pan": [0, 2]}}]}"#,
                         in: folder, "tracks[0].events.pan")
        Self.expectError(#"{"duration": 60, "tracks": [{"events": {"files": ["\#(files[0])"], "interval": "1s"}, "loop": true}]}"#,
                         in: folder, "tracks[0].loop")
        Self.expectError(#"{"duration": "100h", "tracks": [{"events": {"files": ["\#(files[0])"], "interval": "0.5s", "overlap": true}}]}"#,
                         in: folder, "tracks[0].events.interval: the track's events would number more than 100000")
    }

    // MARK: - Re-sequencing

    /// Two minutes of rain-like material at 8 kHz: low-passed seeded noise under a slow, irregular swell
    /// (so its envelope has a shape a loop repeats), returned with its path and its largest step.
    static func recording(_ folder: TemporaryFolder, seconds: Int = 120) throws -> (path: String, samples: [Float], maxStep: Float) {
        let n = seconds * 8000
        var samples = [Float](repeating: 0, count: n)
        var y = 0.0
        for i in 0..<n {
            y += 0.2 * (noise(5, i) - y)                                   // one-pole low-pass
            let t = Double(i) / 8000
            let swell = 1 + 0.5 * sin(0.37 * t) + 0.3 * sin(1.13 * t + 1) + 0.2 * sin(2.9 * t + 2)
            samples[i] = Float(0.4 * y * swell)
        }
        let path = try folder.wav("rain.wav", rate: 8000, frames: n) { i, _ in samples[i] }
        var maxStep: Float = 0
        for i in 1..<n { maxStep = max(maxStep, abs(samples[i] - samples[i - 1])) }
        return (path, samples, maxStep)
    }

    static func resequencePreset(_ path: String, duration: String, crossfade: String = "\"1s\"", extra: String = "") -> String {
        """
        { "duration": "\(duration)", "output": { "sampleRate": 8000, "channels": 1, "bitDepth": "float" },
          "tracks": [ { "resequence": { "file": "\(path)", "segment": ["10s", "20s"], "crossfade": \(crossfade), "seed": 7\(extra) } } ] }
        """
    }

    /// Normalised correlation of x with itself `lag` later.
    static func correlation(_ x: [Float], lag: Int) -> Double {
        var dot = 0.0, a = 0.0, b = 0.0
        x.withUnsafeBufferPointer { x in
            for i in 0..<(x.count - lag) {
                let (u, v) = (Double(x[i]), Double(x[i + lag]))
                dot += u * v; a += u * u; b += v * v
            }
        }
        return dot / (a * b).squareRoot()
    }

    /// RMS per 0.1 s (800 frames), less its mean: the decimated envelope whose autocorrelation shows a period.
    static func envelope(_ x: [Float]) -> [Float] {
        let e = stride(from: 0, to: x.count - 799, by: 800).map { Float(rms(x[$0..<($0 + 800)])) }
        let mean = e.reduce(0, +) / Float(e.count)
        return e.map { $0 - mean }
    }

    /// An hour (at 8 kHz, mono): the period a loop has is the source's length, and the autocorrelations must see it
    /// repeat many times over to tell a loop from a resequenced track.
    @Test func anHourOfResequencedAudioHasNoPeriodWhereALoopHasOne() throws {
        let folder = try TemporaryFolder()
        let source = try Self.recording(folder)
        let resequenced = try Self.render(Self.resequencePreset(source.path, duration: "1h"), in: folder)[0]
        let looped = try Self.render("""
            { "duration": "1h", "output": { "sampleRate": 8000, "channels": 1, "bitDepth": "float" },
              "tracks": [ { "file": "\(source.path)", "loop": { "crossfade": 0 } } ] }
            """, in: folder)[0]
        let period = source.samples.count
        let loopSample = Self.correlation(looped, lag: period), reseqSample = Self.correlation(resequenced, lag: period)
        // The envelope's autocorrelation at the source's length (1200 points of 0.1 s), and the highest around it.
        let (loopEnv, reseqEnv) = (Self.envelope(looped), Self.envelope(resequenced))
        let loopPeak = Self.correlation(loopEnv, lag: period / 800)
        let reseqPeak = (period / 800 - 50...period / 800 + 50).map { Self.correlation(reseqEnv, lag: $0) }.max()!
        print("autocorrelation at the source's length: samples loop \(loopSample), resequenced \(reseqSample); envelope loop \(loopPeak), resequenced (max within +-5 s) \(reseqPeak)")
        #expect(loopSample > 0.99 && loopPeak > 0.99)
        #expect(abs(reseqSample) < 0.05, "\(reseqSample)")
        #expect(reseqPeak < 0.3, "\(reseqPeak)")
    }

    @Test func noJoinStepsFurtherThanTheMaterialAndNoSegmentRepeatsTheOneBefore() throws {
        let folder = try TemporaryFolder()
        let source = try Self.recording(folder)
        // An equal-gain crossfade's gains sum to 1, so a join's step is a weighted mean of the two segments'
        // steps (plus the gains' own change, < 1e-4 here): never above the material's. Equal power keeps
        // unrelated material's level but its gains sum to up to sqrt 2 in the middle: its bound is that
        // (measured: 1.12 x, over 1.9 million mixed samples against the material's 960,000).
        for (curve, factor) in [("equalGain", 1.0), ("equalPower", 2.0.squareRoot())] {
            let json = Self.resequencePreset(source.path, duration: "20m", crossfade: #"{"duration": "1s", "curve": "\#(curve)"}"#)
            let plan = try Self.plan(json, in: folder)
            let events = plan.tracks[0].events
            #expect(events.count >= 20 * 60 / 20 && events.count <= 20 * 60 / 10 + 1)
            let out = try Self.render(json, in: folder)[0]
            var worst: Float = 0
            for (k, v) in events.enumerated() where k > 0 {
                #expect(abs(v.sourceOffset - events[k - 1].sourceOffset) >= 10 * 8000, "segment \(k) repeats the one before")
                #expect(v.start == events[k - 1].end - 8000, "segment \(k) crossfades 1 s into the one before")
                let lo = Int(v.start), hi = min(Int(v.start) + 8001, out.count)
                for i in lo..<hi { worst = max(worst, abs(out[i] - out[i - 1])) }
            }
            print("\(curve): largest step in a join \(worst), in the material \(source.maxStep)")
            #expect(worst <= source.maxStep * Float(factor), "\(curve): a join steps \(worst); the material at most \(source.maxStep)")
            // Outside the joins it plays the material itself: the first segment's first second.
            let first = Int(events[0].sourceOffset)
            #expect(Array(out[0..<8000]) == Array(source.samples[first..<(first + 8000)]))
        }
        let part = try Self.render(Self.resequencePreset(source.path, duration: "20m"), in: folder, range: 4_000_001..<6_000_000, blockFrames: 999)
        let full = try Self.render(Self.resequencePreset(source.path, duration: "20m"), in: folder)
        #expect(Array(full[0][4_000_001..<6_000_000]) == part[0])
    }

    @Test func resequenceErrorsNameTheirPath() throws {
        let folder = try TemporaryFolder()
        let short = try folder.wav("short.wav", rate: 8000, frames: 30 * 8000) { i, _ in Float(Self.noise(1, i) * 0.1) }
        Self.expectError(Self.resequencePreset(short, duration: "1h"), in: folder,
                         "tracks[0].resequence.file: 30.0 s to take segments from")
        Self.expectError(Self.resequencePreset(short, duration: "1h", crossfade: "\"12s\""), in: folder,
                         "tracks[0].resequence.crossfade: the crossfade (12s) must be shorter than the shortest segment (10s)")
        Self.expectError(Self.resequencePreset(short, duration: "1h", extra: #", "region": ["0:05", "0:50"]"#), in: folder,
                         "tracks[0].resequence.region: ends at 50s, after the end of the file")
        Self.expectError(#"{"duration": 60, "tracks": [{"resequence": {"file": "\#(short)", "segment": ["20s", "10s"]}}]}"#, in: folder,
                         "tracks[0].resequence.segment: [20s, 10s] is not [shortest, longest]")
    }
}
