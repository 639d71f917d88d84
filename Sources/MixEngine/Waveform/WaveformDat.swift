/// A waveform in audiowaveform's binary format (`.dat`, version 1 or 2: see `WaveformDatWriter`), read from bytes that
/// are checked whole (a file read back is untrusted, the server's own included), and zoomed out: what a phone asks
/// for when it draws a waveform `width` points across, or at so many points a second.
///
/// A value: the header's numbers and the min/max pairs (column by column, channel by channel within a column).
public struct WaveformDat: Sendable, Equatable {
    public let sampleRate: Int
    public let samplesPerPixel: Int
    public let channelCount: Int
    /// 8 or 16.
    public let bits: Int
    /// Columns.
    public let length: Int
    /// min, max of column 0 channel 0, min, max of column 0 channel 1, ..., as the file holds them.
    public let data: [Int16]

    /// Why bytes are not a waveform: one phrase.
    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The most channels a waveform may have (audiowaveform's own bound is 24).
    public static let maximumChannels = 24

    /// Reads `bytes`, refusing any that are not exactly a version 1 or 2 file: its header's numbers in range and its
    /// data the length the header says.
    public init(bytes: [UInt8]) throws {
        func int32(_ at: Int) -> Int32 {
            Int32(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
        }
        guard bytes.count >= 20 else { throw Malformed(description: "\(bytes.count) bytes are shorter than a header") }
        let version = int32(0)
        guard version == 1 || version == 2 else { throw Malformed(description: "version \(version), not 1 or 2") }
        let headerBytes = version == 2 ? 24 : 20
        guard bytes.count >= headerBytes else { throw Malformed(description: "\(bytes.count) bytes are shorter than a header") }
        let flags = UInt32(bitPattern: int32(4))
        guard flags & ~1 == 0 else { throw Malformed(description: "unknown flags \(flags)") }
        bits = flags & 1 == 1 ? 8 : 16
        sampleRate = Int(int32(8))
        samplesPerPixel = Int(int32(12))
        length = Int(UInt32(bitPattern: int32(16)))
        channelCount = version == 2 ? Int(int32(20)) : 1
        guard (1...1_000_000).contains(sampleRate) else { throw Malformed(description: "sample rate \(sampleRate)") }
        guard samplesPerPixel >= 1 else { throw Malformed(description: "\(samplesPerPixel) samples per pixel") }
        guard (1...Self.maximumChannels).contains(channelCount) else { throw Malformed(description: "\(channelCount) channels") }
        let valueBytes = bits / 8
        let (values, overflow) = length.multipliedReportingOverflow(by: 2 * channelCount)
        guard !overflow, values <= (bytes.count - headerBytes) / valueBytes,
              values * valueBytes == bytes.count - headerBytes else {
            throw Malformed(description: "\(bytes.count - headerBytes) bytes of data where the header says \(length) columns of \(channelCount) channels at \(bits) bits")
        }
        var data = [Int16](repeating: 0, count: values)
        for i in 0..<values {
            let at = headerBytes + i * valueBytes
            data[i] = valueBytes == 1 ? Int16(Int8(bitPattern: bytes[at])) : Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
        }
        self.data = data
    }

    private init(sampleRate: Int, samplesPerPixel: Int, channelCount: Int, bits: Int, length: Int, data: [Int16]) {
        self.sampleRate = sampleRate
        self.samplesPerPixel = samplesPerPixel
        self.channelCount = channelCount
        self.bits = bits
        self.length = length
        self.data = data
    }

    /// Every `factor` columns merged into one (the least of their minima, the most of their maxima, channel by
    /// channel; the last column takes what is left): `samplesPerPixel` times `factor`, exactly what audiowaveform makes
    /// from the same audio at that zoom.
    public func zoomed(by factor: Int) -> WaveformDat {
        precondition(factor >= 1)
        guard factor > 1 else { return self }
        let columns = (length + factor - 1) / factor
        var merged = [Int16](repeating: 0, count: columns * 2 * channelCount)
        for column in 0..<columns {
            let first = column * factor, end = min(length, first + factor)
            for c in 0..<channelCount {
                var low = Int16.max, high = Int16.min
                for source in first..<end {
                    low = min(low, data[(source * channelCount + c) * 2])
                    high = max(high, data[(source * channelCount + c) * 2 + 1])
                }
                merged[(column * channelCount + c) * 2] = low
                merged[(column * channelCount + c) * 2 + 1] = high
            }
        }
        return WaveformDat(sampleRate: sampleRate, samplesPerPixel: samplesPerPixel * factor, channelCount: channelCount,
                           bits: bits, length: columns, data: merged)
    }

    /// The zoom that draws the whole waveform in at most `width` columns (the fewest columns merged that do).
    public func factor(forWidth width: Int) -> Int {
        max(1, (length + max(1, width) - 1) / max(1, width))
    }

    /// The zoom nearest `pointsPerSecond` columns a second of audio, at least 1 (no finer than the file).
    public func factor(forPointsPerSecond pointsPerSecond: Double) -> Int {
        let wanted = Double(sampleRate) / pointsPerSecond / Double(samplesPerPixel)
        return wanted.isFinite ? max(1, Int(min(wanted.rounded(), Double(Int32.max)))) : 1
    }

    /// audiowaveform's JSON, version 2, of these columns (its standard fields: `data` and the header).
    public var json: String {
        var text = "{\"version\":2,\"channels\":\(channelCount),\"sample_rate\":\(sampleRate),\"samples_per_pixel\":\(samplesPerPixel),"
            + "\"bits\":\(bits),\"length\":\(length),\"data\":["
        text.reserveCapacity(text.utf8.count + data.count * 6)
        for (i, value) in data.enumerated() {
            if i > 0 { text += "," }
            text += String(value)
        }
        return text + "]}\n"
    }
}
