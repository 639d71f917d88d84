import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import Testing

/// The minimal compliance tests of EBU Tech 3341 ("EBU Mode" meters: momentary, short-term and integrated
/// loudness, true peak) and Tech 3342 (loudness range), generated in code from their definitions (tones, levels,
/// durations and phases; Tech 3341 v4 and 3342 v4, 2023), at 48 kHz and at 44.1, 32, 22.05 and 11.025 kHz, against
/// both of mixrender's meters: `LoudnessMeter` (libebur128, what `mixrender loudness` and the decoded-file checks
/// measure with) and `LoudnessTap` (`GatedLoudness` and `TruePeakDetector`, what a render measures itself with).
///
/// Tolerances are the documents': ±0.1 LU for momentary, short-term and integrated loudness, +0.2/-0.4 dB for the
/// true peak, ±1 LU for the loudness range. Left out: Tech 3341's cases 7 and 8 and Tech 3342's 5 and 6, which are
/// recordings (authentic programme) and exist only as the EBU's files; and Tech 3341's 20 to 23 (a burst synthesised
/// at four times the rate, low-passed by a filter the document does not give and downsampled at four offsets),
/// which cannot be made as the EBU made them.
///
/// Each test asserts that every case passes except the ones `knownFailures` lists, and that those fail: a meter that
/// gets better or worse shows here. `docs/loudness-compliance.md` gives the same table.
@Suite struct EBUComplianceTests {
    static let rates = [48_000, 44_100, 32_000, 22_050, 11_025]

    enum Meter: String, CaseIterable, CustomTestStringConvertible {
        case file, render
        var testDescription: String { rawValue }
    }

    /// One meter fed block by block: its running maxima, and its measurement once the signal ends.
    final class Probe {
        let file: LoudnessMeter?
        let tap: LoudnessTap?
        let block: AudioBlock
        let interleaved: UnsafeMutablePointer<Float>
        let channels: Int
        init(_ meter: Meter, channels: Int, rate: Int) throws {
            self.channels = channels
            file = meter == .file ? try LoudnessMeter(channelCount: channels, sampleRate: rate) : nil
            tap = meter == .render ? LoudnessTap(channelCount: channels, sampleRate: rate) : nil
            block = AudioBlock(channelCount: channels, capacity: 4096)
            interleaved = .allocate(capacity: 4096 * channels)
        }
        deinit { interleaved.deallocate() }
        func add(count: Int) throws {
            if let file {
                Kernels.interleave(block, count: count, into: interleaved)
                try file.add(interleaved: interleaved, frames: count)
            } else {
                try tap!.receive(block, offset: 0, count: count, at: 0)
            }
        }
        var maxima: (momentary: Double, shortTerm: Double) {
            if let file { return file.maximaSoFar }
            let m = tap!.measurement
            return (m.momentaryMax, m.shortTermMax)
        }
        func finish() throws -> LoudnessMeasurement {
            if let file { return file.measurement }
            try tap!.finish()
            return tap!.measurement
        }
    }

    /// A stretch of a test signal: a sine at `frequency` Hz (phase continuous from one stretch to the next) at a
    /// peak level per channel in dBFS (nil: silence), for `seconds`.
    struct Stretch { var seconds: Double; var dBFS: [Double?] }

    /// Feeds `stretches` (each channel's sine with phase `phase` radians) to a new probe; `afterStretch` runs at the
    /// end of each stretch, with the probe.
    /// `taper`: seconds of linear fade at the start and the end (the true-peak signals are "tapered": an abrupt edge
    /// rings between samples, over the sine's own peak).
    static func run(_ meter: Meter, rate: Int, frequency: Double, phase: Double = 0, channels: Int = 2, taper: Double = 0,
                    _ stretches: [Stretch], afterStretch: (Int, Probe) -> Void = { _, _ in }) throws -> LoudnessMeasurement {
        let probe = try Probe(meter, channels: channels, rate: rate)
        let total = Int((stretches.map(\.seconds).reduce(0, +) * Double(rate)).rounded())
        let fade = max(1, Int(taper * Double(rate)))
        func envelope(_ frame: Int) -> Float { taper == 0 ? 1 : Float(min(1, Double(min(frame, total - 1 - frame)) / Double(fade))) }
        var frame = 0
        for (index, stretch) in stretches.enumerated() {
            let end = frame + Int((stretch.seconds * Double(rate)).rounded())
            let amplitudes = (0..<channels).map { c -> Float in
                let level = stretch.dBFS.count == 1 ? stretch.dBFS[0] : stretch.dBFS[c]
                return level.map { Float(gain(fromDecibels: $0)) } ?? 0
            }
            while frame < end {
                let count = min(4096, end - frame)
                for c in 0..<channels {
                    let out = probe.block.channel(c).baseAddress!, a = amplitudes[c]
                    for i in 0..<count {
                        out[i] = a * envelope(frame + i) * Float(sin(2 * Double.pi * frequency * Double(frame + i) / Double(rate) + phase))
                    }
                }
                try probe.add(count: count)
                frame += count
            }
            afterStretch(index, probe)
        }
        return try probe.finish()
    }

    /// A case's name and whether it passed, with what was read.
    struct Outcome { var name: String; var passed: Bool; var reading: String }

    static func within(_ value: Double, _ expected: Double, _ tolerance: Double) -> Bool { abs(value - expected) <= tolerance + 1e-9 }

    /// Every Tech 3341 loudness case (1-6, 9-14) on `meter` at `rate`.
    static func loudnessCases(_ meter: Meter, rate: Int) throws -> [Outcome] {
        var outcomes: [Outcome] = []
        func s(_ seconds: Double, _ dBFS: Double?) -> Stretch { Stretch(seconds: seconds, dBFS: [dBFS]) }
        func add(_ name: String, _ value: Double, _ expected: Double) {
            outcomes.append(Outcome(name: name, passed: within(value, expected, 0.1), reading: String(format: "%.2f", value)))
        }
        for (n, level) in [(1, -23.0), (2, -33.0)] {
            let m = try run(meter, rate: rate, frequency: 1000, [s(20, level)])
            add("3341-\(n) I", m.integrated, level); add("3341-\(n) M", m.momentaryMax, level); add("3341-\(n) S", m.shortTermMax, level)
        }
        add("3341-3 I", try run(meter, rate: rate, frequency: 1000, [s(10, -36), s(60, -23), s(10, -36)]).integrated, -23)
        add("3341-4 I", try run(meter, rate: rate, frequency: 1000, [s(10, -72), s(10, -36), s(60, -23), s(10, -36), s(10, -72)]).integrated, -23)
        add("3341-5 I", try run(meter, rate: rate, frequency: 1000, [s(20, -26), s(20.1, -20), s(20, -26)]).integrated, -23)
        add("3341-6 I", try run(meter, rate: rate, frequency: 1000, channels: 5,
                                [Stretch(seconds: 20, dBFS: [-28, -28, -24, -30, -30])]).integrated, -23)
        // 9: short-term constant at -23 after 3 s; read as its maximum, and its minimum from 3 s on is the same
        // tone (a meter that swung would show a maximum over -23).
        let nine = try run(meter, rate: rate, frequency: 1000, (0..<5).flatMap { _ in [s(1.34, -20), s(1.66, -30)] })
        add("3341-9 S", nine.shortTermMax, -23)
        // 10 and 13: twenty signals each, the burst i steps later; each one's maximum.
        var worst10 = -23.0, worst13 = -23.0
        for i in 0..<20 {
            let ten = try run(meter, rate: rate, frequency: 1000, [s(Double(i) * 0.15, nil), s(3, -23), s(1, nil)]).shortTermMax
            if abs(ten + 23) > abs(worst10 + 23) { worst10 = ten }
            let thirteen = try run(meter, rate: rate, frequency: 1000, [s(Double(i) * 0.02, nil), s(0.4, -23), s(1, nil)]).momentaryMax
            if abs(thirteen + 23) > abs(worst13 + 23) { worst13 = thirteen }
        }
        add("3341-10 S", worst10, -23)
        add("3341-13 M", worst13, -23)
        // 11 and 14: one signal of twenty bursts, each louder by 1 dB; the maximum read after each.
        for (name, burst, gap, useMomentary) in [("3341-11 S", 3.0, 0.15, false), ("3341-14 M", 0.4, 0.02, true)] {
            var stretches: [Stretch] = []
            for i in 0..<20 {
                stretches += [s(Double(i) * gap, nil), s(burst, -38 + Double(i + 1)), s(burst - Double(i) * gap, nil)]
            }
            var readings: [Double] = []
            // Read just before the next burst starts (its leading silence is in): the resampler's delay is inside.
            _ = try run(meter, rate: rate, frequency: 1000, stretches) { index, probe in
                if index % 3 == 0 && index > 0 { readings.append(useMomentary ? probe.maxima.momentary : probe.maxima.shortTerm) }
            }
            let final = try run(meter, rate: rate, frequency: 1000, stretches)
            readings.append(useMomentary ? final.momentaryMax : final.shortTermMax)
            let errors = readings.enumerated().map { abs($0.element - (-38 + Double($0.offset + 1))) }
            let worst = errors.max() ?? .infinity
            outcomes.append(Outcome(name: name, passed: worst <= 0.1 + 1e-9 && readings.count == 20,
                                    reading: String(format: "worst %.2f LU off", worst)))
        }
        return outcomes
    }

    /// Tech 3341's true-peak cases 15-19: a sine at a fraction of the rate, its amplitude and phase.
    static func truePeakCases(_ meter: Meter, rate: Int) throws -> [Outcome] {
        let cases: [(Int, Double, Double, Double, Double)] = [   // case, fraction of fs, amplitude, phase (degrees), expected dBTP
            (15, 4, 0.5, 0, -6.0), (16, 4, 0.5, 45, -6.0), (17, 6, 0.5, 60, -6.0), (18, 8, 0.5, 67.5, -6.0), (19, 4, 1.41, 45, 3.0),
        ]
        return try cases.map { number, fraction, amplitude, degrees, expected in
            // Tapered with 100 ms fades, as the EBU's own files are (the document says 10 ms).
            let m = try run(meter, rate: rate, frequency: Double(rate) / fraction, phase: degrees * .pi / 180, taper: 0.1,
                            [Stretch(seconds: 3.2, dBFS: [decibels(fromGain: amplitude)])])
            let error = m.truePeak - expected
            return Outcome(name: "3341-\(number) TP", passed: error <= 0.2 + 1e-9 && error >= -0.4 - 1e-9,
                           reading: String(format: "%.2f", m.truePeak))
        }
    }

    /// Tech 3342's cases 1-4: 1 kHz in stretches of 20 s at these levels.
    static func rangeCases(_ meter: Meter, rate: Int) throws -> [Outcome] {
        let cases: [(Int, [Double], Double)] = [(1, [-20, -30], 10), (2, [-20, -15], 5), (3, [-40, -20], 20), (4, [-50, -35, -20, -35, -50], 15)]
        return try cases.map { number, levels, expected in
            let m = try run(meter, rate: rate, frequency: 1000, levels.map { Stretch(seconds: 20, dBFS: [$0]) })
            return Outcome(name: "3342-\(number) LRA", passed: within(m.range, expected, 1), reading: String(format: "%.2f", m.range))
        }
    }

    /// The cases each meter fails, by rate, with why (`docs/loudness-compliance.md`).
    /// None: both meters pass every case at every rate. (Before the momentary loudness was read every 10 ms, both
    /// failed 13 and 14; before the true-peak signals were tapered, every meter "failed" 17 and 18 on the ringing of
    /// an abrupt edge.)
    static let knownFailures: [Meter: [Int: Set<String>]] = [.render: [:], .file: [:]]

    /// The slowest test of the suite (about 90 s of the shard's time): the signals are the documents' own, at their
    /// lengths (the range cases alone are stretches of 20 s, up to five of them), for both meters at every rate.
    /// Shortening them would test something other than compliance.
    @Test(arguments: Meter.allCases, rates)
    func minimalComplianceCases(_ meter: Meter, _ rate: Int) throws {
        let outcomes = try Self.loudnessCases(meter, rate: rate) + Self.truePeakCases(meter, rate: rate) + Self.rangeCases(meter, rate: rate)
        let failed = Set(outcomes.filter { !$0.passed }.map(\.name))
        let expected = Self.knownFailures[meter]?[rate] ?? []
        let table = outcomes.map { "\($0.name): \($0.reading) \($0.passed ? "pass" : "FAIL")" }.joined(separator: "; ")
        #expect(failed == expected, "\(meter) at \(rate) Hz: \(table)")
        if ProcessInfo.processInfo.environment["MIXRENDER_PRINT_COMPLIANCE"] != nil { print("\(meter) \(rate): \(table)") }
    }
}
