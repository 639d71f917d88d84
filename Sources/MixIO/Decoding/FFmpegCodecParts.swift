import CFFmpeg

/// A codec's context with the packet and the frame it works with, allocated together (`avcodec_alloc_context3`,
/// `av_packet_alloc`, `av_frame_alloc`) and freed together when released (`av_frame_free`, `av_packet_free`,
/// `avcodec_free_context`): the one teardown of FFmpeg's decoder (`FFmpegPacketDecoder`) and encoder
/// (`FFmpegFileWriter`). An owner that fails halfway through its `init` lets go of its parts, which frees them.
///
/// Layout: three pointers into FFmpeg's memory. Not thread-safe: its owner's thread.
final class FFmpegCodecParts {
    let codec: UnsafeMutablePointer<AVCodecContext>
    let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>

    /// The three parts for `coder` (a decoder or an encoder); nil when FFmpeg is out of memory (whatever was made
    /// is freed).
    init?(for coder: UnsafePointer<AVCodec>) {
        var codec = FFmpeg.av.avcodec_alloc_context3(coder)
        var packet = FFmpeg.av.av_packet_alloc()
        var frame = FFmpeg.av.av_frame_alloc()
        guard let madeCodec = codec, let madePacket = packet, let madeFrame = frame else {
            Self.free(&codec, &packet, &frame)
            return nil
        }
        self.codec = madeCodec
        self.packet = madePacket
        self.frame = madeFrame
    }

    deinit {
        var codec: UnsafeMutablePointer<AVCodecContext>? = codec
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        Self.free(&codec, &packet, &frame)
    }

    private static func free(_ codec: inout UnsafeMutablePointer<AVCodecContext>?, _ packet: inout UnsafeMutablePointer<AVPacket>?,
                             _ frame: inout UnsafeMutablePointer<AVFrame>?) {
        FFmpeg.av.av_frame_free(&frame)
        FFmpeg.av.av_packet_free(&packet)
        FFmpeg.av.avcodec_free_context(&codec)
    }
}
