import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// MP3s as users have them: VBR without a length tag, cut short by a failed download, damaged in the middle.
/// Each is planned by the length its decoder gives, said once when something is wrong, and never lets the
/// decoder library print on its own.
@Suite struct MP3CLITests {
    static let rate = 44_100

    /// 2 s of a quiet tone alternating with noise every half second (so LAME's bitrate varies), then 0.5 s
    /// of silence, as a VBR MP3 with its LAME tag.
    func taggedFile(_ s: TemporaryFolder, _ name: String = "tagged.mp3") throws -> String {
        try s.mp3(name, rate: Self.rate, channels: 1, frames: Self.rate * 5 / 2) { i, _ in
            guard i < 2 * Self.rate else { return 0 }
            let noise = Float((i &* 1_103_515_245 &+ 12_345) & 0xFFFF) / 65_536 - 0.5
            return (i / (Self.rate / 2)) % 2 == 0 ? 0.5 * noise : 0.05 * Float(sin(Double(i) * 0.0627))
        }
    }

    func write(_ bytes: [UInt8], _ s: TemporaryFolder, _ name: String) throws -> String {
        let path = s.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// `info`, the waveform and a render's plan all use the length the decoder gives for a VBR file without a
    /// tag, and a playlist's next item starts on the frame after its last one: no gap, no overlap.
    @Test func aVBRFileWithoutATagIsPlannedByItsDecodedLength() throws {
        let s = try TemporaryFolder()
        let untagged = try write(MPEGBytes.withoutTagFrame(try bytes(try taggedFile(s))), s, "untagged.mp3")
        let decoded = try readAll(try AudioFile.open(path: untagged)).count

        let info = try CLI.run(["info", untagged])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("(\(decoded) frames)"), "\(info.stdout)")
        let waveform = try CLI.run(["waveform", untagged, "-o", s.path("w.json")])
        #expect(waveform.status == 0, "\(waveform.stderr)")
        #expect(waveform.stdout.contains("(\(decoded) frames)"), "\(waveform.stdout)")

        // The playlist's second item is a constant 0.5 (under the limiter's ceiling, so untouched), faded in over
        // the 1 ms (44-frame) crossfade that ends where the first item's last frame is: full from frame
        // `decoded` on, and not yet begun 45 frames before (where the first item's silent tail plays).
        _ = try s.wav("dc.wav", rate: Self.rate, frames: Self.rate / 10) { _, _ in 0.5 }
        let preset = try s.write("p.json", """
            { "duration": 5, "output": { "sampleRate": \(Self.rate), "channels": 1, "bitDepth": "float" },
              "tracks": [ { "playlist": { "files": ["untagged.mp3", "dc.wav"], "crossfade": "1ms" } } ] }
            """)
        let render = try CLI.run([preset, "-o", s.path("out.wav"), "-q"])
        #expect(render.status == 0, "\(render.stderr)")
        let out = try readAll(try AudioFile.open(path: s.path("out.wav")))
        #expect(abs(out[decoded] - 0.5) < 1e-4 && abs(out[decoded - 1] - 0.5) > 1e-4, "\(out[(decoded - 2)...(decoded + 1)])")
        #expect(abs(out[decoded - 45]) < 1e-3, "\(out[decoded - 45])")
    }

    /// A file cut short (its tag announces more than it holds) renders as far as it goes, with one warning
    /// naming the track and the file; `info` says it too; `-q` keeps it quiet.
    @Test func aFileCutShortIsRenderedWithOneWarning() throws {
        let s = try TemporaryFolder()
        let whole = try bytes(try taggedFile(s))
        let cut = try write(Array(whole[..<(whole.count / 2 + 77)]), s, "cut.mp3")
        let preset = try s.write("p.json", #"{ "duration": 3, "tracks": [ { "file": "cut.mp3" } ] }"#)

        let render = try CLI.run([preset, "-o", s.path("out.ogg")])
        #expect(render.status == 0, "\(render.stderr)")
        let lines = render.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(render.stderr)")
        #expect(lines.first?.hasPrefix("warning: \(preset): tracks[0].file: '\(cut)': the file ends early: its header announces 2.5 s of audio") == true,
                "\(render.stderr)")
        #expect(try CLI.run([preset, "-o", s.path("quiet.ogg"), "-q"]).stderr.isEmpty)

        let info = try CLI.run(["info", cut])
        #expect(info.status == 0)
        #expect(info.stdout.contains("warning   the file ends early"), "\(info.stdout)")
    }

    /// Garbage in the middle of a stream (a damaged copy): the file is read up to the damage, with one warning,
    /// and the decoder library's notes ("Note: Illegal Audio-MPEG-Header ...", "Trying to resync ...", which
    /// libsndfile's MP3 reader let through) never reach the terminal.
    @Test func aDamagedFileRendersWithOneWarningAndNoChatter() throws {
        let s = try TemporaryFolder()
        var damaged = try bytes(try taggedFile(s))
        for i in (damaged.count / 3)..<(damaged.count / 3 + 500) { damaged[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 7) }
        let path = try write(damaged, s, "damaged.mp3")
        let preset = try s.write("p.json", #"{ "duration": 3, "tracks": [ { "file": "damaged.mp3" } ] }"#)
        for arguments in [[preset, "-o", s.path("out.ogg")], ["waveform", path, "-o", s.path("w.json")]] {
            let r = try CLI.run(arguments)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("warning: ") && lines[0].contains("the file ends early"), "\(r.stderr)")
        }
    }
}
