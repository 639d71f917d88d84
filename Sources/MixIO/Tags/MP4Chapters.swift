import CFFmpeg

/// The chapters of an MP4/M4A file as libavformat reads them (a QuickTime chapter track or a Nero `chpl` box,
/// which `FFmpegFileWriter` writes): TagLib 1.13 reads MP4 tags but not chapters.
///
/// No state; `read` opens the file, reads its chapters and closes it. Safe from several threads at once.
enum MP4Chapters {
    static func read(path: String) throws -> [ChapterMark] {
        try FFmpeg.loadContainers(for: path, operation: "read the chapters of")
        var format: UnsafeMutablePointer<AVFormatContext>?
        let opened = FFmpeg.format.avformat_open_input(&format, path, nil, nil)
        guard opened >= 0, let context = format else { throw FFmpeg.error(path, "avformat_open_input", code: opened, operation: "read the chapters of") }
        defer { FFmpeg.format.avformat_close_input(&format) }
        // It also sets the end of a chapter whose container gives none (Nero `chpl`): the next start, or the file's end.
        let found = FFmpeg.format.avformat_find_stream_info(context, nil)
        guard found >= 0 else { throw FFmpeg.error(path, "avformat_find_stream_info", code: found, operation: "read the chapters of") }
        return (0..<Int(context.pointee.nb_chapters)).map { i in
            let chapter = context.pointee.chapters[i]!.pointee
            func milliseconds(_ t: Int64) -> Int64 {
                Int64(UInt32(clamping: (Int64(1000) * t * Int64(chapter.time_base.num) + Int64(chapter.time_base.den) / 2) / Int64(chapter.time_base.den)))
            }
            let title = FFmpeg.av.av_dict_get(chapter.metadata, "title", nil, 0).map { String(cString: $0.pointee.value) } ?? ""
            return ChapterMark(name: title, frame: milliseconds(chapter.start), end: milliseconds(chapter.end), sampleRate: 1000)
        }
    }
}
