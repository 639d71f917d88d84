import Foundation
import MixIO
import Testing

/// Records, or compares with, one golden; on failure leaves the evidence in `test-output/golden-failures/`.
enum GoldenCheck {
    /// Lossless tier: `actual` (a float render) against the 24-bit FLAC (or float WAV) at `goldenPath`.
    static func lossless(_ name: String, actual: PCMAudio, goldenPath: String,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shown = GoldenPaths.display(goldenPath)
        if try startRecording(name, goldenPath: goldenPath) {
            if goldenPath.hasSuffix(".wav") {
                try actual.write(to: goldenPath, format: .wav, sampleFormat: .float32)
            } else if let format = OutputFileFormat.from(path: goldenPath), format != .flac {
                // A golden of a lossless output format (ALAC in CAF, AIFF) holds the 16-bit render as written.
                try actual.write(to: goldenPath, format: format, sampleFormat: .pcm16)
            } else {
                try actual.write(to: goldenPath, format: .flac, sampleFormat: .pcm24)
            }
            // Reading it back shows what the comparison will see: only the 24-bit rounding may differ.
            // A FLAC golden too quiet for the SNR threshold fails `flacGoldensHaveHeadroomForTheSNRThreshold`.
            let check = LosslessTier.compare(actual: actual, golden: try PCMAudio.decode(path: goldenPath))
            recorded(name, at: goldenPath, " (\(actual.frameCount) frames, \(actual.sampleRate) Hz, "
                     + "\(actual.channelCount) ch; as stored: \(check))", sourceLocation)
            return
        }
        guard FileManager.default.fileExists(atPath: goldenPath) else {
            let actualPath = try GoldenPaths.failureFile(name, "actual.wav")
            try actual.write(to: actualPath, format: .wav, sampleFormat: .float32)
            fail("no golden '\(name)' at \(shown); record it with \(GoldenPaths.recordVariable)=\(name) "
                 + "swift test --filter GoldenTests (actual render: \(GoldenPaths.display(actualPath)))",
                 sourceLocation)
            return
        }
        let golden = try PCMAudio.decode(path: goldenPath)
        let shape = ExactTier.mismatches(actual: actual, golden: golden)
        let difference: LosslessTier.Difference? = actual.channelCount == golden.channelCount
            ? LosslessTier.compare(actual: actual, golden: golden) : nil
        if shape.isEmpty, let difference, difference.isWithinThresholds { return }

        let actualPath = try GoldenPaths.failureFile(name, "actual.wav")
        try actual.write(to: actualPath, format: .wav, sampleFormat: .float32)
        var message = "golden '\(name)' (\(shown)) differs: "
        if !shape.isEmpty { message += "exact tier: " + shape.joined(separator: "; ") + ". " }
        if let difference {
            let diffPath = try GoldenPaths.failureFile(name, "diff.wav")
            try LosslessTier.difference(actual: actual, golden: golden).write(to: diffPath, format: .wav, sampleFormat: .float32)
            message += "lossless tier: \(difference)"
            if !shape.isEmpty { message += " over the first \(difference.frameCount) frames" }
            message += ". Actual render: \(GoldenPaths.display(actualPath)); difference (actual - golden): \(GoldenPaths.display(diffPath))."
        } else {
            message += "Actual render: \(GoldenPaths.display(actualPath))."
        }
        message += " If the change is intended, re-record with \(GoldenPaths.recordVariable)=\(name)."
        fail(message, sourceLocation)
    }

    /// Spoken tier: `actual` (a render that speaks) against its 24-bit FLAC golden, by length and band levels
    /// (`SpokenTier`); recorded as the lossless tier records.
    static func spoken(_ name: String, actual: PCMAudio, goldenPath: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shown = GoldenPaths.display(goldenPath)
        if GoldenPaths.isRecording(name) || !FileManager.default.fileExists(atPath: goldenPath) {
            try lossless(name, actual: actual, goldenPath: goldenPath, sourceLocation: sourceLocation)
            return
        }
        GoldenPaths.clearFailures(name)
        let golden = try PCMAudio.decode(path: goldenPath)
        let shape = ExactTier.mismatches(actual: actual, golden: golden)
        let comparable = actual.channelCount == golden.channelCount && actual.sampleRate == golden.sampleRate
        let difference = comparable ? SpokenTier.compare(actual: actual, golden: golden) : nil
        if shape.isEmpty, let difference, SpokenTier.isWithinThresholds(difference) { return }
        let actualPath = try GoldenPaths.failureFile(name, "actual.wav")
        try actual.write(to: actualPath, format: .wav, sampleFormat: .float32)
        var message = "golden '\(name)' (\(shown)) differs: "
        if !shape.isEmpty { message += "exact tier: " + shape.joined(separator: "; ") + ". " }
        if let difference {
            let tablePath = try GoldenPaths.failureFile(name, "diff.tsv")
            try difference.table.write(toFile: tablePath, atomically: true, encoding: .utf8)
            message += "spoken tier: \(SpokenTier.describe(difference)); band-level differences: \(GoldenPaths.display(tablePath)). "
        }
        message += "Actual render: \(GoldenPaths.display(actualPath)). If the change is intended, re-record with \(GoldenPaths.recordVariable)=\(name)."
        fail(message, sourceLocation)
    }

    /// Lossy tier: the lossy file at `actualFile` (just rendered: Ogg Vorbis, MP3, Ogg Opus) against the golden
    /// file of the same format.
    static func lossy(_ name: String, actualFile actualOgg: String, goldenPath: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shown = GoldenPaths.display(goldenPath)
        if try startRecording(name, goldenPath: goldenPath) {
            try? FileManager.default.removeItem(atPath: goldenPath)
            try FileManager.default.copyItem(atPath: actualOgg, toPath: goldenPath)
            recorded(name, at: goldenPath, "", sourceLocation)
            return
        }
        let keepActual = {
            let path = try GoldenPaths.failureFile(name, "actual." + (actualOgg.split(separator: ".").last.map(String.init) ?? "ogg"))
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: actualOgg, toPath: path)
            return path
        }
        guard FileManager.default.fileExists(atPath: goldenPath) else {
            let kept = try keepActual()
            fail("no golden '\(name)' at \(shown); record it with \(GoldenPaths.recordVariable)=\(name) "
                 + "swift test --filter GoldenTests (actual render: \(GoldenPaths.display(kept)))",
                 sourceLocation)
            return
        }
        let actual = try PCMAudio.decode(path: actualOgg)
        let golden = try PCMAudio.decode(path: goldenPath)
        let shape = ExactTier.mismatches(actual: actual, golden: golden)
        let comparable = actual.channelCount == golden.channelCount && actual.sampleRate == golden.sampleRate
        let difference = comparable ? SpectralTier.compare(actual: actual, golden: golden) : nil
        if shape.isEmpty, let difference, difference.isWithinThresholds { return }

        let kept = try keepActual()
        var message = "golden '\(name)' (\(shown)) differs: "
        if !shape.isEmpty { message += "exact tier: " + shape.joined(separator: "; ") + ". " }
        if let difference {
            let tablePath = try GoldenPaths.failureFile(name, "diff.tsv")
            try difference.table.write(toFile: tablePath, atomically: true, encoding: .utf8)
            message += "lossy tier: \(difference). Actual render: \(GoldenPaths.display(kept)); "
                + "band-level differences: \(GoldenPaths.display(tablePath))."
        } else {
            message += "Actual render: \(GoldenPaths.display(kept))."
        }
        message += " If the change is intended, re-record with \(GoldenPaths.recordVariable)=\(name)."
        fail(message, sourceLocation)
    }

    /// JSON tier: `actual` (a JSON-compatible object) against the JSON golden, as numbers with a tolerance.
    static func json(_ name: String, actual: [String: Any], goldenPath: String, tolerance: JSONNumbers.Tolerance,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        try json(name, actual: try JSONNumbers.encode(actual), goldenPath: goldenPath, tolerance: tolerance,
                 sourceLocation: sourceLocation)
    }

    /// JSON tier, for a document as a tool wrote it (recorded as it is, compared as numbers).
    static func json(_ name: String, actual data: Data, goldenPath: String, tolerance: JSONNumbers.Tolerance,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shown = GoldenPaths.display(goldenPath)
        if try startRecording(name, goldenPath: goldenPath) {
            try data.write(to: URL(fileURLWithPath: goldenPath))
            recorded(name, at: goldenPath, "", sourceLocation)
            return
        }
        let actualPath = try GoldenPaths.failureFile(name, "actual.json")
        guard FileManager.default.fileExists(atPath: goldenPath) else {
            try data.write(to: URL(fileURLWithPath: actualPath))
            fail("no golden '\(name)' at \(shown); record it with \(GoldenPaths.recordVariable)=\(name) "
                 + "(actual: \(GoldenPaths.display(actualPath)))", sourceLocation)
            return
        }
        let problems = JSONNumbers.differences(actual: try JSONNumbers.parse(data),
                                               golden: try JSONNumbers.parse(contentsOf: goldenPath), tolerance: tolerance)
        guard !problems.isEmpty else { return }
        try data.write(to: URL(fileURLWithPath: actualPath))
        let diffPath = try GoldenPaths.failureFile(name, "diff.txt")
        try (problems.joined(separator: "\n") + "\n").write(toFile: diffPath, atomically: true, encoding: .utf8)
        let shownProblems = problems.prefix(5).joined(separator: "; ") + (problems.count > 5 ? "; ..." : "")
        fail(("golden '\(name)' (\(shown)) differs beyond \(tolerance) in \(problems.count) "
                 + "place(s): \(shownProblems). Actual: \(GoldenPaths.display(actualPath)); "
                 + "differences: \(GoldenPaths.display(diffPath)). If intended, re-record with "
                 + "\(GoldenPaths.recordVariable)=\(name)."), sourceLocation)
    }

    /// What every tier does first: removes what an earlier failing run left for `name` and, if this run records
    /// `name`, makes the golden's folder. Returns whether this run records `name`.
    private static func startRecording(_ name: String, goldenPath: String) throws -> Bool {
        GoldenPaths.clearFailures(name)
        guard GoldenPaths.isRecording(name) else { return false }
        try FileManager.default.createDirectory(atPath: (goldenPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        return true
    }

    /// Fails the recording run (`detail` follows the golden's path in the message).
    private static func recorded(_ name: String, at goldenPath: String, _ detail: String, _ sourceLocation: SourceLocation) {
        fail("recorded golden '\(name)' at \(GoldenPaths.display(goldenPath))\(detail). A recording run always fails: "
             + "run again without \(GoldenPaths.recordVariable) to compare.", sourceLocation)
    }

    /// Records a failure of the calling test.
    private static func fail(_ message: String, _ sourceLocation: SourceLocation) {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
