import CSndFile

/// What a file stores, for copies that must keep every sample (`mixrender join`): whether its encoding is
/// lossless, its sample format, and integer reads.
extension SoundFileReader {
    /// The sample format a lossless file stores: 16- or 24-bit integers (PCM in WAV, RF64, Wave64, AIFF,
    /// FLAC; ALAC in CAF) or 32-bit float (WAV, RF64, Wave64, AIFF, CAF); nil for anything else (lossy
    /// encodings, 8- and 32-bit integers, 64-bit float, µ-law, A-law, ADPCM), which `OutputSampleFormat` cannot
    /// write back as it was.
    public var storedSampleFormat: OutputSampleFormat? {
        let major = Int(sfFormat) & SF_FORMAT_TYPEMASK
        let subtype = Int(sfFormat) & SF_FORMAT_SUBMASK
        switch major {
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64, SF_FORMAT_W64, SF_FORMAT_AIFF, SF_FORMAT_FLAC, SF_FORMAT_CAF:
            switch subtype {
            case SF_FORMAT_PCM_16, SF_FORMAT_ALAC_16: return .pcm16
            case SF_FORMAT_PCM_24, SF_FORMAT_ALAC_24: return .pcm24
            case SF_FORMAT_FLOAT where major != SF_FORMAT_FLAC: return .float32
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Whether the file's encoding is lossy (Ogg Vorbis, Ogg Opus, MPEG audio): decoded, its samples depend on
    /// the encoder's delay and padding as well as the audio.
    public var isLossy: Bool {
        let major = Int(sfFormat) & SF_FORMAT_TYPEMASK
        return major == SF_FORMAT_OGG || major == SF_FORMAT_MPEG
    }

    /// Calls `sf_readf_int`: frames as 32-bit integers, full scale `Int32.min...Int32.max` (a 16-bit sample
    /// `x` reads as `x << 16`, a 24-bit one as `x << 8`: shifts, so exact). Returns fewer frames than asked only
    /// at the end of the file, and 0 after it. For integer files (`storedSampleFormat` `.pcm16`, `.pcm24`);
    /// a float file would be scaled and rounded.
    public func readIntegers(into buffer: UnsafeMutablePointer<Int32>, frames: Int) throws -> Int {
        precondition(frames >= 0, "frames must not be negative")
        guard frames > 0 else { return 0 }
        let count = sf_readf_int(handle, buffer, sf_count_t(frames))
        if count <= 0 && sf_error(handle) != Int32(SF_ERR_NO_ERROR) {
            throw AudioIOError(path: info.path, function: "sf_readf_int", reason: SndFile.lastReason(handle), operation: "read")
        }
        return Int(max(count, 0))
    }

    /// Whether libsndfile's log for this file (`SFC_GET_LOG_INFO`) says the header promised more bytes than the
    /// file holds: a WAV, RF64 or AIFF cut short (an interrupted copy) logs `data : 384000 (should be 199956)`,
    /// `Riff size : 576096 (should be 299992)` or `SSND : 576008 (should be 299954)`, and libsndfile then reads
    /// what is there without an error. A size larger by a few bytes (a pad byte, a miscounted header) is not
    /// counted. (A FLAC cut short fails when read instead, "flac decoder lost sync"; a CAF does not open.)
    public var isCutShort: Bool {
        var log = [CChar](repeating: 0, count: 16384)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        return String(cString: log).split(separator: "\n").contains { line in
            guard let should = line.range(of: "(should be ") else { return false }
            let announced = line[..<should.lowerBound].split(separator: ":").last.flatMap { Int64(String($0.filter { $0 != " " })) }
            let actual = Int64(line[should.upperBound...].prefix { $0.isNumber })
            guard let announced, let actual else { return false }
            return announced > actual + 16
        }
    }
}
