import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// Binaural beats survive the lossy encoders: after encoding and decoding, each ear still has its own tone
/// (the left at carrier - beat/2, the right at carrier + beat/2), the beat between them is the one rendered,
/// and neither ear carries the other's tone. An encoder that merged the channels (intensity or point stereo)
/// would leave both ears one tone and no beat.
@Suite struct BinauralEncodingTests {
    static let rate = 48_000
    static let carrier = 250.0, beat = 6.0

    /// Ten seconds of a 250 Hz carrier with a 6 Hz beat over a pink bed 6 dB below it: the bed makes the
    /// encoder spend its bits as on a real session, where the tones sit under a sound bed.
    static func render(_ folder: TemporaryFolder, to name: String, _ extra: [String] = []) throws -> (left: [Float], right: [Float]) {
        let preset = try folder.write("beats.json", """
            { "duration": 10, "tracks": [
                { "binaural": { "carrierHz": \(carrier), "schedule": [ { "at": 0, "beatHz": \(beat) } ] }, "gainDb": -6 },
                { "generator": { "type": "pink", "seed": 11 }, "gainDb": -12 } ] }
            """)
        let r = try CLI.run([preset, "-o", folder.path(name), "-q"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let reader = try AudioFile.open(path: folder.path(name))
        let samples = try readAll(reader)
        return (stride(from: 0, to: samples.count, by: 2).map { samples[$0] }, stride(from: 1, to: samples.count, by: 2).map { samples[$0] })
    }

    /// The frequency of the tone near `nominal` in `x`: the phase of 0.1 s blocks demodulated at `nominal`
    /// advances by 2 pi (f - nominal) 0.1 per block; a least-squares slope over the unwrapped phases gives f.
    static func toneFrequency(_ x: [Float], near nominal: Double) -> Double {
        let block = rate / 10
        var phases: [Double] = []
        for start in stride(from: rate, to: x.count - block - rate, by: block) {   // a second in from each end
            var re = 0.0, im = 0.0
            for n in start..<(start + block) {
                let w = 2 * Double.pi * nominal * Double(n) / Double(rate)
                re += Double(x[n]) * cos(w); im -= Double(x[n]) * sin(w)
            }
            var phase = atan2(im, re)
            if let last = phases.last { while phase - last > .pi { phase -= 2 * .pi }; while phase - last < -.pi { phase += 2 * .pi } }
            phases.append(phase)
        }
        let n = Double(phases.count), mean = (n - 1) / 2, meanPhase = phases.reduce(0, +) / n
        let slope = zip(phases.indices, phases).reduce(0.0) { $0 + (Double($1.0) - mean) * ($1.1 - meanPhase) }
            / phases.indices.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) }
        return nominal + slope / (2 * Double.pi * 0.1)
    }

    /// The amplitude of the component at exactly `frequency` over the middle eight seconds (a single-bin DFT
    /// with a Hann window; the two tones are 6 Hz apart, 48 bins of 0.125 Hz).
    static func amplitude(_ x: [Float], at frequency: Double) -> Double {
        let range = rate..<(9 * rate)
        var re = 0.0, im = 0.0, windowSum = 0.0
        for n in range {
            let h = 0.5 - 0.5 * cos(2 * Double.pi * Double(n - range.lowerBound) / Double(range.count))
            let w = 2 * Double.pi * frequency * Double(n) / Double(rate)
            re += h * Double(x[n]) * cos(w); im -= h * Double(x[n]) * sin(w)
            windowSum += h
        }
        return 2 * (re * re + im * im).squareRoot() / windowSum
    }

    struct Setting: Sendable, CustomStringConvertible {
        var file: String
        var options: [String]
        var description: String { "\(file) \(options.joined(separator: " "))" }
    }

    /// The defaults, and each lossy format's lowest setting a sleep app might choose.
    static let settings = [
        Setting(file: "b.ogg", options: []), Setting(file: "b.ogg", options: ["--quality", "0"]),
        Setting(file: "b.opus", options: []), Setting(file: "b.opus", options: ["--bitrate", "32"]),
        Setting(file: "b.mp3", options: []), Setting(file: "b.mp3", options: ["--bitrate", "64"]),
        Setting(file: "b.m4a", options: []), Setting(file: "b.m4a", options: ["--bitrate", "32"]),
        Setting(file: "b.wav", options: []),
    ]

    @Test(arguments: settings)
    func eachEarKeepsItsTone(_ setting: Setting) throws {
        let s = try TemporaryFolder()
        let (left, right) = try Self.render(s, to: setting.file, setting.options)
        let fLeft = Self.toneFrequency(left, near: Self.carrier - Self.beat / 2)
        let fRight = Self.toneFrequency(right, near: Self.carrier + Self.beat / 2)
        // Frequencies within 0.01 Hz, so the beat within 0.02 Hz.
        #expect(abs(fLeft - (Self.carrier - Self.beat / 2)) < 0.01, "\(setting): left ear at \(fLeft) Hz")
        #expect(abs(fRight - (Self.carrier + Self.beat / 2)) < 0.01, "\(setting): right ear at \(fRight) Hz")
        // Each ear's tone at least 30 dB above the other ear's tone in it (the bed's own level there is about
        // 50 dB down): channels kept apart.
        let ownLeft = Self.amplitude(left, at: Self.carrier - Self.beat / 2), leakLeft = Self.amplitude(left, at: Self.carrier + Self.beat / 2)
        let ownRight = Self.amplitude(right, at: Self.carrier + Self.beat / 2), leakRight = Self.amplitude(right, at: Self.carrier - Self.beat / 2)
        #expect(dB(ownLeft / leakLeft) > 30, "\(setting): left ear holds the right's tone \(dB(ownLeft / leakLeft)) dB down")
        #expect(dB(ownRight / leakRight) > 30, "\(setting): right ear holds the left's tone \(dB(ownRight / leakRight)) dB down")
        // And the tone keeps its level (-6 dB gain on the binaural kind's own level, the same in both ears) within 1 dB.
        #expect(abs(dB(ownLeft / ownRight)) < 1, "\(setting): left \(ownLeft), right \(ownRight)")
    }

    /// Below 32 kbit/s libopus merges the channels of a stereo stream (at 24 each ear held both tones): a render
    /// with binaural beats is refused there, by bitrate or by quality, with nothing written.
    @Test func opusTooLowForBinauralBeatsIsRefused() throws {
        let s = try TemporaryFolder()
        for options in [["--bitrate", "24"], ["--quality", "0.2"]] {
            let preset = try s.write("beats.json", #"{ "duration": 2, "tracks": [ { "binaural": { "carrierHz": 250, "schedule": [ { "at": 0, "beatHz": 6 } ] } } ] }"#)
            let r = try CLI.run([preset, "-o", s.path("low.opus")] + options)
            #expect(r.status == 1 && r.stderr == "Error: cannot write '\(s.path("low.opus"))': the render has binaural beats, which need each ear its own tone, and Ogg Opus below 32 kbit/s merges the channels (measured: at 24 kbit/s both ears get both tones); use 32 kbit/s or more\n", "\(options): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: s.path("low.opus")))
        }
        // Without beats the same bitrate is fine.
        let plain = try s.write("plain.json", #"{ "duration": 2, "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        #expect(try CLI.run([plain, "-o", s.path("plain.opus"), "--bitrate", "24", "-q"]).status == 0)
    }
}
