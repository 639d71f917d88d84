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
        // MP3 is read back by MPEGFileReader, gapless: the exact length too. At quality 0.4 LAME's coding noise
        // lifts a sine's peak by up to 1.1 dB (its RMS stays within 0.1 dB): 0.5 * (10^(1.1/20) - 1) = 0.068.
        Case(file: "sine.mp3", format: .mp3, sampleFormat: .pcm16, formatName: "MP3", peakTolerance: 0.068),
        // Ogg Opus (48 kHz) trims its pre-skip by the granule position: the exact length too.
        Case(file: "sine.opus", format: .opus, sampleFormat: .pcm16, formatName: "Ogg Opus", peakTolerance: 0.0296),
        // ALAC in CAF and AIFF are lossless.
        Case(file: "sine.24.caf", format: .caf, sampleFormat: .pcm24, formatName: "CAF 24 bit ALAC",
             peakTolerance: 2.0 / 8_388_608),
        Case(file: "sine.16.aiff", format: .aiff, sampleFormat: .pcm16, formatName: "AIFF 16-bit PCM",
             peakTolerance: 2.0 / 32768),
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

        let reader = try AudioFile.open(path: path)
        let decoded = try readAll(reader)
        #expect(decoded.count == Self.rate * 2)
        let measured = peak(decoded)
        #expect(abs(measured - 0.5) <= testCase.peakTolerance, "peak \(measured)")
        if testCase.format.isPCM {
            // Lossless: every sample matches within the quantisation step.
            let worst = zip(decoded, Self.signal).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
            #expect(worst <= testCase.peakTolerance, "max difference \(worst)")
        }
    }

    /// MP3 takes the whole range of quality, as Vorbis does: at 0 libsndfile asked LAME for a VBR quality of 10,
    /// which LAME refuses (found making the fuzz seeds: `"quality": 0` to .mp3 failed).
    @Test(arguments: [0.0, 1.0])
    func mp3TakesEveryQuality(quality: Double) throws {
        let folder = try TemporaryFolder()
        let path = try folder.mp3("q.mp3", frames: 4410, quality: quality) { n, _ in n % 100 < 50 ? 0.25 : -0.25 }
        #expect(try AudioFile.open(path: path).frameCount == 4410)
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
        #expect(OutputFileFormat.from(path: "night.MP3") == .mp3)
        #expect(OutputFileFormat.from(path: "night.M4A") == .m4a)
        #expect(OutputFileFormat.from(path: "night.wma") == nil)
        #expect(OutputFileFormat.from(path: "night") == nil)
        #expect(OutputFileFormat.from(path: "dir.wav/night") == nil)
        #expect(OutputFileFormat.from(path: ".wav") == nil)
        #expect(OutputFileFormat.allCases.map(\.fileExtension) == ["ogg", "flac", "wav", "mp3", "opus", "caf", "aiff", "m4a"])
        #expect(OutputFileFormat.from(path: "a.AIF") == .aiff && OutputFileFormat.from(path: "a.caf") == .caf)
    }
}

/// A WAV whose data will not fit in a RIFF header's 32-bit sizes is written as RF64; smaller ones stay RIFF.
@Suite struct WAVSizeTests {
    static func settings(frames: Int64?, channels: Int = 2, format: OutputSampleFormat = .pcm16) -> OutputSettings {
        var s = OutputSettings(format: .wav, sampleRate: 48_000, channelCount: channels, sampleFormat: format)
        s.expectedFrameCount = frames
        return s
    }

    @Test func theChoiceFollowsTheDataSize() {
        let limit = OutputSettings.riffDataLimit
        #expect(!Self.settings(frames: nil).wavNeedsRF64)
        #expect(!Self.settings(frames: limit / 4).wavNeedsRF64)                 // 16-bit stereo: 4 bytes a frame
        #expect(Self.settings(frames: limit / 4 + 1).wavNeedsRF64)
        #expect(Self.settings(frames: 8 * 3600 * 48_000).wavNeedsRF64)           // 8 h: 5.5 GB
        #expect(!Self.settings(frames: 3 * 3600 * 48_000).wavNeedsRF64)          // 3 h: 2.1 GB
        #expect(Self.settings(frames: 7 * 3600 * 48_000, channels: 1, format: .float32).wavNeedsRF64)   // 4.8 GB
        var ogg = Self.settings(frames: 8 * 3600 * 48_000)
        ogg.format = .oggVorbis
        #expect(!ogg.wavNeedsRF64)
    }

    /// The header a writer opens with: `RF64` for a long render (here only its first second is written; the
    /// sizes come from the header libsndfile finishes), `RIFF` otherwise; both read back the same frames.
    @Test(arguments: [(Int64(8 * 3600 * 48_000), "RF64"), (Int64(48_000), "RIFF")])
    func theHeaderIsRF64OnlyWhenNeeded(expected: Int64, magic: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.path("out.wav")
        let writer = try SoundFileWriter(path: path, settings: Self.settings(frames: expected))
        let data = TestSignals.sine(frequency: 440, amplitude: 0.5, rate: 48_000, frames: 48_000, channels: 2)
        try data.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: 48_000) }
        try writer.finish()
        let head = try FileSystem.readDocument(path: path, maximumBytes: 1 << 20).prefix(4)
        #expect(String(decoding: head, as: UTF8.self) == magic)
        let reader = try SoundFileReader(path: path)
        #expect(reader.frameCount == 48_000)
        #expect(try readAll(reader).count == data.count)
    }

    /// Opus takes its own rates only; ALAC no float: one line each, before anything is written.
    @Test func opusAndALACRefuseWhatTheyCannotStore() {
        let opus = OutputSettings(format: .opus, sampleRate: 44_100, channelCount: 2)
        #expect(SoundFileWriter.validate(settings: opus)?.contains("Ogg Opus cannot be written at 44100 Hz (it takes 8000, 12000, 16000, 24000, 48000 Hz") == true)
        let alac = OutputSettings(format: .caf, sampleRate: 48_000, channelCount: 2, sampleFormat: .float32)
        #expect(SoundFileWriter.validate(settings: alac) == "ALAC in CAF stores 16 or 24 bits; use pcm16 or pcm24")
        #expect(SoundFileWriter.validate(settings: OutputSettings(format: .opus, sampleRate: 24_000, channelCount: 1)) == nil)
    }
}
