import Dispatch
import MixIO

/// Measures the loudness of several files at once (EBU R128 with libebur128, see `LoudnessMeter`), one file
/// per core, and writes the results as a loudness meter's summary or as JSON.
///
/// No state: `measure` allocates the results and each file's decoder and meter; any thread may call it.
public enum LoudnessScan {
    /// One file's result, in the order asked.
    public struct Entry: Sendable {
        public var path: String
        public var result: Result<LoudnessMeasurement, AudioIOError>
    }

    /// Decodes and measures every file, in parallel across the machine's cores.
    public static func measure(_ paths: [String], truePeak: Bool = true) -> [Entry] {
        Parallel.map(paths.count) { k in
            do { return Entry(path: paths[k], result: .success(try LoudnessMeter.measure(path: paths[k], truePeak: truePeak))) }
            catch let error as AudioIOError { return Entry(path: paths[k], result: .failure(error)) }
            catch { return Entry(path: paths[k], result: .failure(AudioIOError(path: paths[k], function: "", reason: "\(error)", operation: "measure"))) }
        }
    }

    /// A meter's summary, one value per line:
    ///
    ///     file            rain.ogg
    ///     integrated      -23.0 LUFS
    ///     range             4.2 LU
    ///     true peak        -1.3 dBTP
    ///     sample peak      -1.5 dBFS
    ///     momentary max   -18.2 LUFS
    ///     short-term max  -20.1 LUFS
    public static func text(path: String, _ m: LoudnessMeasurement) -> String {
        func value(_ x: Double, _ unit: String) -> String {
            let number = x.isFinite ? String(format1: x) : "-inf"
            return String(repeating: " ", count: max(0, 6 - number.count)) + number + " " + unit
        }
        return [
            "file            \(PrintableText.escaped(path))",
            "integrated      " + value(m.integrated, "LUFS"),
            "range           " + value(m.range, "LU"),
            "true peak       " + value(m.truePeak, "dBTP"),
            "sample peak     " + value(m.samplePeak, "dBFS"),
            "momentary max   " + value(m.momentaryMax, "LUFS"),
            "short-term max  " + value(m.shortTermMax, "LUFS"),
        ].joined(separator: "\n")
    }

    /// A JSON array with one object per file, in order: its measurement (numbers to 0.01; -infinity, for
    /// silence, as null), or its error. Written `.readable`.
    public static func json(_ entries: [Entry]) -> String {
        JSONValue.array(entries.map { entry -> JSONValue in
            let file = JSONValue.Member("file", .string(entry.path))
            switch entry.result {
            case .failure(let error):
                return .object([file, JSONValue.Member("error", .string(error.description))])
            case .success(let m):
                let fields = [("integratedLUFS", m.integrated), ("rangeLU", m.range), ("truePeakDBTP", m.truePeak),
                              ("samplePeakDBFS", m.samplePeak), ("momentaryMaxLUFS", m.momentaryMax),
                              ("shortTermMaxLUFS", m.shortTermMax)]
                return .object([file] + fields.map { JSONValue.Member($0.0, .rounded($0.1, places: 2)) })
            }
        }).document(.readable)
    }
}

extension String {
    /// One decimal, rounded half away from zero: "-23.0", "4.2".
    init(format1 x: Double) {
        let tenths = (x * 10).rounded()
        let sign = tenths < 0 ? "-" : ""
        let magnitude = Int64(abs(tenths))
        self = "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }
}
