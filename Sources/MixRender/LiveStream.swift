import Foundation
import MixEngine
import MixIO

/// A render also written as HTTP Live Streaming while it runs, so a listener can start before it ends
/// (docs/serve.md, "Listen while it renders"): AAC in fMP4 segments of about `segmentSeconds`, cut from one
/// continuous encoder stream fed the frames the files get (after the master chain and any loudness gain), so
/// segments join without a gap. `folder` (which must exist) gets `index.m3u8`, `init.mp4` and `seg00000.m4s`, ...,
/// each renamed into place when whole. The playlist is an EVENT playlist while the render runs and ends with
/// `#EXT-X-ENDLIST`; once the render is done it is made a VOD playlist. The stream is the first encoding: where a
/// delivered file was encoded again to meet its true-peak ceiling, the stream is not that second encoding.
public struct LiveStream: Sendable {
    public var folder: String
    public var segmentSeconds: Double
    /// The AAC encoding: the m4a output's own when the render writes one with its own quality, bitrate, rate or channels, so the
    /// stream is that file's first encoding (nil: the preset's, as a plain m4a output).
    public var encoding: OutputEncoding?

    public static let playlistName = "index.m3u8"

    public init(folder: String, segmentSeconds: Double = 2, encoding: OutputEncoding? = nil) {
        self.folder = folder
        self.segmentSeconds = segmentSeconds
        self.encoding = encoding
    }

    public var playlistPath: String { folder + "/" + Self.playlistName }

    /// The tap that writes it, at the output (what the files get), on a thread of its own.
    func tap(job: RenderJob, blockFrames: Int) throws -> RenderTap {
        let source = job.outputSource.encoded(encoding)
        var settings = source.settings(format: .m4a)
        settings.tagFields = TagFields()
        let writer = try FFmpegFileWriter(path: playlistPath, settings: settings, container: .hls(segmentSeconds: segmentSeconds))
        // The m4a output's own rate and channels, when it has them: the stream is that file's first encoding.
        let encoder = try source.conversion?.encoder(feeding: writer, frameCount: source.frameCount, blockFrames: blockFrames) ?? writer
        let channels = job.plan.channelCount
        return RenderTap(.output, ThreadedTap(EncoderSink(encoder, channelCount: channels, blockFrames: blockFrames),
                                              channelCount: channels, blockFrames: blockFrames, name: "mixrender-hls"))
    }

    /// The finished stream's playlist made a VOD playlist (written whole, then renamed over the EVENT one).
    func finish() throws {
        let bytes = try FileSystem.readDocument(path: playlistPath, maximumBytes: 64 << 20)
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("#EXT-X-PLAYLIST-TYPE:EVENT") else { return }
        let vod = text.replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:EVENT", with: "#EXT-X-PLAYLIST-TYPE:VOD")
        let temporary = folder + "/.index.m3u8.vod"
        try FileSystem.writeFile(path: temporary, bytes: Array(vod.utf8))
        try FileSystem.rename(temporary, to: playlistPath)
    }
}
