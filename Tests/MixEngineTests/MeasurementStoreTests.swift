import DSPTestSupport
import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import Testing
import TestSupport

/// Measurements kept in a `MaterialStore` between processes (`MeasurementCache` with a store): a second
/// `PreparedMaterial` on the same folder, as another process has, reads tracks' loudness and the normalisation
/// instead of measuring them.
@Suite struct MeasurementStoreTests {
    @Test func tracksLoudnessAndTheNormalisationAreReadFromTheStore() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("mix.json", #"""
            { "duration": "8s", "output": { "sampleRate": 8000, "loudness": { "target": -20 } },
              "tracks": [ { "name": "bed", "generator": { "type": "pink" }, "loudness": -30 },
                          { "generator": { "type": "brown" }, "loudness": { "track": "bed", "offset": -6 } } ] }
            """#)
        let store = try MaterialStore(folder: folder.path("cache"))
        let one = PreparedMaterial(store: store)
        let first = try RenderJob(presetPath: path, analyzer: Analyzer(material: one))
        let a = try first.render(to: folder.path("a.wav"), material: one)
        #expect(one.measurements.measured == 3 && one.measurements.fromStore == 0)
        #expect(a.normalisation?.reusedFrom == nil)
        let files = try FileSystem.folderEntries(store.folder).filter { $0.hasSuffix(".measure.json") }
        #expect(files.count == 3)

        // Another process: nothing is measured, everything is read, and the render is the same.
        let two = PreparedMaterial(store: store)
        let second = try RenderJob(presetPath: path, analyzer: Analyzer(material: two))
        #expect(two.measurements.measured == 0 && two.measurements.fromStore == 2)
        #expect(second.plan.tracks.map(\.gains.constant) == first.plan.tracks.map(\.gains.constant))
        let b = try second.render(to: folder.path("b.wav"), material: two)
        #expect(two.measurements.measured == 0 && two.measurements.fromStore == 3)
        #expect(b.normalisation?.reusedFrom == .cacheFolder && b.normalisation?.seconds == 0)
        #expect(b.normalisation?.gainDb == a.normalisation?.gainDb)
        #expect(b.normalisation?.measuringPasses == a.normalisation?.measuringPasses)
        #expect(two.damagedEntries.isEmpty && two.storeProblems.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.path("a.wav"))) == Data(contentsOf: URL(fileURLWithPath: folder.path("b.wav"))))
        // Rendered again by the same process: found in memory.
        let c = try second.render(to: folder.path("c.wav"), material: two)
        #expect(c.normalisation?.reusedFrom == .process && two.measurements.reused >= 1)
    }

    /// A silent track's loudness is -infinity: written as null, read back as -infinity, so the second process gives
    /// the same error without measuring. A file stands for itself by its content in the stored key.
    @Test func aSilentTracksLoudnessIsKeptAsNull() throws {
        let folder = try TemporaryFolder()
        _ = try folder.wav("silence.wav", frames: 8_000) { _, _ in 0 }
        let path = try folder.write("mix.json", #"""
            { "duration": "4s", "output": { "sampleRate": 8000 },
              "tracks": [ { "file": "silence.wav", "loop": true, "loudness": -30 } ] }
            """#)
        let store = try MaterialStore(folder: folder.path("cache"))
        func attempt(_ material: PreparedMaterial) -> String {
            do { _ = try RenderJob(presetPath: path, analyzer: Analyzer(material: material)); return "" } catch { return "\(error)" }
        }
        let one = PreparedMaterial(store: store), two = PreparedMaterial(store: store)
        let error = attempt(one)
        #expect(error.contains("the track is silent where it is measured"), "\(error)")
        #expect(one.measurements.measured == 1)
        let files = try FileSystem.folderEntries(store.folder).filter { $0.hasSuffix(".measure.json") }
        #expect(files.count == 1)
        let text = try String(contentsOfFile: store.folder + "/" + files[0], encoding: .utf8)
        #expect(text.contains(#""loudnessLUFS": null"#), "\(text)")
        #expect(attempt(two) == error)
        #expect(two.measurements.measured == 0 && two.measurements.fromStore == 1)
    }

    /// Measurements are entries of the folder: counted in its budget and trimmed, least recently used first.
    @Test func measurementsAreCountedInTheBudget() throws {
        let folder = try TemporaryFolder()
        let store = try MaterialStore(folder: folder.path("cache"), budgetBytes: 600)
        let keys = (0..<4).map { ContentHash.of("key \($0)") }
        for key in keys {
            try store.storeMeasurement(Double(-23).storedValue, for: key, what: "a test measurement with words to take some room")
        }
        let kept = try FileSystem.folderEntries(store.folder).filter { $0.hasSuffix(".measure.json") }
        #expect(!kept.isEmpty && kept.count < 4, "\(kept)")
        let bytes = try kept.map { try FileSystem.status(of: store.folder + "/" + $0).size }.reduce(0, +)
        #expect(bytes <= 600)
        for key in keys {
            let found = try store.measurement(for: key) { try Double(stored: $0) }
            #expect(found == (kept.contains(key + ".measure.json") ? -23 : nil))
        }
    }
}
