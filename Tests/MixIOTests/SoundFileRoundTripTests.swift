import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import TestSupport
import Testing

@Suite struct SoundFileRoundTripTests {
    static let rate = 48_000
    static let signal = TestSignals.sine(frequency: 440, amplitude: 0.5, rate: rate, frames: rate, channels: 2)

    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var format: OutputFileFormat
        var sampleFormat: OutputSampleFormat
        var formatName: String
        /// Largest allowed |peak read back - 0.5|.
        var peakTolerance: Float
        var description: String { file }
    }

    static let cases: [Case] = [
        Case(file: "sine.float.wav", format: .wav, sampleFormat: .float32, formatName: "WAV 32-bit float",
             peakTolerance: 1e-6),
        Case(file: "sine.16.wav", format: .wav, sampleFormat: .pcm16, formatName: "WAV 16-bit PCM",
             peakTolerance: 2.0 / 32768),
        Case(file: "sine.24.flac", format: .flac, sampleFormat: .pcm24, formatName: "FLAC 24-bit",
             peakTolerance: 2.0 / 8_388_608),
        // 0.5 dB around 0.5: 0.5 * (10^(0.5/20) - 1) = 0.0296.
        Case(file: "sine.ogg", format: .oggVorbis, sampleFormat: .pcm16, formatName: "Ogg Vorbis",
             peakTolerance: 0.0296),
    ]

    @Test(arguments: cases)
    func writesAndReadsBack(_ testCase: Case) throws {
        let folder = try TemporaryFolder()
        let path = folder.path(testCase.file)
        let settings = OutputSettings(format: testCase.format, sampleRate: Self.rate, channelCount: 2,
                                      sampleFormat: testCase.sampleFormat, vorbisQuality: 0.4)
        #expect(SoundFileWriter.validate(settings: settings) == nil)
        let writer = try SoundFileWriter(path: path, settings: settings)
        try Self.signal.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: Self.rate) }
        try writer.finish()
        #expect(writer.framesWritten == Int64(Self.rate))

        let info = try AudioFileInfo.read(path: path)
        #expect(info.path == path)
        #expect(info.formatName == testCase.formatName)
        #expect(info.sampleRate == Self.rate)
        #expect(info.channelCount == 2)
        // libsndfile reports the exact length of the Vorbis stream it wrote (granule position), too.
        #expect(info.frameCount == Int64(Self.rate))
        #expect(abs(info.durationSeconds - 1) < 1e-12)

        let reader = try SoundFileReader(path: path)
        let decoded = try readAll(reader)
        #expect(decoded.count == Self.rate * 2)
        let measured = peak(decoded)
        #expect(abs(measured - 0.5) <= testCase.peakTolerance, "peak \(measured)")
        if testCase.format != .oggVorbis {
            // Lossless: every sample matches within the quantisation step.
            let worst = zip(decoded, Self.signal).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
            #expect(worst <= testCase.peakTolerance, "max difference \(worst)")
        }
    }

    @Test func seeksToAFrame() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("seek.wav")
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(
            format: .wav, sampleRate: Self.rate, channelCount: 2, sampleFormat: .float32))
        try Self.signal.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: Self.rate) }
        try writer.finish()

        let reader = try SoundFileReader(path: path)
        try reader.seek(to: 12_345)
        var frame = [Float](repeating: 0, count: 2 * 10)
        #expect(try reader.read(into: &frame, frames: 10) == 10)
        #expect(Array(frame) == Array(Self.signal[(12_345 * 2)..<(12_355 * 2)]))
        try reader.seek(to: Int64(Self.rate))
        #expect(try reader.read(into: &frame, frames: 10) == 0)
        #expect(throws: AudioIOError.self) { try reader.seek(to: Int64(Self.rate) + 100) }
    }

    @Test func clipsIntegerOutputInsteadOfWrapping() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("loud.wav")
        let loud: [Float] = [1.5, -1.5, 0.25, -0.25]
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(
            format: .wav, sampleRate: Self.rate, channelCount: 1, sampleFormat: .pcm16))
        try writer.write(interleaved: loud, frames: 4)
        try writer.finish()
        let decoded = try readAll(SoundFileReader(path: path))
        #expect(decoded.count == 4)
        #expect(decoded[0] > 0.999 && decoded[1] < -0.999, "\(decoded)")
        #expect(abs(decoded[2] - 0.25) < 1e-4 && abs(decoded[3] + 0.25) < 1e-4)
    }

    @Test(arguments: [OutputFileFormat.flac, .oggVorbis, .wav])
    func tagsRoundTrip(_ format: OutputFileFormat) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("tagged.\(format.fileExtension)")
        let settings = OutputSettings(format: format, sampleRate: Self.rate, channelCount: 2,
                                      sampleFormat: .pcm16, title: "Night Rain", artist: "mixrender",
                                      comment: "rain + wind, 8 h")
        let writer = try SoundFileWriter(path: path, settings: settings)
        try Self.signal.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 4800) }
        try writer.finish()

        let info = try AudioFileInfo.read(path: path)
        #expect(info.tags == AudioTags(title: "Night Rain", artist: "mixrender", comment: "rain + wind, 8 h"))
        #expect(try SoundFileReader(path: path).tags.title == "Night Rain")
    }

    /// libvorbis puts a whole `sf_writef_float` call on the stack: 60 s in one call would crash
    /// without the writer's chunking. Ten such calls make a 10-minute file.
    @Test func longOggWritesInOneCallDoNotCrash() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("long.ogg")
        let minute = TestSignals.sine(frequency: 220, amplitude: 0.3, rate: Self.rate, frames: 60 * Self.rate,
                                      channels: 2)
        let writer = try SoundFileWriter(path: path, settings: OutputSettings(
            format: .oggVorbis, sampleRate: Self.rate, channelCount: 2, vorbisQuality: 0.1))
        for _ in 0..<10 {
            try minute.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 60 * Self.rate) }
        }
        try writer.finish()
        let info = try AudioFileInfo.read(path: path)
        #expect(info.frameCount == Int64(600 * Self.rate))
        #expect(abs(info.durationSeconds - 600) < 1e-9)
    }

    @Test func outputFormatFromPath() {
        #expect(OutputFileFormat.from(path: "night.ogg") == .oggVorbis)
        #expect(OutputFileFormat.from(path: "/tmp/x/Night.OGA") == .oggVorbis)
        #expect(OutputFileFormat.from(path: "a.b/night.FLAC") == .flac)
        #expect(OutputFileFormat.from(path: "night.Wav") == .wav)
        #expect(OutputFileFormat.from(path: "night.mp3") == nil)
        #expect(OutputFileFormat.from(path: "night") == nil)
        #expect(OutputFileFormat.from(path: "dir.wav/night") == nil)
        #expect(OutputFileFormat.from(path: ".wav") == nil)
        #expect(OutputFileFormat.allCases.map(\.fileExtension) == ["ogg", "flac", "wav"])
    }
}
