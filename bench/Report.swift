import Foundation

/// How a figure is stored (in `unit`) and shown in the table.
enum FigureFormat: String, Encodable {
    case framesPerSecond      // stored in frames/s, shown in millions
    case nanoseconds
    case ratio                // a plain ratio, e.g. 0.83
    case fraction             // stored 0...1, shown as a percentage
    case seconds
    case realtime             // x realtime
    case count
    case mebibytes
    case gigabytesPerSecond
    case decibels

    var unit: String {
        switch self {
        case .framesPerSecond: return "frames/s"
        case .nanoseconds: return "ns"
        case .ratio: return "ratio"
        case .fraction: return "fraction"
        case .seconds: return "s"
        case .realtime: return "x realtime"
        case .count: return "count"
        case .mebibytes: return "MiB"
        case .gigabytesPerSecond: return "GB/s"
        case .decibels: return "dB"
        }
    }

    func text(_ x: Double) -> String {
        switch self {
        case .framesPerSecond: return fixed(x / 1e6, x >= 1e8 ? 0 : 1)
        case .nanoseconds: return fixed(x, x >= 100 ? 0 : x >= 10 ? 1 : 2)
        case .ratio: return fixed(x, 2)
        case .fraction: return fixed(100 * x, 1) + "%"
        case .seconds: return fixed(x, x >= 10 ? 1 : 2)
        case .realtime: return fixed(x, x >= 100 ? 0 : 1) + "x"
        case .count: return x == x.rounded() ? String(Int(x)) : fixed(x, 2)
        case .mebibytes: return fixed(x, 0)
        case .gigabytesPerSecond: return fixed(x, 1)
        case .decibels: return fixed(x, abs(x) < 1 ? 3 : 1)
        }
    }
}

func fixed(_ x: Double, _ decimals: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    return String(format: "%.\(decimals)f", x)
}

/// A measured spread with its unit; reads and encodes as the spread's own fields plus `unit`.
@dynamicMemberLookup
struct Figure: Encodable {
    var spread: Spread
    var unit: String
    init(_ spread: Spread, _ format: FigureFormat) { self.spread = spread; unit = format.unit }
    subscript<T>(dynamicMember field: KeyPath<Spread, T>) -> T { spread[keyPath: field] }

    private enum Keys: String, CodingKey { case unit }
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(unit, forKey: .unit)
        try spread.encode(to: encoder)
    }
}

struct Column {
    var key: String
    var title: String
    var format: FigureFormat
}

struct Row: Encodable {
    var labels: [String: String]
    /// Every figure is finite: one that could not be taken is in `notTaken` instead.
    var figures: [String: Figure]
    /// The figures that could not be taken (a ratio with nothing to divide by, a run that measured nothing), each
    /// with why; in the JSON only when there is one, and shown as "n/a" in the table.
    var notTaken: [String: String] = [:]

    private enum Keys: String, CodingKey { case labels, figures, notTaken }
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(labels, forKey: .labels)
        try container.encode(figures, forKey: .figures)
        if !notTaken.isEmpty { try container.encode(notTaken, forKey: .notTaken) }
    }
}

struct Section: Encodable {
    var id: String
    var title: String
    /// Label columns, in order.
    var labelKeys: [String]
    var rows: [Row] = []
    var notes: [String] = []
    /// Figure columns, in order (for the table; JSON carries each figure's unit).
    var columns: [Column]

    enum CodingKeys: String, CodingKey { case id, title, rows, notes }

    init(id: String, title: String, labels: [String], columns: [Column]) {
        self.id = id; self.title = title; self.labelKeys = labels; self.columns = columns
    }

    /// A row: its labels in `labelKeys`' order, its figures by column key. A figure that is not finite is not
    /// taken: `notTaken` says why (for the columns it names), or else the row says what the figure came out as.
    mutating func add(_ labels: [String], _ figures: [String: Spread], notTaken: [String: String] = [:]) {
        var row = Row(labels: [:], figures: [:])
        for (k, v) in zip(labelKeys, labels) { row.labels[k] = v }
        for column in columns {
            if let s = figures[column.key], s.isFinite {
                row.figures[column.key] = Figure(s, column.format)
            } else if let why = notTaken[column.key] {
                row.notTaken[column.key] = why
            } else if let s = figures[column.key] {
                row.notTaken[column.key] = "the measurement came out as \(s.median.isNaN ? "not a number" : "\(s.median)")"
            }
        }
        rows.append(row)
    }
}

struct Target: Encodable {
    var name: String
    /// What is compared, and how.
    var definition: String
    /// The measured figure; nil when it could not be measured (status "not measured", `note` says why).
    var value: Figure?
    var threshold: Double
    /// "atLeast" or "below"
    var comparison: String
    var isMet: Bool
    /// "met", "missed", "indicative" (a --quick run: too small to judge the target by) or "not measured".
    var status: String
    /// What bounds the figure when the target is missed (or what it rests on, or why it was not measured).
    var note: String

    /// A target that this run could not measure (no FFmpeg on PATH, one core only, ...): no figure, and why.
    static func notMeasured(_ name: String, why: String, threshold: Double, comparison: String) -> Target {
        Target(name: name, definition: "not measured: \(why)", value: nil, threshold: threshold, comparison: comparison,
               isMet: false, status: "not measured", note: why)
    }
}

struct MachineInfo: Encodable {
    var cpu: String
    var cores: Int
    var memoryGiB: Double
    var loadAverageAtStart: String
    var loadAverageAtEnd: String = ""

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let kib = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        return MachineInfo(cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount,
                           memoryGiB: (kib / 1_048_576 * 10).rounded() / 10, loadAverageAtStart: loadAverage())
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "")
            .split(separator: " ").prefix(3).joined(separator: " ")
    }
}

struct BenchReport: Encodable {
    var date: String
    var mode: String
    var machine: MachineInfo
    var build: String
    var sections: [Section] = []
    var targets: [Target] = []

    /// Targets whose figure is not a finite number become "not measured", saying what it came out as: no figure in
    /// a report is NaN or infinite (rows see to their own in `Section.add`).
    mutating func settleUnmeasuredTargets() {
        for k in targets.indices {
            guard let value = targets[k].value, !value.spread.isFinite else { continue }
            targets[k].value = nil
            targets[k].status = "not measured"
            targets[k].isMet = false
            targets[k].note = "the figure came out as \(value.median.isNaN ? "not a number" : "\(value.median)"); " + targets[k].note
        }
    }

    /// The report as JSON; throws only if a figure is not finite, which `Section.add` and
    /// `settleUnmeasuredTargets` rule out.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    func table() -> String {
        var out = "mixrender bench, \(date), \(mode) mode\n"
        out += "machine: \(machine.cpu), \(machine.cores) cores, \(fixed(machine.memoryGiB, 1)) GiB; "
        out += "load average \(machine.loadAverageAtStart) at start, \(machine.loadAverageAtEnd) at end\n"
        out += "build: \(build)\n"
        out += "Figures: median [min-max] of the counted runs after a warm-up; ratios come from runs made in alternation.\n"
        for section in sections { out += "\n" + render(section) }
        if !targets.isEmpty {
            out += "\n== Targets ==\n"
            for t in targets {
                let op = t.comparison == "atLeast" ? ">=" : "<"
                let isPercent = t.definition.contains("share")
                let show: (Double) -> String = { isPercent ? fixed(100 * $0, 1) + "%" : fixed($0, 2) }
                guard let value = t.value else {
                    out += "NOT MEASURED \(t.name) (target \(op) \(show(t.threshold)))\n       \(t.note)\n"
                    continue
                }
                let label = t.status == "indicative" ? "(quick: indicative only)" : t.isMet ? "MET" : "MISSED"
                out += "\(label) \(t.name): \(show(value.median)) [\(show(value.min))-\(show(value.max))]"
                out += " (target \(op) \(show(t.threshold)))\n"
                out += "       \(t.definition)\n       \(t.note)\n"
            }
        }
        return out
    }

    private func render(_ section: Section) -> String {
        var header = section.labelKeys + section.columns.map(\.title)
        var lines: [[String]] = []
        for row in section.rows {
            var cells = section.labelKeys.map { row.labels[$0] ?? "" }
            for column in section.columns {
                guard let f = row.figures[column.key] else { cells.append(row.notTaken[column.key] == nil ? "-" : "n/a"); continue }
                var cell = column.format.text(f.median)
                if f.runs > 1 { cell += " [\(column.format.text(f.min))-\(column.format.text(f.max))]" }
                cells.append(cell)
            }
            lines.append(cells)
        }
        if header.isEmpty { header = [""] }
        var widths = header.map(\.count)
        for cells in lines { for (k, c) in cells.enumerated() { widths[k] = max(widths[k], c.count) } }
        let labelCount = section.labelKeys.count
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { k, c in
                let pad = String(repeating: " ", count: widths[k] - c.count)
                return k < labelCount ? c + pad : pad + c
            }.joined(separator: "  ")
        }
        var out = "== \(section.title) ==\n" + format(header) + "\n"
        for cells in lines { out += format(cells) + "\n" }
        for note in section.notes { out += "  * " + note + "\n" }
        return out
    }
}
