import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import TestSupport
import Testing

/// The files: audiowaveform JSON and .dat, PNG and SVG images, zoom levels, the preview's pixels.
@Suite struct WaveformOutputTests {
    static let rate = 48_000

    static func plan(_ output: String?, channels: Int = 1, frames: Int, _ configure: (inout WaveformOptions) -> Void = { _ in })
        throws -> WaveformPlan {
        var options = WaveformOptions()
        configure(&options)
        return try WaveformPlan(output: output, options: options, sampleRate: rate, channelCount: channels,
                                frameCount: Int64(frames))
    }

    /// A 1 kHz sine of amplitude 0.5 has samples exactly ±0.5 in every 48-frame period: every column
    /// reads -16384, 16384 at 16 bits and -64, 64 at 8 bits (16384 / 256).
    @Test(arguments: [16, 8])
    func aSineOfKnownAmplitudeGivesExactPeaksInTheJSON(bits: Int) throws {
        let scratch = try TemporaryFolder()
        let path = scratch.path("sine.json")
        let frames = Self.rate
        let plan = try Self.plan(path, frames: frames) { $0.resolution = .samplesPerPixel([480]); $0.bits = bits }
        let recorder = try record(TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: Self.rate, frames: frames), plan: plan)
        #expect(try recorder.writeOutputs() == [path])
        let json = try readJSONObject(path)
        #expect(json["version"] as? Int == 2)
        #expect(json["channels"] as? Int == 1)
        #expect(json["sample_rate"] as? Int == Self.rate)
        #expect(json["samples_per_pixel"] as? Int == 480)
        #expect(json["bits"] as? Int == bits)
        #expect(json["length"] as? Int == 100)
        let data = ints(json["data"])
        #expect(data.count == 200)
        let full = bits == 16 ? 16384 : 64
        #expect(data == Array(repeating: [-full, full], count: 100).flatMap { $0 })
        // RMS: 0.5 / sqrt(2) = 0.35355 -> 11585 at 16 bits, 11585 / 256 = 45 at 8 bits.
        #expect(ints(json["rms"]) == Array(repeating: bits == 16 ? 11585 : 45, count: 100))
    }

    /// JSON written and read back agrees with the analysis, field by field, for a stereo file split into
    /// channels with a partial last column (and the columns spill to the temporary file: spp 7 gives
    /// 6858 columns, more than the store's in-memory chunk holds).
    @Test func jsonWrittenAndReadBackAgrees() throws {
        let scratch = try TemporaryFolder()
        let path = scratch.path("mix.json")
        let frames = 48_000
        let data = TestSignals.interleaved(channels: 2, frames: frames) { n, c in
            let t = Double(n) / Double(Self.rate)
            return c == 0 ? Float(0.6 * sin(2 * .pi * 200 * t)) : Float(0.3 * sin(2 * .pi * 5000 * t) * t)
        }
        let plan = try Self.plan(path, channels: 2, frames: frames) {
            $0.resolution = .samplesPerPixel([7]); $0.isSplittingChannels = true
        }
        let recorder = try record(data, plan: plan)
        try recorder.writeOutputs()
        let columns = try storedColumns(recorder.stores[0])
        #expect(columns.count == (frames + 6) / 7)
        let json = try readJSONObject(path)
        #expect(json["channels"] as? Int == 2)
        #expect(json["length"] as? Int == columns.count)
        let q = WaveformQuantizer(bits: 16)
        #expect(ints(json["data"]) == columns.flatMap { $0.levels.flatMap { [q.value($0.min), q.value($0.max)] } })
        #expect(ints(json["rms"]) == columns.flatMap { $0.levels.map { q.value($0.rms) } })
        let bands = try #require(json["bands"] as? [String: Any])
        #expect(bands["fft_size"] as? Int == 2048)
        #expect(bands["hop_size"] as? Int == 1024)
        #expect(bands["window"] as? String == "hann")
        #expect(ints(bands["edges_hz"]) == [250, 4000])
        #expect(ints(bands["low"]) == columns.map { q.value($0.bands.low) })
        #expect(ints(bands["mid"]) == columns.map { q.value($0.bands.mid) })
        #expect(ints(bands["high"]) == columns.map { q.value($0.bands.high) })
        #expect(ints(bands["centroid_hz"]) == columns.map { Int($0.bands.centroidHz.rounded()) })
        // Channel 0 peaks at 0.6 -> 19661.
        let values = ints(json["data"])
        #expect(stride(from: 1, to: values.count, by: 4).map { values[$0] }.max() == 19661)
    }

    /// The .dat file is audiowaveform's version 2 layout, with the same values as the JSON.
    @Test(arguments: [16, 8])
    func datFileHasAudiowaveformsLayout(bits: Int) throws {
        let scratch = try TemporaryFolder()
        let frames = 10_000
        let data = TestSignals.interleaved(channels: 2, frames: frames) { n, c in Float(c == 0 ? 0.5 : -0.25) * Float(n % 100) / 100 }
        func write(_ name: String) throws -> String {
            let path = scratch.path(name)
            let plan = try Self.plan(path, channels: 2, frames: frames) {
                $0.resolution = .samplesPerPixel([300]); $0.bits = bits; $0.isSplittingChannels = true
            }
            try record(data, plan: plan).writeOutputs()
            return path
        }
        let dat = try Data(contentsOf: URL(fileURLWithPath: write("w.dat")))
        let json = try readJSONObject(write("w.json"))
        func int32(_ at: Int) -> Int32 { dat[at..<at + 4].enumerated().reduce(0) { $0 | Int32($1.element) << (8 * $1.offset) } }
        #expect(int32(0) == 2)                      // version
        #expect(int32(4) == (bits == 8 ? 1 : 0))    // flags
        #expect(int32(8) == Int32(Self.rate))
        #expect(int32(12) == 300)
        #expect(int32(16) == 34)                    // ceil(10000 / 300)
        #expect(int32(20) == 2)                     // channels
        let values: [Int]
        if bits == 8 {
            values = dat[24...].map { Int(Int8(bitPattern: $0)) }
        } else {
            values = stride(from: 24, to: dat.count, by: 2).map { Int(Int16(bitPattern: UInt16(dat[$0]) | UInt16(dat[$0 + 1]) << 8)) }
        }
        #expect(dat.count == 24 + 34 * 2 * 2 * bits / 8)
        #expect(values == ints(json["data"]))
    }

    /// An image of a known input (silence, then a sine of amplitude 0.5) has the size asked for, drawn
    /// pixels where there is sound (half the height, around the middle) and only the centre line where
    /// there is silence.
    @Test func pngOfAKnownInputHasItsSizeAndDrawnPixelsWhereThereIsSound() throws {
        let scratch = try TemporaryFolder()
        let path = scratch.path("w.png")
        let frames = 96_000
        let plan = try Self.plan(path, frames: frames) { $0.resolution = .width(200); $0.style.height = 101 }
        let sine = TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: Self.rate)
        let recorder = try record(TestSignals.interleaved(channels: 1, frames: frames) { n, c in n < frames / 2 ? 0 : sine(n, c) }, plan: plan)
        try recorder.writeOutputs()
        let image = try PNGReader.read(path: path)
        #expect(image.width == 200 && image.height == 101)
        func drawnRows(_ x: Int) -> [Int] {
            (0..<image.height).filter { let p = image.pixel(x: x, y: $0); return !(p.r == 255 && p.g == 255 && p.b == 255) }
        }
        for x in [0, 50, 98] { #expect(drawnRows(x) == [50], "silent column \(x)") }
        // v is drawn at row (h - 1)(1 - v)/2: 0.5 -> 25, -0.5 -> 75.
        for x in [102, 150, 199] { #expect(drawnRows(x) == Array(25...75), "sounding column \(x)") }
        // Peak colour at the edge of the span, the lighter RMS colour (±0.354 -> rows 32...68) inside it.
        let style = WaveformImageStyle()
        let edge = image.pixel(x: 150, y: 26), inside = image.pixel(x: 150, y: 50)
        #expect((edge.r, edge.g, edge.b) == (style.color.red, style.color.green, style.color.blue))
        let rms = style.resolvedRMSColor
        #expect((inside.r, inside.g, inside.b) == (rms.red, rms.green, rms.blue))
        #expect(image.pixel(x: 150, y: 5).r == 255)
    }

    @Test func bandColoursFollowTheBands() throws {
        let scratch = try TemporaryFolder()
        let path = scratch.path("bands.png")
        let frames = 48_000
        let plan = try Self.plan(path, frames: frames) { $0.resolution = .width(100); $0.style.height = 50; $0.style.colorMode = .bands }
        let low = TestSignals.sine(frequency: 100, amplitude: 0.5, rate: Self.rate)
        let high = TestSignals.sine(frequency: 8000, amplitude: 0.5, rate: Self.rate)
        let recorder = try record(TestSignals.interleaved(channels: 1, frames: frames) { n, c in n < frames / 2 ? low(n, c) : high(n, c) }, plan: plan)
        try recorder.writeOutputs()
        let image = try PNGReader.read(path: path)
        // Peaks of ±0.5 (100 Hz) span rows 12...37 of 50, of ±0.433 (8 kHz, six samples a period) rows
        // 14...35, RMS rows 16...33: row 15 has the peak colour, the band colour itself: red for a low
        // column, blue for a high one.
        let l = image.pixel(x: 20, y: 15), h = image.pixel(x: 80, y: 15)
        #expect(l.r == 255 && l.b < 100 && l.g < 100, "\(l)")
        #expect(h.b == 255 && h.r < 100 && h.g < 100, "\(h)")
        // The default background in bands mode is near-black.
        #expect(image.pixel(x: 20, y: 0).r < 0x20)
    }

    @Test func svgHasItsSizeAndOneLinePerColumn() throws {
        let scratch = try TemporaryFolder()
        let path = scratch.path("w.svg")
        let frames = 48_000
        let plan = try Self.plan(path, channels: 2, frames: frames) {
            $0.resolution = .width(120); $0.style.height = 80; $0.isSplittingChannels = true
            $0.style.background = WaveformColor(parsing: "#102030")
        }
        try record(TestSignals.interleaved(channels: 2, frames: frames) { n, c in Float(c + 1) * 0.2 * Float(sin(Double(n) * 0.05)) }, plan: plan)
            .writeOutputs()
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"80\""))
        #expect(svg.contains("<rect width=\"120\" height=\"80\" fill=\"#102030\"/>"))
        // Peaks and RMS, two lanes, 120 columns: 480 line segments.
        #expect(svg.components(separatedBy: "M").count - 1 == 480)
        #expect(svg.hasSuffix("</svg>\n"))
    }

    @Test func severalZoomLevelsWriteOneFilePerLevel() throws {
        let scratch = try TemporaryFolder()
        let frames = 10_000
        let plan = try Self.plan(scratch.path("z.json"), frames: frames) { $0.resolution = .samplesPerPixel([256, 1024, 256, 64]) }
        #expect(plan.samplesPerPixel == [256, 1024, 64])
        let written = try record([Float](repeating: 0.25, count: frames), plan: plan).writeOutputs()
        #expect(written == [scratch.path("z.256.json"), scratch.path("z.1024.json"), scratch.path("z.64.json")])
        #expect(scratch.contents == ["z.1024.json", "z.256.json", "z.64.json"])
        for (name, spp) in [("z.256.json", 256), ("z.1024.json", 1024), ("z.64.json", 64)] {
            let json = try readJSONObject(scratch.path(name))
            #expect(json["samples_per_pixel"] as? Int == spp)
            #expect(json["length"] as? Int == (frames + spp - 1) / spp)
            #expect(Set(ints(json["data"])) == [8192])
        }
    }

    @Test func resolutionFromPixelsPerSecondOrWidth() throws {
        let byRate = try Self.plan(nil, frames: 480_000) { $0.resolution = .width(33) }
        #expect(byRate.samplesPerPixel == [14546])        // ceil(480000 / 33)
        let pps = try Self.plan("x.json", frames: 480_000) { $0.resolution = .pixelsPerSecond([100, 7]) }
        #expect(pps.samplesPerPixel == [480, 6857])       // 48000 / pps, integer division
        #expect(pps.destinations == ["x.480.json", "x.6857.json"])
        let image = try Self.plan("x.png", frames: 480_000)
        #expect(image.width == 1200 && image.samplesPerPixel == [400])
        let data = try Self.plan("x.dat", frames: 480_000)
        #expect(data.width == nil && data.samplesPerPixel == [256])
    }

    @Test func spectrogramImage() throws {
        let scratch = try TemporaryFolder()
        let path = scratch.path("s.png")
        let frames = 48_000
        let plan = try Self.plan(path, frames: frames) { $0.resolution = .width(64); $0.style.height = 96; $0.style.isSpectrogram = true }
        #expect(plan.analysis.spectrumRows == 96)
        // A 1 kHz sine: the brightest row of every column is the one holding 1 kHz
        // (log rows from 20 Hz to 24 kHz, lowest at the bottom).
        try record(TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: Self.rate, frames: frames), plan: plan).writeOutputs()
        let image = try PNGReader.read(path: path)
        #expect(image.width == 64 && image.height == 96)
        let row = 95 - Int(log(1000.0 / 20) / log(24_000.0 / 20) * 96)
        for x in [10, 32, 50] {
            let brightest = (0..<96).max { a, b in
                let p = image.pixel(x: x, y: a), q = image.pixel(x: x, y: b)
                return Int(p.r) + Int(p.g) + Int(p.b) < Int(q.r) + Int(q.g) + Int(q.b)
            }!
            #expect(abs(brightest - row) <= 1, "column \(x): row \(brightest), expected \(row)")
        }
    }

    @Test func previewLinesShowWhereThereIsSound() throws {
        let frames = 48_000
        let plan = try Self.plan(nil, frames: frames) { $0.resolution = .width(20) }
        let recorder = try record(TestSignals.interleaved(channels: 1, frames: frames) { n, _ in n < frames / 2 ? 0 : (n % 2 == 0 ? 1 : -1) }, plan: plan)
        let lines = WaveformTerminalPreview.lines(try recorder.pixels(), rows: 4, scale: 1, colors: .solid)
        #expect(lines == Array(repeating: String(repeating: " ", count: 10) + String(repeating: "█", count: 10), count: 4))
        let half = WaveformTerminalPreview.lines(try recorder.pixels(), rows: 2, scale: 0.5, colors: .solid)
        #expect(half == [String(repeating: " ", count: 20), String(repeating: " ", count: 10) + String(repeating: "█", count: 10)])
    }

    /// `--db-range` (issue 28: a noise bed is a flat band in amplitude): the lane's edge is 0 dBFS and its centre
    /// -range dBFS, signs kept; linear drawing is the value times the scale, clipped.
    @Test func decibelsPlaceLevelsOnALogScale() throws {
        let tolerance: Float = 1e-5
        let minus24 = Float(pow(10, -24.0 / 20))
        #expect(abs(WaveformPixels.shaped(1, scale: 1, decibelRange: 48) - 1) < tolerance)
        #expect(abs(WaveformPixels.shaped(minus24, scale: 1, decibelRange: 48) - 0.5) < tolerance)
        #expect(abs(WaveformPixels.shaped(-minus24, scale: 1, decibelRange: 48) + 0.5) < tolerance)
        #expect(abs(WaveformPixels.shaped(minus24, scale: 1, decibelRange: 24)) < tolerance)
        #expect(WaveformPixels.shaped(0.001, scale: 1, decibelRange: 48) == 0, "-60 dBFS is below a 48 dB range")
        #expect(WaveformPixels.shaped(0, scale: 1, decibelRange: 48) == 0)
        #expect(WaveformPixels.shaped(4, scale: 1, decibelRange: 48) == 1)
        #expect(abs(WaveformPixels.shaped(0.25, scale: 2, decibelRange: nil) - 0.5) < tolerance)
        #expect(WaveformPixels.shaped(-3, scale: 1, decibelRange: nil) == -1)

        // The preview: a square wave at -24 dBFS is an eighth of four rows in amplitude, half of them in decibels.
        let frames = 48_000
        let plan = try Self.plan(nil, frames: frames) { $0.resolution = .width(20) }
        let recorder = try record(TestSignals.interleaved(channels: 1, frames: frames) { n, _ in n < frames / 2 ? 0 : (n % 2 == 0 ? minus24 : -minus24) }, plan: plan)
        let quiet = String(repeating: " ", count: 10)
        let linear = WaveformTerminalPreview.lines(try recorder.pixels(), rows: 4, scale: 1, colors: .solid)
        #expect(linear == [quiet + quiet, quiet + quiet, quiet + quiet, quiet + String(repeating: "▂", count: 10)])
        let decibels = WaveformTerminalPreview.lines(try recorder.pixels(), rows: 4, scale: 1, decibelRange: 48, colors: .solid)
        #expect(decibels == [quiet + quiet, quiet + quiet] + Array(repeating: quiet + String(repeating: "█", count: 10), count: 2))
    }

    /// `--colors relative` (issue 28: band colours came out uniform on a nature mix): against each band's usual
    /// level, a steady bed is near white and a mid-band burst over it green, where DJ-style band colours tint the
    /// whole of a bed by its spectrum.
    @Test func relativeColoursSetApartWhatStandsOutOfASteadyBed() throws {
        let frames = 3 * Self.rate
        let plan = try Self.plan(nil, frames: frames) { $0.resolution = .width(30) }
        var state: UInt32 = 12345
        let recorder = try record(TestSignals.interleaved(channels: 1, frames: frames) { n, _ in
            state = state &* 1_664_525 &+ 1_013_904_223                              // a fixed-seed white noise bed
            let noise = Float(Int32(bitPattern: state)) / Float(Int32.max) * 0.1
            let burst = (frames / 3..<2 * frames / 3).contains(n) ? 0.3 * Float(sin(2 * Double.pi * 1000 * Double(n) / Double(Self.rate))) : 0
            return noise + burst
        }, plan: plan)
        let pixels = try recorder.pixels()
        for x in [2, 5, 24, 27] {
            let c = try #require(pixels.relativeBandColor(x: x))
            #expect(min(c.red, c.green, c.blue) >= 128, "bed pixel \(x): \(c)")
        }
        for x in [13, 15, 17] {
            let c = try #require(pixels.relativeBandColor(x: x))
            #expect(c.green == 255 && c.red < 100 && c.blue < 100, "burst pixel \(x): \(c)")
        }
        #expect(pixels.bandColor(x: 15, mode: .solid) == nil)
        #expect(pixels.bandColor(x: 15, mode: .relative) == pixels.relativeBandColor(x: 15))
    }
}
