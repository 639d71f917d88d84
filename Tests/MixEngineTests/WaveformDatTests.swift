import DSPTestSupport
import Foundation
import MixEngine
import TestSupport
import Testing

/// `WaveformDat`: a `.dat` read back checked, zoomed out exactly as a waveform made at that zoom, given as JSON; and
/// every malformed file refused.
@Suite struct WaveformDatTests {
    /// Zooming the 256-samples-per-pixel file of two seconds of noise by 1 to 7 gives, byte for byte, the file a job
    /// writes at 256 times that zoom (columns merge whole: the least minimum, the greatest maximum), in both bit depths.
    @Test(arguments: [8, 16])
    func aZoomIsTheWaveformMadeAtThatZoom(bits: Int) throws {
        let scratch = try TemporaryFolder()
        var noise = TestSignals.Noise(seed: 23)
        let input = try scratch.wav("noise.wav", rate: 22_050, channels: 2, frames: 2 * 22_050 + 77, format: .float32) { _, c in
            noise.sample() * (c == 0 ? 0.8 : 0.3)
        }
        func dat(samplesPerPixel: Int) throws -> WaveformDat {
            var options = WaveformOptions()
            options.resolution = .samplesPerPixel([samplesPerPixel])
            options.bits = bits
            options.isSplittingChannels = true
            let path = scratch.path("noise-\(samplesPerPixel).dat")
            _ = try WaveformJob(inputPath: input, outputPath: path, options: options).run()
            return try WaveformDat(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        let full = try dat(samplesPerPixel: 256)
        #expect(full.length == (2 * 22_050 + 77 + 255) / 256)
        #expect(full.channelCount == 2 && full.bits == bits && full.sampleRate == 22_050)
        for factor in 1...7 {
            #expect(full.zoomed(by: factor) == (try dat(samplesPerPixel: 256 * factor)), "zoom \(factor)")
        }
    }

    @Test func theZoomForAWidthOrAPaceIsTheNearestWhole() throws {
        let dat = try WaveformDat(bytes: Self.file(length: 1000, channels: 1))
        #expect(dat.factor(forWidth: 1000) == 1)
        #expect(dat.factor(forWidth: 999) == 2)
        #expect(dat.factor(forWidth: 300) == 4)       // 250 columns
        #expect(dat.zoomed(by: dat.factor(forWidth: 300)).length == 250)
        #expect(dat.factor(forWidth: 1) == 1000)
        // 48 kHz at 256 samples per pixel is 187.5 columns a second.
        #expect(dat.factor(forPointsPerSecond: 187.5) == 1)
        #expect(dat.factor(forPointsPerSecond: 10) == 19)   // 18.75, rounded
        #expect(dat.factor(forPointsPerSecond: 100_000) == 1)
        #expect(dat.factor(forPointsPerSecond: 1e-300) > 1)
    }

    @Test func theJSONIsAudiowaveformsLayout() throws {
        let dat = try WaveformDat(bytes: Self.file(length: 3, channels: 2))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(dat.zoomed(by: 2).json.utf8)) as? [String: Any])
        #expect(object["version"] as? Int == 2 && object["channels"] as? Int == 2 && object["sample_rate"] as? Int == 48_000)
        #expect(object["samples_per_pixel"] as? Int == 512 && object["bits"] as? Int == 16 && object["length"] as? Int == 2)
        // Columns 0 and 1 merged, then column 2 alone; channel by channel within a column.
        #expect(object["data"] as? [Int] == [-2, 2, -102, 102, -3, 3, -103, 103])
    }

    @Test func malformedFilesAreRefused() throws {
        let good = Self.file(length: 3, channels: 2)
        var cases: [(String, [UInt8])] = [
            ("empty", []),
            ("short header", Array(good.prefix(22))),
            ("truncated data", Array(good.dropLast())),
            ("extra data", good + [0]),
        ]
        var version = good; version[0] = 3; cases.append(("version 3", version))
        var flags = good; flags[4] = 2; cases.append(("unknown flag", flags))
        var channels = good; channels[20] = 0; cases.append(("no channels", channels))
        var many = good; many[20] = 25; cases.append(("25 channels", many))
        var pixel = good; pixel[12] = 0; pixel[13] = 0; cases.append(("0 samples per pixel", pixel))
        var huge = good; huge[16] = 0xFF; huge[17] = 0xFF; huge[18] = 0xFF; huge[19] = 0xFF; cases.append(("4 billion columns", huge))
        for (name, bytes) in cases {
            #expect(throws: WaveformDat.Malformed.self, "\(name)") { try WaveformDat(bytes: bytes) }
        }
        #expect(try WaveformDat(bytes: good).length == 3)
    }

    /// A version 2, 16-bit file at 48 kHz and 256 samples per pixel: column k, channel c holds -(k + 1 + 100 c),
    /// k + 1 + 100 c.
    static func file(length: Int, channels: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func int32(_ v: Int) { for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        func int16(_ v: Int) { for i in 0..<2 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) } }
        int32(2); int32(0); int32(48_000); int32(256); int32(length); int32(channels)
        for k in 0..<length {
            for c in 0..<channels { int16(-(k + 1 + 100 * c)); int16(k + 1 + 100 * c) }
        }
        return bytes
    }
}
