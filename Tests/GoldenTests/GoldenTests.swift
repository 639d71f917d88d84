import DSPTestSupport
import Foundation
import MixDSP
import MixEngine
import MixIO
import Testing

/// Every golden in `GoldenCatalog`, rendered now and compared with the reference in `golden/`.
@Suite struct GoldenTests {
    @Test("lossless golden", arguments: GoldenCatalog.lossless)
    func lossless(_ golden: GoldenCase) throws {
        if golden.tier == .spoken {
            try GoldenCheck.spoken(golden.name, actual: try GoldenRender.inFreshProcess(golden), goldenPath: golden.goldenPath)
            return
        }
        let render = try GoldenRender.toMemory(golden.presetPath, overrides: golden.overrides)
        try GoldenCheck.lossless(golden.name, actual: render.audio, goldenPath: golden.goldenPath)
    }

    @Test("lossy golden", arguments: GoldenCatalog.lossy)
    func lossy(_ golden: GoldenCase) throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: golden.presetPath, overrides: golden.overrides)
        let output = folder.path("\(golden.name).\(golden.fileExtension)")
        _ = try job.render(to: output)
        try GoldenCheck.lossy(golden.name, actualFile: output, goldenPath: golden.goldenPath)
    }

    /// The lossless output formats other than FLAC, through their encoders: rendered to a file, decoded, and
    /// compared with the decoded golden by the lossless tier.
    @Test("lossless format golden", arguments: GoldenCatalog.encodedLossless)
    func encodedLossless(_ golden: GoldenCase) throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: golden.presetPath, overrides: golden.overrides)
        let output = folder.path("\(golden.name).\(golden.fileExtension)")
        _ = try job.render(to: output)
        try GoldenCheck.lossless(golden.name, actual: try PCMAudio.decode(path: output), goldenPath: golden.goldenPath)
    }

    /// Every golden file in `golden/` belongs to a catalogue entry (or to the JSON goldens), so none is forgotten.
    @Test func everyGoldenFileIsInTheCatalogue() throws {
        let known = Set(GoldenCatalog.all.map(\.golden) + FeatureTests.jsonGoldens)
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: GoldenPaths.golden.path)
        while let file = enumerator?.nextObject() as? String {
            if OutputFileFormat.from(path: file) != nil
                || file.hasSuffix(".summary.json") || file.hasSuffix(".waveform.json") {
                found.append("golden/" + file)
            }
        }
        let sources = found.filter { $0.hasPrefix("golden/sources/") }
        let orphans = Set(found).subtracting(known).subtracting(sources)
        #expect(orphans.isEmpty, "golden files no test compares: \(orphans.sorted())")
    }

    /// A FLAC golden must be loud enough that its own 24-bit rounding leaves the SNR threshold 10 dB of
    /// room; quieter windows are stored as float WAV (name the golden `.wav` in `GoldenCatalog` and re-record).
    @Test(arguments: GoldenCatalog.lossless.filter { $0.golden.hasSuffix(".flac") })
    func flacGoldensHaveHeadroomForTheSNRThreshold(_ golden: GoldenCase) throws {
        guard FileManager.default.fileExists(atPath: golden.goldenPath) else { return }   // the comparison reports it
        let snr = LosslessTier.roundingSNRDb(of: try PCMAudio.decode(path: golden.goldenPath))
        #expect(snr >= LosslessTier.minimumSNRDb + 10,
                "\(golden.golden): 24-bit rounding alone gives \(formatDb(snr)) dB SNR; store this golden as float WAV (.wav)")
    }

    /// Every preset in presets/ has at least one golden.
    @Test func everyPresetHasAGolden() throws {
        let presets = try FileManager.default.contentsOfDirectory(atPath: GoldenPaths.presets.path)
            .filter { $0.hasSuffix(".json") }.map { "presets/" + $0 }
        let covered = Set(GoldenCatalog.all.map(\.preset))
        #expect(!presets.isEmpty)
        for preset in presets { #expect(covered.contains(preset), "\(preset) has no golden in GoldenCatalog") }
    }

    /// golden/ stays small: the repository carries it (4 MB, and 0.25 MB for the goldens of the output formats).
    @Test func goldenFolderStaysSmall() throws {
        var total = 0
        let enumerator = FileManager.default.enumerator(atPath: GoldenPaths.golden.path)
        while let file = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: GoldenPaths.golden(file))
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int) ?? 0 }
        }
        #expect(total <= 4_250_000, "golden/ holds \(total) bytes; keep it under 4.25 MB")
    }
}
