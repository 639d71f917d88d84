import MixIO

/// Joins lossless parts of one render (windows rendered with `--start`/`--end`, on one machine or several) into
/// one file, sample-exactly: the output's samples are the parts' samples, one part after the other.
///
/// `init` opens every part and checks everything before anything is written: each part is lossless (PCM in
/// WAV/RF64/AIFF, FLAC, ALAC in CAF, or float), all share rate and channels, their sample formats can be written
/// as they are, the output's extension is a lossless format and the output is none of the parts. `run` copies
/// block by block (memory does not grow with duration) into an `AtomicOutputFile`, so an error or Ctrl-C
/// leaves nothing at the output path.
///
/// Exactness: integer parts are copied as integers (`sf_readf_int`, `sf_writef_int`), never through float.
/// libsndfile scales integers by shifts, so a 16-bit sample reads as `x << 16` and is written back as the same
/// `x`, into 16 bits or (widened, exact) into 24. Float parts are copied as floats, which libsndfile does not
/// scale between float files. (libsndfile 1.2.0 reads 16-bit PCM as x/32768 but, unless clipping is on, writes
/// float back with ×32767: half the positive samples would come back 1 LSB low; `SoundFileWriter` turns clipping
/// on, which makes the float path exact too, but the integer path does not depend on a flag.)
///
/// Layout: the parts (paths, infos, open readers), the output settings. `init` opens the readers and keeps
/// them until `run`; `run` allocates one block buffer. Not thread-safe: one thread at a time.
public final class JoinJob {
    /// One part, as opened and checked.
    public struct Part {
        public let path: String
        public let info: AudioFileInfo
        public let sampleFormat: OutputSampleFormat
        let reader: SoundFileReader
    }

    public let parts: [Part]
    public let outputPath: String
    public let settings: OutputSettings
    /// The frames the output will hold: the sum of the parts' frames.
    public let frameCount: Int64

    /// Frames per block copied.
    static let blockFrames = 4096

    /// Opens and checks `partPaths` (in order) and the output `outputPath`; throws the first problem found.
    public init(parts partPaths: [String], output outputPath: String) throws {
        guard !partPaths.isEmpty else {
            throw EngineError.output(path: outputPath, reason: "no parts to join; give the parts' files in order")
        }
        // The output first: a lossy or unknown extension is refused before any part is opened.
        guard let format = OutputFileFormat.from(path: outputPath) else {
            throw EngineError.output(path: outputPath, reason: "unknown extension; join writes .wav, .flac, .aiff or .caf")
        }
        guard format.isPCM else {
            throw EngineError.output(path: outputPath, reason: "\(format.displayName) is lossy, and a join must keep every sample as it is; write .wav, .flac, .aiff or .caf")
        }
        try AtomicOutputFile.check(destination: outputPath)
        // The output may be none of the parts, however spelled (FileAccess).
        var access = FileAccess()
        for path in partPaths { access.reads(path, as: "one of the parts") }
        access.writes(outputPath, as: "the output")
        try access.check()

        var opened: [Part] = []
        for path in partPaths {
            if let named = OutputFileFormat.from(path: path), !named.isPCM {
                throw EngineError.part(path: path, reason: Self.lossyReason(named.displayName))
            }
            // A missing, unreadable or unrecognised part: MixIO's error names the file and the reason.
            let reader = try SoundFileReader(path: path)
            let info = reader.info
            if reader.isLossy {
                throw EngineError.part(path: path, reason: Self.lossyReason(info.formatName))
            }
            guard let sampleFormat = reader.storedSampleFormat else {
                throw EngineError.part(path: path, reason: "\(info.formatName) is not a sample format join writes back as it is (16- or 24-bit PCM, ALAC, or 32-bit float)")
            }
            if reader.isCutShort {
                throw EngineError.part(path: path, reason: "the file is cut short: its header promises more audio than it holds (an interrupted copy?)")
            }
            if let first = opened.first {
                if info.sampleRate != first.info.sampleRate || info.channelCount != first.info.channelCount {
                    let (mine, theirs) = info.sampleRate != first.info.sampleRate
                        ? ("\(info.sampleRate) Hz", "\(first.info.sampleRate) Hz")
                        : (Self.channels(info.channelCount), Self.channels(first.info.channelCount))
                    throw EngineError.part(path: path, reason: "\(mine), but '\(first.path)' is \(theirs); parts must share rate and channels")
                }
                if (sampleFormat == .float32) != (first.sampleFormat == .float32) {
                    throw EngineError.part(path: path, reason: "\(Self.name(sampleFormat)) samples, but '\(first.path)' has \(Self.name(first.sampleFormat)); parts must all be integer PCM or all float (no conversion between them is exact)")
                }
            }
            opened.append(Part(path: path, info: info, sampleFormat: sampleFormat, reader: reader))
        }
        // Parts rendered as windows carry which window they are: they must tile one render, in order.
        try WindowMark.checkTiling(try opened.map { part in
            (part.path, part.info.frameCount, try FileTags.detectFormat(path: part.path).flatMap { try WindowMark.read(part: part.path, format: $0) })
        })
        parts = opened
        self.outputPath = outputPath
        frameCount = opened.reduce(0) { $0 + $1.info.frameCount }

        // The widest of the parts' formats: 16-bit parts among 24-bit ones are widened (a shift, exact).
        let sampleFormat: OutputSampleFormat = opened.contains { $0.sampleFormat == .float32 } ? .float32
            : opened.contains { $0.sampleFormat == .pcm24 } ? .pcm24 : .pcm16
        let first = opened[0]
        var settings = OutputSettings(format: format, sampleRate: first.info.sampleRate, channelCount: first.info.channelCount,
                                      sampleFormat: sampleFormat, title: first.info.tags.title,
                                      artist: first.info.tags.artist, comment: first.info.tags.comment)
        settings.expectedFrameCount = frameCount   // a WAV past 4 GiB of data becomes RF64
        if sampleFormat == .float32 && (format == .flac || format == .caf) {
            throw EngineError.output(path: outputPath, reason: "the parts hold 32-bit float samples, which \(format.displayName) cannot store; write .wav or .aiff")
        }
        if let problem = AudioFileWriter.validate(settings: settings) {
            throw EngineError.output(path: outputPath, reason: "\(problem)")
        }
        self.settings = settings
    }

    /// Copies the parts into the output, block by block, through a temporary file renamed into place when
    /// complete. Each part must give exactly the frames its header announced (a FLAC cut short fails here);
    /// on any error the temporary file is removed and nothing is left at the output path.
    public func run() throws -> JoinResult {
        let file = try AtomicOutputFile(destination: outputPath)
        do {
            let writer = try AudioFileWriter.openLossless(path: file.temporaryPath, settings: settings, displayPath: outputPath)
            let samples = Self.blockFrames * settings.channelCount
            if settings.sampleFormat == .float32 {
                var buffer = [Float](repeating: 0, count: samples)
                try buffer.withUnsafeMutableBufferPointer { b in
                    for part in parts {
                        try copy(part) { try part.reader.read(into: b.baseAddress!, frames: Self.blockFrames) }
                            write: { try writer.write(interleaved: b.baseAddress!, frames: $0) }
                    }
                }
            } else {
                var buffer = [Int32](repeating: 0, count: samples)
                try buffer.withUnsafeMutableBufferPointer { b in
                    for part in parts {
                        try copy(part) { try part.reader.readIntegers(into: b.baseAddress!, frames: Self.blockFrames) }
                            write: { try writer.write(interleavedIntegers: b.baseAddress!, frames: $0) }
                    }
                }
            }
            try writer.finish()
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        return JoinResult(outputPath: outputPath, partCount: parts.count, frameCount: frameCount, sampleRate: settings.sampleRate,
                          channelCount: settings.channelCount, sampleFormat: settings.sampleFormat, format: settings.format,
                          outputBytes: FileSystem.identity(of: outputPath).map { Int64($0.size) })
    }

    /// Reads `part` to its end block by block and writes each block; throws if it held other than the frames
    /// its header announced.
    private func copy(_ part: Part, read: () throws -> Int, write: (Int) throws -> Void) throws {
        var copied: Int64 = 0
        while true {
            let count = try read()
            if count == 0 { break }
            try write(count)
            copied += Int64(count)
        }
        if copied != part.info.frameCount {
            throw EngineError.part(path: part.path, reason: "its header announces \(part.info.frameCount) frames, but \(copied) could be read; the file is damaged or cut short")
        }
    }

    private static func lossyReason(_ name: String) -> EngineReason {
        "\(name) is lossy: each part carries its own encoder delay and padding, so joined parts are not sample-exact; render the parts as .flac, .wav, .aiff or .caf"
    }

    private static func channels(_ count: Int) -> String { count == 1 ? "1 channel" : "\(count) channels" }

    private static func name(_ format: OutputSampleFormat) -> String {
        switch format {
        case .pcm16: return "16-bit integer"
        case .pcm24: return "24-bit integer"
        case .float32: return "32-bit float"
        }
    }
}
