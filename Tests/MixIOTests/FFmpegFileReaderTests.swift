import DSPTestSupport
import Foundation
import MixDSP
@testable import MixIO
import TestSupport
import Testing

/// The FFmpeg reader on the committed fixtures (Tests/Fixtures/ffmpeg): AAC in .m4a and .mp4, Opus and
/// Vorbis in WebM, each 1.5 s of a known signal; and on hostile files made from them.
@Suite struct FFmpegFileReaderTests {
    typealias Fixture = FFmpegFixtures.Fixture

    /// `AudioFile.open` hands what libsndfile does not recognise to FFmpeg, and `info` says what it is.
    @Test(arguments: FFmpegFixtures.all) func opensThroughAudioFile(_ fixture: Fixture) throws {
        let reader = try AudioFile.open(path: fixture.path)
        #expect(reader is FFmpegFileReader)
        #expect(reader.info.formatName == fixture.formatName)
        #expect(reader.info.sampleRate == fixture.sampleRate)
        #expect(reader.info.channelCount == fixture.channelCount)
        #expect(reader.info.frameCount == fixture.frameCount)
    }

    /// `info.frameCount` is exactly what `read` produces, whatever the block size.
    @Test(arguments: FFmpegFixtures.all) func frameCountIsWhatReadProduces(_ fixture: Fixture) throws {
        for blockFrames in [4096, 1000, 1] {
            let reader = try FFmpegFileReader(path: fixture.path)
            let samples = try readAll(reader, blockFrames: blockFrames)
            #expect(Int64(samples.count / fixture.channelCount) == reader.info.frameCount, "block \(blockFrames)")
            var buffer = [Float](repeating: 0, count: 16 * fixture.channelCount)
            #expect(try reader.read(into: &buffer, frames: 16) == 0, "read after the end")
        }
    }

    /// Decoded audio matches the source signal: aligned to the frame (the encoder's priming is removed),
    /// each channel its own (440 Hz left, 660 Hz right), within the codec's noise (SNR at least 15 dB, RMS
    /// within 0.5 dB), and the 1 kHz burst starts where it should, within 8 frames.
    @Test(arguments: FFmpegFixtures.all) func decodedSignalMatchesTheSource(_ fixture: Fixture) throws {
        let reader = try FFmpegFileReader(path: fixture.path)
        let decoded = try readAll(reader)
        let channels = fixture.channelCount, rate = fixture.sampleRate
        let frames = Int(FFmpegFixtures.seconds * Double(rate))
        let source = TestSignals.interleaved(channels: channels, frames: frames, FFmpegFixtures.source(rate: rate))

        // The lag (decoded against source) with the smallest error, within ±64 frames (less than the 440 Hz period).
        func error(lag: Int) -> Double {
            var sum = 0.0
            for i in 128..<(frames - 128) { for c in 0..<channels {
                let d = Double(decoded[(i + lag) * channels + c] - source[i * channels + c])
                sum += d * d
            } }
            return sum
        }
        let lag = (-64...64).min { error(lag: $0) < error(lag: $1) }!
        #expect(lag == 0, "decoded audio is \(lag) frames late")

        for c in 0..<channels {
            let s = stride(from: c, to: frames * channels, by: channels).map { source[$0] }
            let d = stride(from: c, to: frames * channels, by: channels).map { decoded[$0] }
            let noise = zip(s, d).map { $1 - $0 }
            let snr = dB(rms(s) / rms(noise))
            #expect(snr >= 15, "channel \(c): SNR \(snr) dB")
            #expect(abs(dB(rms(d) / rms(s))) <= 0.5, "channel \(c): RMS \(dB(rms(d) / rms(s))) dB off")
        }

        // The burst: what remains after taking the tone away first passes half its amplitude 4-5 frames in.
        let burst = Int(FFmpegFixtures.burstStart * Double(rate))
        let tone = FFmpegFixtures.source(rate: rate)
        let onset = (burst - 400..<burst + 400).first { i in
            abs(decoded[i * channels] - (tone(i, 0) - (i >= burst ? burstPart(i - burst, rate) : 0))) > 0.2
        }
        #expect(onset.map { abs($0 - (burst + 4)) <= 8 } == true, "burst found at \(String(describing: onset)), expected \(burst + 4)")
    }

    /// The burst alone, `n` frames after it starts.
    private func burstPart(_ n: Int, _ rate: Int) -> Float { Float(0.4 * sin(2 * Double.pi * 1000 * Double(n) / Double(rate))) }

    /// Reading from frame N after a seek gives frames N... of the whole decode, going forward and back:
    /// aligned to the frame (a frame off would differ by 0.02 or more on these sines), and equal to the sample
    /// where the reader decodes again from the start (WebM, and any target in the first 16384 frames). After a
    /// demuxer seek (MP4 from 16385 on), AAC's noise substitution, whose random generator runs on from the
    /// start of the stream, puts another noise of the same level in noise-coded bands: measured up to 2e-3
    /// (-54 dBFS), allowed up to 5e-3.
    @Test(arguments: FFmpegFixtures.all) func seekIsExact(_ fixture: Fixture) throws {
        let channels = fixture.channelCount
        let tolerance: Float = fixture.name.hasSuffix(".webm") ? 0 : 5e-3
        let whole = try readAll(FFmpegFileReader(path: fixture.path))
        let reader = try FFmpegFileReader(path: fixture.path)
        let count = Int(reader.info.frameCount)
        var buffer = [Float](repeating: 0, count: 3000 * channels)
        for target in [50_000, 1, 1000, 24_001, 0, 40_000, count - 100, 16_000, 20_000, count] {
            try reader.seek(to: Int64(target))
            let got = try reader.read(into: &buffer, frames: 3000)
            #expect(got == min(3000, count - target), "at \(target)")
            let expected = whole[(target * channels)..<((target + got) * channels)]
            let difference = zip(buffer[0..<(got * channels)], expected).map { abs($0 - $1) }.max() ?? 0
            #expect(difference <= tolerance, "frames from \(target) differ by up to \(difference)")
        }
        #expect(throws: AudioIOError.self) { try reader.seek(to: Int64(count + 1)) }
    }

    /// The voice memo's tags are read.
    @Test func tags() throws {
        let tags = try AudioFile.open(path: FFmpegFixtures.memo.path).info.tags
        #expect(tags.title == "Voice memo")
        #expect(tags.artist == "mixrender tests")
        #expect(tags.comment == "440 Hz and a burst")
    }

    // MARK: - Hostile files: one line, the file named, never a crash

    private func openError(_ path: String) throws -> AudioIOError {
        let error = try #require(throws: AudioIOError.self) { try AudioFile.open(path: path) }
        #expect(!error.description.contains("\n"))
        #expect(error.description.contains("'\(path)'"))
        return error
    }

    @Test func garbageNamedM4A() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("memo.m4a")
        var noise = TestSignals.Noise(seed: 7)
        try Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: noise.next()) }).write(to: URL(fileURLWithPath: path))
        #expect(try openError(path).description
                == "cannot open '\(path)': not an audio format mixrender can read (avformat_open_input)")
    }

    @Test func webPageNamedM4A() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("memo.m4a")
        try Data("<!DOCTYPE html><html><body>404 Not Found</body></html>\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try openError(path).reason == "not an audio format mixrender can read")
    }

    @Test func zeroLengthM4A() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("memo.m4a")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(try openError(path).description == "cannot open '\(path)': empty file (0 bytes) (sf_open)")
    }

    @Test func videoWithoutAudio() throws {
        let path = FFmpegFixtures.path("video-only.mp4")
        #expect(try openError(path).description == "cannot open '\(path)': has no audio stream (av_find_best_stream)")
    }

    /// Raw AAC whose rate goes from 48 kHz to 44.1 kHz half-way: an error at open (the counting pass sees it).
    @Test func sampleRateChangingMidStream() throws {
        let path = FFmpegFixtures.path("rate-change.aac")
        let error = try openError(path)
        #expect(error.function == "avcodec_receive_frame")
        #expect(error.reason.hasPrefix("the sample rate changes from 48000 Hz to 44100 Hz at frame "), "\(error)")
    }

    /// Every fixture cut short anywhere either opens, with a length that is what it reads, or is one line.
    @Test(arguments: FFmpegFixtures.all) func truncatedFiles(_ fixture: Fixture) throws {
        let folder = try TemporaryFolder()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        for cut in [16, 100, 1000, bytes.count / 3, bytes.count / 2, bytes.count - 10] {
            let path = folder.path("cut-\(cut)-" + fixture.name)
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
            do {
                let reader = try AudioFile.open(path: path)
                #expect(Int64(try readAll(reader).count / reader.channelCount) == reader.info.frameCount, "cut at \(cut)")
            } catch let error as AudioIOError {
                #expect(!error.description.contains("\n") && error.path == path, "\(error)")
            }
        }
    }

    /// Read whole, Ogg Vorbis is decoded by FFmpeg's decoder (its pages read by libogg) with libsndfile's info: the
    /// length is what FFmpeg reads, and the samples are libsndfile's within one 16-bit step (measured: about 1e-7).
    @Test func oggVorbisReadWholeIsDecodedByFFmpeg() throws {
        let folder = try TemporaryFolder()
        let frames = 100_000
        var noise = TestSignals.Noise(seed: 3)
        let path = try folder.oggVorbis("noise.ogg", rate: 44_100, interleaved: (0..<(2 * frames)).map { _ in 0.5 * noise.sample() })

        let analysis = try AudioFile.open(path: path, purpose: .wholeFile)
        let playback = try AudioFile.open(path: path)
        #expect(analysis is OggVorbisFileReader && playback is SoundFileReader)
        #expect(analysis.info == playback.info)
        let fromFFmpeg = try readAll(analysis), fromSndfile = try readAll(playback)
        #expect(Int64(fromFFmpeg.count / 2) == analysis.info.frameCount)
        #expect(fromFFmpeg.count == fromSndfile.count)
        let difference = zip(fromFFmpeg, fromSndfile).map { abs($0 - $1) }.max() ?? 0
        #expect(difference <= 0x1p-15, "max difference \(difference)")
        #expect(try AudioFile.open(path: FFmpegFixtures.memo.path, purpose: .wholeFile) is FFmpegFileReader)
    }

    /// FFmpeg's reader of an Ogg Vorbis file (for what `OggVorbisFileReader` does not read) seeks in the container
    /// (from the first frame's timestamp, decoded at open) to the very samples a read from the start gives: forward by reading the packets between (every 9973 frames, so
    /// targets fall anywhere in a block), back and far by seeking the demuxer, near the start and the end. Quiet
    /// noise with a loud burst every 0.1 s makes the encoder switch between long and short blocks all the time,
    /// where FFmpeg times a frame 448 samples off the count: a seek that trusted that frame's timestamp would land
    /// off by that much. What lets `mixrender waveform` decode one file on several threads.
    @Test func oggVorbisReadWholeSeeksToTheSameSamples() throws {
        let folder = try TemporaryFolder()
        let path = try folder.vorbisBursts()

        let whole = try readAll(try AudioFile.open(path: path, purpose: .wholeFile))
        let count = whole.count / 2
        let reader = try FFmpegFileReader(path: path, knownInfo: try AudioFile.open(path: path).info)
        #expect(reader.seeksToTheSameSamples)
        let forward = Array(stride(from: 20_000, to: count, by: 9_973))
        let elsewhere = [262_144, 1, 2_047, 2_049, 123_457, 400_000, 131_072, count - 5_000, count - 1, count, 0]
        #expect(try inexactSeeks(reader, whole: whole, targets: forward + elsewhere) == [])
    }

    /// libsndfile still reads what it knows: FFmpeg is only the fallback.
    @Test func libsndfileStaysFirst() throws {
        let folder = try TemporaryFolder()
        let path = try folder.wav("a.wav", frames: 100) { i, _ in Float(i) / 100 }
        #expect(try AudioFile.open(path: path) is SoundFileReader)
    }
}
