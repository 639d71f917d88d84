import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `-o - --format F`: the encoded stream on standard output, through a real pipe, decodes to the audio a render
/// to a file gives; what cannot be streamed is refused in one line with nothing written.
@Suite struct StreamCLITests {
    static let preset = #"{ "name": "Stream", "duration": 5, "tracks": [ { "generator": { "type": "pink", "seed": 3 }, "gainDb": -10 }, { "tone": { "frequencyHz": 330 }, "gainDb": -6 } ] }"#

    /// Runs mixrender with standard output into a pipe this process reads (not a file: libsndfile would seek in
    /// a file), and returns the bytes, standard error and the status.
    static func runToPipe(_ arguments: [String], closingEarly: Bool = false) throws -> (bytes: Data, stderr: String, status: Int32) {
        let p = Process()
        p.executableURL = try CLI.executable
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        var bytes = Data()
        if closingEarly {
            _ = out.fileHandleForReading.readData(ofLength: 1000)
            try out.fileHandleForReading.close()     // the reader goes away mid-render
        } else {
            bytes = out.fileHandleForReading.readDataToEndOfFile()
        }
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (bytes, String(decoding: e, as: UTF8.self), p.terminationStatus)
    }

    static func decode(_ path: String) throws -> (samples: [Float], channels: Int) {
        let reader = try AudioFile.open(path: path)
        return (try readAll(reader), reader.channelCount)
    }

    /// Ogg Vorbis, Ogg Opus and FLAC: the same samples, exactly (the encoders are deterministic; only Ogg's
    /// random stream serial differs between the files), and the same length.
    @Test(arguments: ["ogg", "opus", "flac"])
    func aStreamDecodesToTheFilesAudio(_ format: String) throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let streamed = try Self.runToPipe([preset, "-o", "-", "--format", format])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        // Progress and summary go to standard error; nothing else is on standard output.
        #expect(streamed.stderr.contains("wrote     standard output") && !streamed.stderr.contains("warning"), "\(streamed.stderr)")
        try streamed.bytes.write(to: URL(fileURLWithPath: s.path("piped.\(format)")))
        #expect(try CLI.run([preset, "-o", s.path("file.\(format)"), "-q"]).status == 0)
        let (piped, channels) = try Self.decode(s.path("piped.\(format)"))
        let (file, _) = try Self.decode(s.path("file.\(format)"))
        #expect(piped.count == 240_000 * channels)
        #expect(piped == file)
    }

    /// MP3 through a pipe has no LAME header (libsndfile writes it last, at the start, and cannot seek back in a
    /// pipe): the decoder gives the encoder's delay and padding too. After LAME's delay (576) and the decoder's
    /// (529), the samples are the file render's.
    @Test func anMP3StreamIsTheSameAudioAfterTheEncoderDelay() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        let streamed = try Self.runToPipe([preset, "-o", "-", "--format", "mp3"])
        #expect(streamed.status == 0)
        #expect(streamed.stderr.contains("warning: \(preset): an MP3 written to a pipe has no LAME header"), "\(streamed.stderr)")
        try streamed.bytes.write(to: URL(fileURLWithPath: s.path("piped.mp3")))
        #expect(LAMETag.read([UInt8](streamed.bytes)) == nil)
        #expect(try CLI.run([preset, "-o", s.path("file.mp3"), "-q"]).status == 0)
        let (piped, channels) = try Self.decode(s.path("piped.mp3"))
        let (file, _) = try Self.decode(s.path("file.mp3"))
        let delay = (576 + 529) * channels
        #expect(piped.count >= file.count + delay)
        let worst = zip(piped[delay...], file).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
        #expect(worst < 1e-4, "largest difference \(worst)")
    }

    @Test func whatCannotBeStreamedIsRefused() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", Self.preset)
        for (arguments, expected) in [
            ([preset, "-o", "-"], "Error: -o -: give the stream's format with --format (ogg, flac, mp3 or opus), e.g. -o - --format ogg"),
            ([preset, "-o", "-", "--format", "wav"], "Error: --format wav: WAV writes its length at the start once the audio is written, so it needs a file it can seek in; for a lossless stream use flac"),
            ([preset, "-o", "-", "--format", "caf"], "Error: --format caf: CAF ALAC writes its length at the start"),
            ([preset, "-o", "-", "--format", "aiff"], "Error: --format aiff: AIFF writes its length at the start"),
            ([preset, "-o", "-", "--format", "m4a"], "Error: --format m4a: MP4 writes its index after the audio"),
            ([preset, "-o", "-", "--format", "xyz"], "Error: --format: unknown format 'xyz'; expected ogg, flac, mp3 or opus"),
            ([preset, "-o", s.path("o.ogg"), "--format", "mp3"], "Error: --format mp3 does not match the output '\(s.path("o.ogg"))', whose extension picks its format"),
            ([preset, "-o", "-", "--format", "ogg", "--report", s.path("r.json")], "Error: --report: a report hashes the output file"),
        ] {
            let r = try Self.runToPipe(arguments)
            #expect(r.status != 0 && r.bytes.isEmpty, "\(arguments)")
            #expect(r.stderr.hasPrefix(expected) && r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
        }
        #expect(s.contents == ["p.json"])
    }

    /// The program reading the stream stops: the render ends with one line and a non-zero status, not a silent
    /// death by SIGPIPE.
    @Test func aReaderThatStopsEndsTheRenderWithAnError() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": "10m", "tracks": [ { "generator": { "type": "pink" } } ] }"#)
        let r = try Self.runToPipe([preset, "-o", "-", "--format", "flac", "-q"], closingEarly: true)
        #expect(r.status == 1, "status \(r.status): \(r.stderr)")
        #expect(r.stderr == "Error: cannot write 'standard output': the program reading it stopped (the pipe was closed) (write)\n", "\(r.stderr)")
    }
}
