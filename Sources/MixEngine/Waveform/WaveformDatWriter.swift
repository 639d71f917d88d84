import MixIO
/// Writes audiowaveform's binary format, version 2 (all values little-endian):
///
/// | bytes | type | field |
/// |---|---|---|
/// | 0-3 | int32 | version = 2 |
/// | 4-7 | uint32 | flags: bit 0 set for 8-bit data |
/// | 8-11 | int32 | sample rate |
/// | 12-15 | int32 | samples per pixel |
/// | 16-19 | uint32 | length: columns (min/max pairs per channel) |
/// | 20-23 | int32 | channels |
/// | 24- | int8 or int16 | min, max of column 0 channel 0, min, max of column 0 channel 1, ... |
enum WaveformDatWriter {
    static func write(_ store: WaveformColumnStore, sampleRate: Int, bits: Int, to path: String,
                      displayPath: String) throws {
        guard store.count <= Int(UInt32.max) else {
            throw EngineError.output(path: displayPath, reason: "\(store.count) columns do not fit the .dat format")
        }
        let q = WaveformQuantizer(bits: bits)
        let out = try BufferedFileWriter(path: path, displayPath: displayPath)
        try out.int32LE(2)
        try out.uint32LE(bits == 8 ? 1 : 0)
        try out.int32LE(Int32(sampleRate))
        try out.int32LE(Int32(clamping: store.samplesPerPixel))
        try out.uint32LE(UInt32(store.count))
        try out.int32LE(Int32(store.channelCount))
        let channels = store.channelCount
        try store.forEach { column in
            for c in 0..<channels {
                if bits == 8 {
                    try out.byte(UInt8(bitPattern: Int8(q.value(column.min(c)))))
                    try out.byte(UInt8(bitPattern: Int8(q.value(column.max(c)))))
                } else {
                    try out.int16LE(Int16(q.value(column.min(c))))
                    try out.int16LE(Int16(q.value(column.max(c))))
                }
            }
        }
        try out.close()
    }
}
