import Foundation

/// The small files in `Tests/Fixtures/ffmpeg`, made by `make-fixtures.sh` beside them (which the tests do
/// not need) for the formats only FFmpeg reads here, and the signal they were encoded from.
public enum FFmpegFixtures {
    /// `Tests/Fixtures/ffmpeg`: this file is `<root>/Tests/Support/TestSupport/FFmpegFixtures.swift`.
    public static let folder: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ffmpeg", isDirectory: true)

    public static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// One encoded file: its name, what it holds, and what FFmpeg 5.1 decodes from it.
    public struct Fixture: Sendable, CustomStringConvertible {
        public var name: String
        public var formatName: String
        public var sampleRate: Int
        public var channelCount: Int
        /// Frames `FFmpegFileReader` decodes: the signal's 1.5 s, plus the encoder's padding where the
        /// container does not say to trim it (WebM Vorbis; the reader applies the end of MP4's edit list).
        public var frameCount: Int64
        public var path: String { FFmpegFixtures.path(name) }
        public var description: String { name }
    }

    public static let memo = Fixture(name: "memo-48k-mono.m4a", formatName: "AAC (MPEG-4)", sampleRate: 48_000,
                                     channelCount: 1, frameCount: 72_000)
    public static let stereoMP4 = Fixture(name: "stereo-44k.mp4", formatName: "AAC (MPEG-4)", sampleRate: 44_100,
                                          channelCount: 2, frameCount: 66_150)
    public static let opusWebM = Fixture(name: "opus-48k-mono.webm", formatName: "Opus (WebM)", sampleRate: 48_000,
                                         channelCount: 1, frameCount: 72_000)
    public static let vorbisWebM = Fixture(name: "vorbis-44k-stereo.webm", formatName: "Vorbis (WebM)",
                                           sampleRate: 44_100, channelCount: 2, frameCount: 66_880)
    public static let all = [memo, stereoMP4, opusWebM, vorbisWebM]

    /// The source signal, sample n of channel c at `rate`: a 440 Hz sine at 0.4 (660 Hz at 0.3 on a second
    /// channel), plus a 1 kHz burst at 0.4 from 0.75 s for 0.1 s, as `make-fixtures.sh` has FFmpeg's
    /// aevalsrc make it.
    public static func source(rate: Int) -> (Int, Int) -> Float {
        { n, c in
            let t = Double(n) / Double(rate)
            let tone = c == 0 ? 0.4 * sin(2 * Double.pi * 440 * t) : 0.3 * sin(2 * Double.pi * 660 * t)
            let inBurst = t >= burstStart && t <= burstStart + 0.1 - 1 / (2 * Double(rate))
            return Float(tone + (inBurst ? 0.4 * sin(2 * Double.pi * 1000 * (t - burstStart)) : 0))
        }
    }

    /// Where the burst starts, in seconds.
    public static let burstStart = 0.75
    /// The signal's length, in seconds.
    public static let seconds = 1.5
}
