import DSPTestSupport
import Foundation
import MixDSP
@testable import MixIO
import Testing

@Suite struct SoundFileErrorTests {
    private func openError(_ path: String) -> AudioIOError? {
        do {
            _ = try SoundFileReader(path: path)
            return nil
        } catch let error as AudioIOError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test func missingFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("rain.ogg")
        let error = try #require(openError(path))
        #expect(error.function == "sf_open")
        #expect(error.path == path)
        #expect(error.description == "cannot open '\(path)': no such file (sf_open)")
        #expect(throws: AudioIOError.self) { try AudioFileInfo.read(path: path) }
    }

    @Test func textFileNamedWav() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("x.wav")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(openError(path))
        #expect(error.description == "cannot open '\(path)': not an audio file libsndfile can read (sf_open)")
    }

    /// An HTML page saved as .mp3 (a failed download): libsndfile's MPEG reader blames a pipe; the message
    /// says what is really wrong.
    @Test func webPageNamedMP3() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("waves.mp3")
        try Data("<!DOCTYPE html><html><body>404 Not Found</body></html>\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(openError(path))
        #expect(error.description == "cannot open '\(path)': its contents are not audio libsndfile can decode (the name says .mp3) (sf_open)")
    }

    @Test func zeroLengthFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("empty.flac")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = try #require(openError(path))
        #expect(error.description == "cannot open '\(path)': empty file (0 bytes) (sf_open)")
    }

    @Test func folderInsteadOfFile() throws {
        let folder = try TemporaryFolder()
        let error = try #require(openError(folder.url.path))
        #expect(error.reason == "is a folder, not an audio file")
    }

    /// A 22-byte WAV header fragment whose RIFF size claims 2.3 MB and whose 'fmt ' chunk is cut short.
    @Test func truncatedWavHeader() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("broken.wav")
        let bytes: [UInt8] = Array("RIFF".utf8) + [0x46, 0xD8, 0x23, 0x00] + Array("WAVEfmt ".utf8)
            + [0x10, 0x00, 0x00, 0x00, 0x01, 0x00]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = try #require(openError(path))
        #expect(error.function == "sf_open")
        #expect(error.description.hasPrefix("cannot open '\(path)': malformed WAV file"), "\(error)")
    }

    @Test func writingIntoMissingFolder() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("no/such/folder/out.wav")
        let settings = OutputSettings(format: .wav, sampleRate: 48_000, channelCount: 2)
        let error = try #require(throws: AudioIOError.self) { try SoundFileWriter(path: path, settings: settings) }
        #expect(error.function == "open")
        #expect(error.description.hasPrefix("cannot create '\(path)': folder '"), "\(error)")
        #expect(error.description.hasSuffix("does not exist (open)"), "\(error)")
    }

    @Test func badSettingsAreRejectedBeforeAnythingIsWritten() throws {
        let folder = try TemporaryFolder()
        let floatFlac = OutputSettings(format: .flac, sampleRate: 48_000, channelCount: 2, sampleFormat: .float32)
        #expect(SoundFileWriter.validate(settings: floatFlac) == "FLAC cannot store 32-bit float samples; use pcm16 or pcm24")
        let path = folder.path("float.flac")
        let error = try #require(throws: AudioIOError.self) { try SoundFileWriter(path: path, settings: floatFlac) }
        #expect(error.function == "sf_format_check")
        #expect(!FileManager.default.fileExists(atPath: path))

        let bad = [
            OutputSettings(format: .oggVorbis, sampleRate: 48_000, channelCount: 2, vorbisQuality: 1.5),
            OutputSettings(format: .oggVorbis, sampleRate: 384_000, channelCount: 2),
            OutputSettings(format: .flac, sampleRate: 48_000, channelCount: 9),
            OutputSettings(format: .wav, sampleRate: 0, channelCount: 2),
            OutputSettings(format: .wav, sampleRate: 48_000, channelCount: 0),
        ]
        for settings in bad { #expect(SoundFileWriter.validate(settings: settings) != nil, "\(settings)") }
        let good = [
            OutputSettings(format: .oggVorbis, sampleRate: 44_100, channelCount: 1, vorbisQuality: 0),
            OutputSettings(format: .flac, sampleRate: 96_000, channelCount: 2, sampleFormat: .pcm16),
            OutputSettings(format: .wav, sampleRate: 22_050, channelCount: 6, sampleFormat: .float32),
        ]
        for settings in good { #expect(SoundFileWriter.validate(settings: settings) == nil, "\(settings)") }
    }

    @Test func writeAfterFinishThrows() throws {
        let folder = try TemporaryFolder()
        let writer = try SoundFileWriter(path: folder.path("done.wav"),
                                         settings: OutputSettings(format: .wav, sampleRate: 8000, channelCount: 1))
        try writer.finish()
        try writer.finish()  // a second finish does nothing
        let error = try #require(throws: AudioIOError.self) { try writer.write(interleaved: [0.1], frames: 1) }
        // 16-bit output is rounded to integers by the writer and written with sf_writef_short.
        #expect(error.function == "sf_writef_short")
    }

    @Test func libsndfileMessagesBecomeReadable() {
        #expect(SndFile.readable("Format not recognised.") == "not an audio file libsndfile can read")
        #expect(SndFile.readable("Supported file format but file is malformed.") == "malformed file")
        #expect(SndFile.readable("Error in WAV file. No 'data' chunk marker.")
                == "malformed WAV file: no 'data' chunk marker")
        #expect(SndFile.readable("Error in AIFF file, bad 'COMM' chunk size.") == "malformed AIFF file: bad 'COMM' chunk size")
        #expect(SndFile.readable("System error : Permission denied.") == "permission denied")
        #expect(SndFile.readable("Error : bad flac header.") == "bad flac header")
        #expect(SndFile.readable("Error : MPEG-1/2/2.5 only supports sample rates of 8000.")
                == "MPEG-1/2/2.5 only supports sample rates of 8000")
    }
}
