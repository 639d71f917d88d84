import MixIO
import MixDSP

/// Writes audiowaveform's JSON, version 2, with mixrender's extra fields after the standard ones, streamed by
/// `JSONWriter` (`.compact`, as audiowaveform writes it) straight from the column store, never built as a value:
///
/// ```
/// {"version":2,"channels":2,"sample_rate":48000,"samples_per_pixel":256,"bits":16,"length":3,
///  "data":[min,max (column 0, channel 0), min,max (column 0, channel 1), min,max (column 1, channel 0), ...],
///  "rms":[column 0 channel 0, column 0 channel 1, column 1 channel 0, ...],
///  "bands":{"fft_size":2048,"hop_size":1024,"window":"hann","edges_hz":[250,4000],
///           "low":[...],"mid":[...],"high":[...],"centroid_hz":[...]}}
/// ```
///
/// (on one line). `data` and `rms` interleave channels as audiowaveform does; `rms`, `low`, `mid` and `high` are
/// in the scale of `data` (see `WaveformQuantizer`), one value per column for the bands (of the mono mix);
/// `centroid_hz` is in Hz. peaks.js and wavesurfer read the standard fields and ignore the rest.
enum WaveformJSONWriter {
    static func write(_ store: WaveformColumnStore, sampleRate: Int, bits: Int, analysis: WaveformAnalysisSettings,
                      to path: String, displayPath: String) throws {
        let q = WaveformQuantizer(bits: bits)
        let out = try BufferedFileWriter(path: path, displayPath: displayPath)
        var json = JSONWriter(out, style: .compact)
        let channels = store.channelCount
        try json.beginObject()
        let header: KeyValuePairs<String, Int> = [
            "version": 2, "channels": channels, "sample_rate": sampleRate, "samples_per_pixel": store.samplesPerPixel,
            "bits": bits, "length": store.count,
        ]
        for (key, n) in header { try json.key(key); try json.integer(n) }

        try json.key("data")
        try json.beginArray()
        try store.forEach { column in
            for c in 0..<channels {
                try json.integer(q.value(column.min(c)))
                try json.integer(q.value(column.max(c)))
            }
        }
        try json.endArray()
        try json.key("rms")
        try json.beginArray()
        try store.forEach { column in
            for c in 0..<channels { try json.integer(q.value(column.rms(c))) }
        }
        try json.endArray()

        try json.key("bands")
        try json.beginObject()
        let settings: KeyValuePairs<String, JSONValue> = [
            "fft_size": .integer(analysis.fftSize), "hop_size": .integer(analysis.hopSize), "window": .string("hann"),
            "edges_hz": .array([.number(analysis.lowMidEdgeHz), .number(analysis.midHighEdgeHz)]),
        ]
        for (key, value) in settings { try json.key(key); try json.value(value) }
        let fields: [(String, (WaveformColumnStore.StoredColumn) -> Int)] = [
            ("low", { q.value($0.low) }), ("mid", { q.value($0.mid) }), ("high", { q.value($0.high) }),
            ("centroid_hz", { Int($0.centroidHz.rounded()) }),
        ]
        for (name, value) in fields {
            try json.key(name)
            try json.beginArray()
            try store.forEach { column in try json.integer(value(column)) }
            try json.endArray()
        }
        try json.endObject()
        try json.endObject()
        try out.text("\n")
        try out.close()
    }
}
