import CFFmpeg

/// FFmpeg's decoded frames as mixrender's samples: what `FFmpegFileReader` and `OggVorbisFileReader` share.
enum FFmpegFrameSamples {
    /// Writes `count` frames of `frame` from `offset`, interleaved, converting from the frame's sample format:
    /// planar or not, 8, 16, 32 or 64-bit integer, float or double samples.
    static func convert(_ frame: UnsafeMutablePointer<AVFrame>, from offset: Int, count: Int, channels: Int,
                        into output: UnsafeMutablePointer<Float>) {
        let planes = frame.pointee.extended_data!
        @inline(__always)
        func copy<Sample>(_: Sample.Type, planar: Bool, _ toFloat: (Sample) -> Float) {
            Self.copy(Sample.self, planes: planes, planar: planar, from: offset, count: count, channels: channels,
                      into: output, toFloat)
        }
        switch AVSampleFormat(rawValue: frame.pointee.format) {
        case AV_SAMPLE_FMT_FLTP: copy(Float.self, planar: true) { $0 }
        case AV_SAMPLE_FMT_FLT: copy(Float.self, planar: false) { $0 }
        case AV_SAMPLE_FMT_S16P: copy(Int16.self, planar: true) { Float($0) * 0x1p-15 }
        case AV_SAMPLE_FMT_S16: copy(Int16.self, planar: false) { Float($0) * 0x1p-15 }
        case AV_SAMPLE_FMT_S32P: copy(Int32.self, planar: true) { Float($0) * 0x1p-31 }
        case AV_SAMPLE_FMT_S32: copy(Int32.self, planar: false) { Float($0) * 0x1p-31 }
        case AV_SAMPLE_FMT_DBLP: copy(Double.self, planar: true) { Float($0) }
        case AV_SAMPLE_FMT_DBL: copy(Double.self, planar: false) { Float($0) }
        case AV_SAMPLE_FMT_U8P: copy(UInt8.self, planar: true) { (Float($0) - 128) * 0x1p-7 }
        case AV_SAMPLE_FMT_U8: copy(UInt8.self, planar: false) { (Float($0) - 128) * 0x1p-7 }
        case AV_SAMPLE_FMT_S64P: copy(Int64.self, planar: true) { Float($0) * 0x1p-63 }
        case AV_SAMPLE_FMT_S64: copy(Int64.self, planar: false) { Float($0) * 0x1p-63 }
        default: output.update(repeating: 0, count: count * channels)  // no decoder outputs another format
        }
    }

    /// The conversion loop for one sample type: planar frames keep each channel in its own plane
    /// (`extended_data[c]`), packed ones interleave them in plane 0.
    @inline(__always)
    private static func copy<Sample>(_: Sample.Type, planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, planar: Bool,
                                     from offset: Int, count: Int, channels: Int,
                                     into output: UnsafeMutablePointer<Float>, _ toFloat: (Sample) -> Float) {
        if planar, channels <= 2 {
            // Mono and stereo, the common cases, in loops the compiler vectorises (the general one strides by a
            // run-time channel count); for FFmpeg's planar float Vorbis and AAC this was 6 % of a waveform's CPU.
            let left = UnsafeRawPointer(planes[0]!).assumingMemoryBound(to: Sample.self) + offset
            if channels == 1 {
                for i in 0..<count { output[i] = toFloat(left[i]) }
            } else {
                let right = UnsafeRawPointer(planes[1]!).assumingMemoryBound(to: Sample.self) + offset
                for i in 0..<count { output[2 * i] = toFloat(left[i]); output[2 * i + 1] = toFloat(right[i]) }
            }
        } else if planar {
            for c in 0..<channels {
                let plane = UnsafeRawPointer(planes[c]!).assumingMemoryBound(to: Sample.self) + offset
                for i in 0..<count { output[i * channels + c] = toFloat(plane[i]) }
            }
        } else {
            let samples = UnsafeRawPointer(planes[0]!).assumingMemoryBound(to: Sample.self) + offset * channels
            for i in 0..<(count * channels) { output[i] = toFloat(samples[i]) }
        }
    }
}
