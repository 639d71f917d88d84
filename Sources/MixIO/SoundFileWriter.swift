import CSndFile
import Glibc
import MixDSP

/// Encodes interleaved `Float` frames with libsndfile: Ogg Vorbis, FLAC, WAV, MP3 (LAME), Ogg Opus, ALAC in CAF
/// and AIFF.
///
/// Layout: an opaque libsndfile handle (nil once finished), the path, the settings and a frame count.
/// `init` allocates (libsndfile's and the encoder's state); `write` allocates nothing in Swift, except
/// an error's message. Not thread-safe: one thread at a time (in a render, `write` on the encoder thread,
/// then `finish` on the render thread). As for the reader, a failed create's reason comes from
/// libsndfile's process-wide last error.
public final class SoundFileWriter: AudioEncoder {
    /// Frames per `sf_writef_float` call: libvorbis puts a whole call's frames on the stack.
    public static let maxFramesPerCall = 4096

    public let path: String
    /// The name errors give: the destination, when `path` is a temporary file beside it.
    public let displayPath: String
    public let settings: OutputSettings
    private var handle: OpaquePointer?
    /// Where the bytes go: the file or descriptor, and the first failed write's `errno` (see `SoundFileOutput`).
    private let output: SoundFileOutput
    /// For 16-bit output: one call's samples as 16-bit integers (`shortSamples`), allocated in `init`.
    private let shortBuffer: UnsafeMutablePointer<Int16>?
    /// For 24-bit output: one call's samples as 32-bit integers (`integerSamples`), allocated in `init`.
    private let integerBuffer: UnsafeMutablePointer<Int32>?
    /// Frames written so far.
    public private(set) var framesWritten: Int64 = 0

    /// Checks `settings` (see `validate(settings:)`), creates `path` with `sf_open` (`SFM_WRITE`), sets
    /// the encoder up explicitly (`SFC_SET_NORM_FLOAT` on, `SFC_SET_SCALE_INT_FLOAT_WRITE` off,
    /// `SFC_SET_CLIPPING` on for integer output, `SFC_SET_ADD_PEAK_CHUNK` off,
    /// `SFC_SET_VBR_ENCODING_QUALITY` for Vorbis) and stores the tags with `sf_set_string`.
    public convenience init(path: String, settings: OutputSettings, displayPath: String? = nil) throws {
        try self.init(path: path, settings: settings, displayPath: displayPath, validating: true)
    }

    /// As above; `validating: false` skips `validate` (for tests that show what a refused setting would do).
    convenience init(path: String, settings: OutputSettings, displayPath: String?, validating: Bool) throws {
        try self.init(path: path, settings: settings, displayPath: displayPath, validating: validating) {
            try SoundFileOutput(creating: path, displayPath: displayPath ?? path)
        }
    }

    /// Encodes into the open file descriptor `descriptor` (standard output, say) with `sf_open_fd`, which it
    /// does not close. On a pipe libsndfile never seeks: Ogg Vorbis and Opus are exact by their granule
    /// positions as ever; FLAC's header says neither the length nor the MD5 (decoders read to the end); and
    /// an MP3 has no LAME header, so it is not gapless (libsndfile leaves the tag out when it cannot seek back to
    /// write it). Only formats that `OutputFileFormat.canStream` are taken. `displayPath` names the stream in
    /// errors.
    public convenience init(fileDescriptor descriptor: Int32, settings: OutputSettings, displayPath: String) throws {
        guard settings.format.canStream else {
            throw AudioIOError(path: displayPath, function: "", reason: settings.format.streamRefusal ?? "cannot be streamed", operation: "create")
        }
        try self.init(path: displayPath, settings: settings, displayPath: displayPath, validating: true) {
            SoundFileOutput(descriptor: descriptor)
        }
    }

    private init(path: String, settings: OutputSettings, displayPath: String?, validating: Bool,
                 makeOutput: () throws -> SoundFileOutput) throws {
        self.path = path
        self.displayPath = displayPath ?? path
        self.settings = settings
        if validating, let problem = Self.validate(settings: settings) {
            throw AudioIOError(path: displayPath ?? path, function: "sf_format_check", reason: problem, operation: "create")
        }
        var info = Self.sfInfo(settings)
        let handle: OpaquePointer
        do {
            let made = try makeOutput()
            output = made
            // libsndfile's ALAC encoder opens a scratch file of its own: in a folder made for it (ALACScratchFolder),
            // which needs room for the audio uncompressed.
            let bytesNeeded = settings.expectedFrameCount.map { $0 * Int64(settings.channelCount * settings.sampleFormat.bytesPerSample) }
            handle = settings.format == .caf
                ? try ALACScratchFolder.opening(displayPath: self.displayPath, bytesNeeded: bytesNeeded) {
                    try made.open(info: &info, displayPath: displayPath ?? path)
                }
                : try made.open(info: &info, displayPath: self.displayPath)
        } catch var error as AudioIOError {
            error.path = self.displayPath
            throw error
        }
        self.handle = handle
        let isInteger = settings.format.isPCM && settings.sampleFormat != .float32
        shortBuffer = isInteger && settings.sampleFormat == .pcm16 ? .allocate(capacity: Self.maxFramesPerCall * settings.channelCount) : nil
        integerBuffer = isInteger && settings.sampleFormat != .pcm16 ? .allocate(capacity: Self.maxFramesPerCall * settings.channelCount) : nil

        SndFile.setFlag(handle, SFC_SET_NORM_FLOAT, true)
        SndFile.setFlag(handle, SFC_SET_SCALE_INT_FLOAT_WRITE, false)
        SndFile.setFlag(handle, SFC_SET_ADD_PEAK_CHUNK, false)
        if settings.format.isPCM && settings.sampleFormat != .float32 {
            SndFile.setFlag(handle, SFC_SET_CLIPPING, true)
        }
        if settings.format == .oggVorbis {
            var quality = settings.vorbisQuality
            let isSet = sf_command(handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &quality,
                                   Int32(MemoryLayout<Double>.size))
            if isSet != Int32(SF_TRUE) {
                throw failure("sf_command", "Vorbis quality \(quality) was refused: \(SndFile.lastReason(handle))")
            }
        }
        if settings.format == .mp3 || settings.format == .opus {
            // The bitrate goes through libsndfile's "compression level" (0 best, 1 smallest), which it maps per
            // codec (see `compressionLevel`). libsndfile 1.2 answers SFC_SET_BITRATE_MODE with 0 whatever the
            // mode, so only the level is checked.
            var mode = Int32(settings.format == .mp3 && settings.bitrateKbps != nil ? SF_BITRATE_MODE_CONSTANT : SF_BITRATE_MODE_VARIABLE)
            var level = Self.compressionLevel(settings)
            sf_command(handle, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
            if sf_command(handle, Int32(SFC_SET_COMPRESSION_LEVEL), &level, Int32(MemoryLayout<Double>.size)) != Int32(SF_TRUE) {
                let what = settings.bitrateKbps.map { "\($0) kbit/s" } ?? "quality \(settings.vorbisQuality)"
                throw failure("sf_command", "the \(settings.format.displayName) encoder refused \(what): \(SndFile.lastReason(handle))")
            }
        }
        // Tags are written once, by one writer. When FileTags writes them into the finished file (a render to a
        // file), libsndfile stores none: in a WAV it would put its INFO list before the audio, and TagLib rewriting
        // that list moved the whole data chunk in 1 KiB steps (a second of a 30-minute render). Otherwise (a
        // stream, a CAF, an RF64 WAV, a join) libsndfile stores what it can: in CAF's 'info' chunk every known key,
        // elsewhere title, artist and comment.
        let stringKinds = settings.tagsWrittenAfterwards ? []
            : settings.format == .caf ? Self.stringKinds : Array(Self.stringKinds.prefix(3))
        // Room for the tags written afterwards (FLAC: a Vorbis comment block; MP3: LAME's ID3v2 tag), held by one
        // placeholder comment that FileTags removes when it writes them (see OutputSettings.tagRoomBytes).
        if settings.tagsWrittenAfterwards && settings.tagRoomBytes > 0 && (settings.format == .flac || settings.format == .mp3) {
            let marker = FileTags.roomMarker
            let placeholder = marker + String(repeating: " ", count: max(0, settings.tagRoomBytes - marker.utf8.count))
            let code = sf_set_string(handle, Int32(SF_STR_COMMENT), placeholder)
            if code != 0 { throw failure("sf_set_string", "cannot reserve room for tags: \(SndFile.reason(forCode: code))") }
        }
        for (kind, key) in stringKinds {
            guard let values = settings.tagFields[key] else { continue }
            let text = values.joined(separator: "/")
            let code = sf_set_string(handle, Int32(kind), text)
            if code != 0 { throw failure("sf_set_string", "cannot store tags: \(SndFile.reason(forCode: code))") }
        }
    }

    /// Closes with `sf_close` if `finish()` was not called (errors are lost then; call `finish()`).
    deinit {
        if let handle { sf_close(handle) }
        shortBuffer?.deallocate()
        integerBuffer?.deallocate()
    }

    /// Writes `frames` interleaved frames, at most `maxFramesPerCall` per call, and checks that every frame was
    /// taken. Float and lossy output goes to libsndfile as floats (`sf_writef_float`); integer output (16- or
    /// 24-bit WAV, AIFF, FLAC, ALAC) is rounded here and written as integers (16-bit by `shortSamples` and
    /// `sf_writef_short`, whose samples libsndfile writes as they are; 24-bit by `integerSamples` and
    /// `sf_writef_int`), so that every integer format holds the same samples: libsndfile converts floats
    /// differently per codec (its PCM and ALAC paths scale to 32 bits and drop the low bits, truncating; its FLAC
    /// path rounds), and a 16-bit FLAC differed from the WAV of the same render by 1 LSB in about half the samples.
    public func write(interleaved: UnsafePointer<Float>, frames: Int) throws {
        let channelCount = settings.channelCount
        if let shortBuffer {
            try writeFrames(frames, function: "sf_writef_short") { handle, done, count in
                Self.shortSamples(interleaved + done * channelCount, count: count * channelCount, into: shortBuffer)
                return sf_writef_short(handle, shortBuffer, sf_count_t(count))
            }
            return
        }
        if let integerBuffer {
            try writeFrames(frames, function: "sf_writef_int") { handle, done, count in
                Self.integerSamples(interleaved + done * channelCount, count: count * channelCount, bits: 24, into: integerBuffer)
                return sf_writef_int(handle, integerBuffer, sf_count_t(count))
            }
            return
        }
        try writeFrames(frames, function: "sf_writef_float") { handle, done, count in
            sf_writef_float(handle, interleaved + done * channelCount, sf_count_t(count))
        }
    }

    /// Rounds `count` samples (full scale ±1) to the nearest `bits`-bit integer (ties to even), clipped to
    /// `-2^(bits-1)...2^(bits-1) - 1` (NaN to 0), and stores each shifted to the top of an `Int32`, as libsndfile's
    /// `sf_writef_int` takes them: `round(x * 2^(bits-1)) << (32 - bits)`.
    ///
    /// Rounding adds 1.5 · 2^52 in `Double` (exact for these magnitudes, ties to even as the FPU rounds): the sum
    /// has no fraction bits, and its bit pattern less the constant's is the rounded value as an integer. Every
    /// step is one the compiler vectorises: a conversion `Int32(x)` checks its range and kept the loop scalar
    /// (4 ns a sample, against 0.6 now), and `rounded()` is a libm call per sample on the baseline x86-64 target.
    static func integerSamples(_ source: UnsafePointer<Float>, count: Int, bits: Int, into destination: UnsafeMutablePointer<Int32>) {
        let scale = Double(1 << (bits - 1))
        let high = scale - 1, low = -scale
        let shift = Int32(32 - bits)
        let magic = 6_755_399_441_055_744.0   // 1.5 · 2^52
        let magicBits = Int64(bitPattern: magic.bitPattern)
        for i in 0..<count {
            let x = Double(source[i]) * scale
            let clipped = x >= high ? high : x <= low ? low : x == x ? x : 0   // NaN (x != x) to 0
            destination[i] = Int32(truncatingIfNeeded: Int64(bitPattern: (clipped + magic).bitPattern) &- magicBits) &<< shift
        }
    }

    /// What `integerSamples` gives for 16 bits, shifted down to 16-bit integers (`sf_writef_short`'s), computed in
    /// `Float`: scaling by 2^15 is exact, and after clipping, 1.5 · 2^23 rounds as 1.5 · 2^52 does in `Double` (the
    /// sum's spacing is 1 for every clipped value). About 0.4 ns a sample.
    static func shortSamples(_ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutablePointer<Int16>) {
        let magic: Float = 12_582_912   // 1.5 · 2^23
        let magicBits = Int32(bitPattern: magic.bitPattern)
        for i in 0..<count {
            let x = source[i] * 32768
            let clipped: Float = x >= 32767 ? 32767 : x <= -32768 ? -32768 : x == x ? x : 0   // NaN (x != x) to 0
            destination[i] = Int16(truncatingIfNeeded: Int32(bitPattern: (clipped + magic).bitPattern) &- magicBits)
        }
    }

    /// Writes `frames` interleaved frames of 32-bit integers with `sf_writef_int`, at most `maxFramesPerCall` per
    /// call, and checks that every frame was taken. libsndfile scales integers by shifts: full scale is
    /// `Int32.min...Int32.max`, a 16-bit file keeps the top 16 bits and a 24-bit file the top 24, so what
    /// `SoundFileReader.readIntegers` gives from a file of the same or a narrower depth is written back exactly
    /// (no float rounding, no clipping flag involved). For PCM and ALAC output only (`settings.format.isPCM`,
    /// not float samples).
    public func write(interleavedIntegers: UnsafePointer<Int32>, frames: Int) throws {
        precondition(settings.format.isPCM && settings.sampleFormat != .float32, "integer writes are for integer PCM output")
        let channelCount = settings.channelCount
        try writeFrames(frames, function: "sf_writef_int") { handle, done, count in
            sf_writef_int(handle, interleavedIntegers + done * channelCount, sf_count_t(count))
        }
    }

    /// Calls `write(handle, framesDone, count)` for chunks of at most `maxFramesPerCall` frames until `frames`
    /// are written; a chunk not taken whole is an error naming `function` and the reason.
    private func writeFrames(_ frames: Int, function: String, _ write: (OpaquePointer, Int, Int) -> sf_count_t) throws {
        precondition(frames >= 0, "frames must not be negative")
        guard let handle else { throw failure(function, "the file is already finished", "write") }
        var done = 0
        while done < frames {
            let count = min(Self.maxFramesPerCall, frames - done)
            let written = write(handle, done, count)
            // Checked even when every frame was taken: libsndfile's MP3 and Ogg encoders ignore failed writes.
            if let code = output.failedWrite(handle) {
                throw AudioIOError(path: displayPath, function: "write", reason: AudioIOError.writeReason(code), operation: "write", code: code)
            }
            if written != count {
                let lost = errno
                if lost == EPIPE {
                    throw failure(function, "the program reading it stopped (the pipe was closed)", "write")
                }
                let message = String(cString: sf_strerror(handle))
                // At the first write libvorbisenc sets itself up; when it refuses, libsndfile says this.
                let reason = message == "Format not recognised."
                    ? "the encoder rejected these settings (\(settings.sampleRate) Hz, \(settings.channelCount) channels)"
                    : SndFile.readable(message)
                throw failure(function, "wrote \(written) of \(count) frames: \(reason)", "write")
            }
            done += count
            framesWritten += Int64(count)
        }
    }

    /// Flushes and closes with `sf_close`, then reports a write that failed meanwhile (the encoders' last
    /// frames, a header's sizes: `SoundFileOutput.close`) or `sf_close`'s error. Calling it again does nothing.
    public func finish() throws {
        guard let handle else { return }
        self.handle = nil
        let code = sf_close(handle)
        try output.close(displayPath: displayPath)
        if code != 0 { throw failure("sf_close", SndFile.reason(forCode: code), "finish") }
    }

    /// libsndfile's string fields and the tag keys they hold (`sf_set_string`), title, artist and comment first.
    static let stringKinds: [(Int, String)] = [
        (SF_STR_TITLE, "TITLE"), (SF_STR_ARTIST, "ARTIST"), (SF_STR_COMMENT, "COMMENT"), (SF_STR_ALBUM, "ALBUM"),
        (SF_STR_DATE, "DATE"), (SF_STR_GENRE, "GENRE"), (SF_STR_TRACKNUMBER, "TRACKNUMBER"), (SF_STR_COPYRIGHT, "COPYRIGHT"),
    ]

    /// Why `settings` cannot be written, in plain words, or nil if they can. Checks what libsndfile's
    /// `sf_format_check` does not (rates, channel counts, quality) and then calls `sf_format_check`.
    /// Call it before rendering anything.
    public static func validate(settings: OutputSettings) -> String? {
        let rates: ClosedRange<Int>, maxChannels: Int
        switch settings.format {
        // libvorbisenc here refuses 384 kHz at the first write; 192 kHz works.
        case .oggVorbis: rates = 1000...192_000; maxChannels = 255
        case .flac: rates = 1...655_350; maxChannels = 8
        case .wav: rates = 1...768_000; maxChannels = 1024
        case .mp3: rates = 8000...48_000; maxChannels = 2
        case .opus: rates = 8000...48_000; maxChannels = 2
        case .caf: rates = 1...384_000; maxChannels = 8
        case .aiff: rates = 1...768_000; maxChannels = 1024
        case .m4a: return "libsndfile does not write AAC; FFmpegFileWriter does"
        }
        let name = settings.format.displayName
        if !rates.contains(settings.sampleRate) {
            return "\(name) cannot be written at \(settings.sampleRate) Hz "
                + "(\(rates.lowerBound)...\(rates.upperBound) Hz)"
        }
        if !(1...maxChannels).contains(settings.channelCount) {
            return "\(name) cannot be written with \(settings.channelCount) channels (1...\(maxChannels))"
        }
        if settings.format == .flac && settings.sampleFormat == .float32 {
            return "FLAC cannot store 32-bit float samples; use pcm16 or pcm24"
        }
        if !settings.format.isPCM && !(0...1).contains(settings.vorbisQuality) {
            return "\(name) quality must be between 0 and 1, not \(settings.vorbisQuality)"
        }
        if settings.format == .opus && !OutputFileFormat.opusRates.contains(settings.sampleRate) {
            return "Ogg Opus cannot be written at \(settings.sampleRate) Hz (it takes "
                + OutputFileFormat.opusRates.map(String.init).joined(separator: ", ") + " Hz; set output.sampleRate or --sample-rate)"
        }
        if let problem = sizeProblem(settings) { return problem }
        if settings.format == .caf && settings.sampleFormat == .float32 {
            return "ALAC in CAF stores 16 or 24 bits; use pcm16 or pcm24"
        }
        if settings.format == .mp3 && !OutputFileFormat.mp3Rates.contains(settings.sampleRate) {
            return "MP3 cannot be written at \(settings.sampleRate) Hz (it takes "
                + OutputFileFormat.mp3Rates.map(String.init).joined(separator: ", ") + " Hz)"
        }
        if let kbps = settings.bitrateKbps {
            switch settings.format {
            case .mp3:
                let allowed = OutputFileFormat.mp3Bitrates(sampleRate: settings.sampleRate)
                if !allowed.contains(kbps) {
                    return "an MP3 at \(settings.sampleRate) Hz has no bitrate of \(kbps) kbit/s (it takes "
                        + allowed.map(String.init).joined(separator: ", ") + ")"
                }
                let least = OutputFileFormat.mp3GaplessMinimumKbps(sampleRate: settings.sampleRate, channelCount: settings.channelCount)
                if kbps < least {
                    return "an MP3 at \(settings.sampleRate) Hz and \(kbps) kbit/s has no room for LAME's header, which tells players "
                        + "to trim the encoder's delay and padding (it would not be gapless); use \(least) kbit/s or more"
                }
            case .opus:
                let range = OutputFileFormat.opusBitratesPerChannel
                let channels = settings.channelCount
                if !(range.lowerBound * channels...range.upperBound * channels).contains(kbps) {
                    return "Ogg Opus takes \(range.lowerBound * channels) to \(range.upperBound * channels) kbit/s for \(channels) channel\(channels == 1 ? "" : "s") (\(range.lowerBound) to \(range.upperBound) each), not \(kbps)"
                }
            case .oggVorbis:
                return "Ogg Vorbis takes a quality, not a bitrate (libsndfile has no bitrate mode for Vorbis); set the quality instead"
            default:
                break   // the lossless formats have no bitrate to set, as they have no quality
            }
        }
        var info = sfInfo(settings)
        if sf_format_check(&info) != Int32(SF_TRUE) {
            return "libsndfile cannot write \(name) with these settings"
        }
        return nil
    }

    /// Why a render of `settings.expectedFrameCount` frames would pass what the format can describe, or nil (docs/
    /// formats.md, "Length limits"): AIFF's chunk sizes have 32 bits, so its data must stay under 4 GiB less room
    /// for the header and an ID3v2 chunk with the largest tags (`aiffDataLimit`); FLAC's header counts at most
    /// 2^36 - 1 frames. A WAV past 4 GiB is written as RF64 (`wavNeedsRF64`); CAF, Ogg, MP3 and M4A have 64-bit
    /// sizes or count nothing that long (see the docs).
    static func sizeProblem(_ settings: OutputSettings) -> String? {
        guard let frames = settings.expectedFrameCount else { return nil }
        let seconds = Double(frames) / Double(max(settings.sampleRate, 1))
        let span = "\(Int(seconds) / 3600):" + String(String(Int(seconds) / 60 % 60 + 100).dropFirst()) + ":" + String(String(Int(seconds) % 60 + 100).dropFirst())
        switch settings.format {
        case .aiff:
            let bytes = frames * Int64(settings.channelCount * settings.sampleFormat.bytesPerSample)
            guard bytes > aiffDataLimit else { return nil }
            let gib = Double(bytes) / Double(1 << 30)
            return "AIFF cannot hold this render: its chunk sizes have 32 bits, so its audio must stay under 4 GiB, and \(span) of "
                + "\(settings.channelCount) channel\(settings.channelCount == 1 ? "" : "s") at \(settings.sampleRate) Hz at \(settings.sampleFormat == .pcm16 ? "16 bits" : settings.sampleFormat == .pcm24 ? "24 bits" : "32-bit float") is "
                + String((gib * 100).rounded() / 100) + " GiB; use .wav (RF64 past 4 GiB), .caf or .flac, or render it in parts (--start, --end)"
        case .flac:
            guard frames > flacFrameLimit else { return nil }
            return "FLAC cannot hold this render: its header counts at most \(flacFrameLimit) frames (36 bits), and \(span) at \(settings.sampleRate) Hz is \(frames); use a lower rate, .caf or .wav (RF64), or render it in parts (--start, --end)"
        default:
            return nil
        }
    }

    /// The most audio bytes an AIFF is written with: 4 GiB less 64 MiB for the header and an ID3v2 chunk holding
    /// the largest tags a preset may have (about 33 MB; `TagLimits`).
    public static let aiffDataLimit: Int64 = (1 << 32) - (64 << 20)
    /// The most frames FLAC's STREAMINFO counts (36 bits).
    public static let flacFrameLimit: Int64 = (1 << 36) - 1

    /// libsndfile's compression level (0...1) for an MP3 or Opus `settings`, from its bitrate or quality.
    ///
    /// - MP3, constant bitrate: libsndfile sets LAME's bitrate to `max - level x (max - min)` kbit/s, truncated
    ///   (MPEG-1: 320 to 32; MPEG-2: 160 to 8; MPEG-2.5: 64 to 8); the level is aimed a quarter kbit/s above the
    ///   bitrate so that truncation lands on it.
    /// - MP3, variable bitrate: LAME's VBR quality is level x 10 (V0 best … V9.999; LAME refuses 10), so
    ///   quality 0.5 is V5 and 0.8 is V2.
    /// - Opus: libsndfile sets the target to `(1 - level) x 250 + 6` kbit/s per channel. Without a bitrate, the
    ///   quality is mapped geometrically through 6 (quality 0), 48 (0.5, opusenc's default of 96 kbit/s for
    ///   stereo) and 256 kbit/s per channel (1): libsndfile's own linear mapping would put the default
    ///   quality at 262 kbit/s for stereo, three times what Opus needs to be transparent on ambience.
    static func compressionLevel(_ settings: OutputSettings) -> Double {
        let q = settings.vorbisQuality
        switch settings.format {
        case .mp3:
            guard let kbps = settings.bitrateKbps else { return min(1 - q, 0.9999) }
            let (low, high) = settings.sampleRate >= 32000 ? (32.0, 320.0) : settings.sampleRate >= 16000 ? (8.0, 160.0) : (8.0, 64.0)
            return max(0, min(1, (high - Double(kbps) - 0.25) / (high - low)))
        case .opus:
            let perChannel = settings.bitrateKbps.map { Double($0) / Double(settings.channelCount) } ?? opusBitratePerChannel(quality: q)
            return max(0, min(1, 1 - (perChannel - 6 + 0.0005) / 250))
        default:
            return 0
        }
    }

    /// The Opus target bitrate per channel, in kbit/s, at `quality` without an explicit bitrate.
    public static func opusBitratePerChannel(quality q: Double) -> Double {
        q <= 0.5 ? 6 * pow(8, 2 * q) : 48 * pow(256.0 / 48, 2 * q - 1)
    }

    private static func sfInfo(_ settings: OutputSettings) -> SF_INFO {
        var info = SF_INFO()
        info.samplerate = Int32(clamping: settings.sampleRate)
        info.channels = Int32(clamping: settings.channelCount)
        let subtype: Int
        switch settings.sampleFormat {
        case .pcm16: subtype = SF_FORMAT_PCM_16
        case .pcm24: subtype = SF_FORMAT_PCM_24
        case .float32: subtype = SF_FORMAT_FLOAT
        }
        switch settings.format {
        case .oggVorbis: info.format = Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        case .flac: info.format = Int32(SF_FORMAT_FLAC | subtype)
        case .wav: info.format = Int32((settings.wavNeedsRF64 ? SF_FORMAT_RF64 : SF_FORMAT_WAV) | subtype)
        case .mp3: info.format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        case .opus: info.format = Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        case .caf: info.format = Int32(SF_FORMAT_CAF | (settings.sampleFormat == .pcm24 ? SF_FORMAT_ALAC_24 : SF_FORMAT_ALAC_16))
        case .aiff: info.format = Int32(SF_FORMAT_AIFF | subtype)
        case .m4a: info.format = 0  // not libsndfile's: refused by `validate`
        }
        return info
    }

    private func failure(_ function: String, _ reason: String, _ operation: String = "create") -> AudioIOError {
        AudioIOError(path: displayPath, function: function, reason: reason, operation: operation)
    }
}
