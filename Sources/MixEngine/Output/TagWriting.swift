import MixIO

/// The finishing step that writes the tags, the chapter marks and ReplayGain into the finished temporary file,
/// where the format has them (docs/tags.md): Vorbis comments, or ID3v2 frames (and RIFF INFO in WAV). CAF's tags
/// were written by libsndfile; an RF64 WAV is not given this step (see `OutputPlan.fileWarnings`).
/// A value with no state; allocates the comments.
struct TagWriting: FinishingStep {
    func finish(_ context: inout FinishingContext) throws {
        let settings = context.output.settings, chapters = context.output.chapters
        let destination = context.file.destination, temporaryPath = context.file.temporaryPath
        let frameCount = context.output.fileFrames(rendered: context.summary.frameCount)
        var fields = settings.tagFields.comments + ReplayGain.comments(context.fileLoudness ?? context.summary.loudness, format: settings.format)
        var id3Chapters: [ChapterMark]?
        if settings.format.carriesVorbisComments {
            fields += Chapters.comments(chapters)
        } else if settings.format != .m4a {   // an M4A's chapter track is muxed with the audio (`RenderJob.write`)
            id3Chapters = Chapters.closed(chapters, frameCount: frameCount)
        }
        // A file with room reserved is always tagged: that removes the placeholder (FileTags.roomMarker).
        guard !fields.isEmpty || id3Chapters?.isEmpty == false || settings.tagRoomBytes > 0 else { return }
        do { try FileTags.write(path: temporaryPath, format: settings.format, fields: fields, chapters: id3Chapters) } catch {
            // MixIO's error names the temporary file; the destination is named already.
            let reason = (error as? AudioIOError).map { $0.function.isEmpty ? $0.reason : "\($0.reason) (\($0.function))" } ?? "\(error)"
            throw EngineError.output(path: destination, reason: "cannot write its tags, chapters and ReplayGain: \(reason)")
        }
        // TagLib ignores failed writes: the file must still hold every frame (a header read for libsndfile's
        // formats; an M4A's length would take a decode, and its disk room was reserved all the same).
        if settings.format != .m4a {
            let frames = (try? AudioFileInfo.read(path: temporaryPath))?.frameCount
            if frames != frameCount {
                throw EngineError.output(path: destination, reason: "writing its tags cut the file short (\(frames.map(String.init) ?? "unreadable") of \(frameCount) frames); the disk may be full")
            }
        }
    }
}
