import MixIO
import MixDSP

/// Writes audiowaveform's JSON, version 2, with mixrender's extra fields after the standard ones:
///
/// ```
/// {"version":2,"channels":2,"sample_rate":48000,"samples_per_pixel":256,"bits":16,"length":3,
///  "data":[min,max (column 0, channel 0), min,max (column 0, channel 1), min,max (column 1, channel 0), ...],
///  "rms":[column 0 channel 0, column 0 channel 1, column 1 channel 0, ...],
///  "bands":{"fft_size":2048,"hop_size":512,"window":"hann","edges_hz":[250,4000],
///           "low":[...],"mid":[...],"high":[...],"centroid_hz":[...]}}
/// ```
///
/// `data` and `rms` interleave channels as audiowaveform does; `rms`, `low`, `mid` and `high` are in
/// the scale of `data` (see `WaveformQuantizer`), one value per column for the bands (of the mono mix);
/// `centroid_hz` is in Hz. peaks.js and wavesurfer read the standard fields and ignore the rest.
enum WaveformJSONWriter {
    static func write(_ store: WaveformColumnStore, sampleRate: Int, bits: Int, analysis: WaveformAnalysisSettings,
                      to path: String, displayPath: String) throws {
        let q = WaveformQuantizer(bits: bits)
        let out = try BufferedFileWriter(path: path, displayPath: displayPath)
        let channels = store.channelCount
        try out.text("{\"version\":2,\"channels\":\(channels),\"sample_rate\":\(sampleRate)")
        try out.text(",\"samples_per_pixel\":\(store.samplesPerPixel),\"bits\":\(bits),\"length\":\(store.count)")

        try out.text(",\n\"data\":[")
        var first = true
        try store.forEach { column in
            for c in 0..<channels {
                if !first { try out.byte(UInt8(ascii: ",")) }
                first = false
                try out.integer(q.value(column.min(c)))
                try out.byte(UInt8(ascii: ","))
                try out.integer(q.value(column.max(c)))
            }
        }
        try out.text("],\n\"rms\":[")
        first = true
        try store.forEach { column in
            for c in 0..<channels {
                if !first { try out.byte(UInt8(ascii: ",")) }
                first = false
                try out.integer(q.value(column.rms(c)))
            }
        }
        try out.text("],\n\"bands\":{\"fft_size\":\(analysis.fftSize),\"hop_size\":\(analysis.hopSize),\"window\":\"hann\"")
        try out.text(",\"edges_hz\":[\(Self.number(analysis.lowMidEdgeHz)),\(Self.number(analysis.midHighEdgeHz))]")
        let fields: [(String, (WaveformColumnStore.StoredColumn) -> Int)] = [
            ("low", { q.value($0.low) }), ("mid", { q.value($0.mid) }), ("high", { q.value($0.high) }),
            ("centroid_hz", { Int($0.centroidHz.rounded()) }),
        ]
        for (name, value) in fields {
            try out.text(",\n\"\(name)\":[")
            first = true
            try store.forEach { column in
                if !first { try out.byte(UInt8(ascii: ",")) }
                first = false
                try out.integer(value(column))
            }
            try out.byte(UInt8(ascii: "]"))
        }
        try out.text("}}\n")
        try out.close()
    }

    /// 250 -> "250", 62.5 -> "62.5".
    static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }
}
