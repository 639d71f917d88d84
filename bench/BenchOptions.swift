import MixDSP
/// Command-line options of `bench`.
struct BenchOptions {
    /// A smoke run small enough for CI: fewer runs, smaller buffers, a 1-minute night mix.
    var isQuick = false
    /// Print JSON instead of the table.
    var isJSON = false
    /// Also write the JSON report to this file (the table is still printed): CI's smoke run checks both forms.
    var jsonOutput: String?
    /// Sections to run (all by default).
    var sections: Set<BenchSection> = Set(BenchSection.allCases).subtracting([.serve])
    /// The `mixrender` the serve section starts; nil: the one beside the bench.
    var mixrender: String?
    /// Counted runs per figure (after the warm-up); nil = the mode's default.
    var runs: Int?
    /// Length of the night mix in seconds; nil = 1800 (60 with --quick).
    var nightSeconds: Double?
    /// The night mix's resampler (pipeline, shared, loudness, session); nil = the preset default.
    var resampler: ResamplerChoice?
    /// Files named on the command line (realism: a sound and its reference).
    var files: [String] = []
    /// A folder of recordings to set the generators beside (realism).
    var recordings: String?

    static let usage = """
        usage: bench [--quick] [--json] [--json-output FILE] [--only SECTION[,SECTION...]] [--runs N] [--night-seconds S]
                     [--resampler NAME] [--mixrender PATH] [--recordings DIR] [A B]

          --quick           smoke run for CI: a few seconds in all
          --json            print the results as JSON instead of a table
          --json-output FILE  also write the results as JSON to FILE (the table is still printed)
          --only            run some sections: \(BenchSection.allCases.map(\.rawValue).joined(separator: ", "))
          --runs N          counted runs per figure, after one warm-up (default 7, or 3 with --quick;
                            the night mix renders 3 times, or 2 with --quick)
          --night-seconds S length of the night mix (default 1800, or 60 with --quick)
          --resampler NAME  the night mix's resampler (default: the presets' default, soxr-hq)
          --mixrender PATH  the mixrender the serve section starts (default: the one beside bench; serve runs
                            only when named in --only: 200 clients and 20 presets on loopback, 20 and 4 with --quick)
          --recordings DIR  realism: set each generator beside its recording in DIR (../shared/audio/nature)
          A B               realism: measure sound A beside reference B (any two audio files), e.g.
                            bench --only realism rain.flac real-rain.ogg
        """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let v = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return v
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": options.isQuick = true
            case "--json": options.isJSON = true
            case "--json-output": options.jsonOutput = try value(argument)
            case "--only":
                var chosen = Set<BenchSection>()
                for name in try value(argument).split(separator: ",") {
                    guard let section = BenchSection(rawValue: String(name)) else {
                        throw UsageError(message: "--only: unknown section '\(name)'")
                    }
                    chosen.insert(section)
                }
                options.sections = chosen
            case "--runs":
                guard let n = Int(try value(argument)), n >= 1 else { throw UsageError(message: "--runs needs a whole number >= 1") }
                options.runs = n
            case "--night-seconds":
                guard let s = Double(try value(argument)), s >= 1 else { throw UsageError(message: "--night-seconds needs a number >= 1") }
                options.nightSeconds = s
            case "--mixrender": options.mixrender = try value(argument)
            case "--resampler":
                let name = try value(argument)
                guard let quality = ResamplerChoice(rawValue: name) else { throw UsageError(message: "--resampler: unknown quality '\(name)'") }
                options.resampler = quality
            case "--recordings": options.recordings = try value(argument)
            case "-h", "--help": throw UsageError(message: nil)
            default:
                guard !argument.hasPrefix("-") else { throw UsageError(message: "unknown argument '\(argument)'") }
                options.files.append(argument)
            }
        }
        if !options.files.isEmpty || options.recordings != nil, options.sections != [.realism] {
            throw UsageError(message: "files and --recordings are for --only realism")
        }
        if options.files.count != 0 && options.files.count != 2 || options.files.count == 2 && options.recordings != nil {
            throw UsageError(message: "realism: give two files (a sound and its reference), or --recordings DIR, or neither")
        }
        return options
    }
}

enum BenchSection: String, CaseIterable, Comparable {
    case mix, kernels, generators, realism, resampler, transparency, preparation, vorbis, pipeline, shared, session, loudness, encoders, cache, window, waveform, memory, loopmemory, threads, outputs
    /// The render server under load: only when asked (`--only serve`), as it needs the `mixrender` executable.
    case serve
    static func < (a: BenchSection, b: BenchSection) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

struct UsageError: Error {
    /// nil: just print the usage.
    var message: String?
}
