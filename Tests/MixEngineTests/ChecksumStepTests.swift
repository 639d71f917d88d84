import Foundation
@testable import MixEngine
import MixIO
import Testing
import DSPTestSupport
import TestSupport

/// The finishing step issue 55 added to show that a step is one addition: the file hashed before its rename, the
/// digest in the result and the report.
@Suite struct ChecksumStepTests {
    static let preset = #"{ "duration": 3, "tracks": [ { "tone": { "frequencyHz": 220 }, "gainDb": -6 } ] }"#

    /// The SHA-256 of the file at `path`, read whole (not the step's streaming read).
    static func sha256(_ path: String) throws -> String {
        var hash = ContentHash()
        try FileSystem.readDocument(path: path, maximumBytes: 1 << 30).withUnsafeBytes { hash.update($0) }
        return hash.hex
    }

    @Test(arguments: ["out.flac", "out.ogg", "out.m4a"])
    func theDigestIsOfTheCommittedFile(name: String) throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.preset(Self.preset))
        let plan = try job.outputPlan(to: .file(path: folder.path(name)), checksum: true)
        // It runs last but for the rename: after the tags are written, before the file is in place.
        let steps = plan.finishing.map { String(describing: type(of: $0)) }
        #expect(Array(steps.suffix(2)) == ["ChecksumStep", "CommitStep"], "\(steps)")
        let result = try job.render(plan)
        let checksum = try #require(result.outputChecksum)
        #expect(checksum.sha256 == (try Self.sha256(folder.path(name))))
        #expect(checksum.bytes == result.outputBytes)
        // The report gives that digest, without hashing the file again.
        let report = try RenderReport(job: job, result: result, inputs: RenderReport.Inputs(job: job, output: folder.path(name)))
        #expect(report.outputSHA256 == checksum.sha256)
    }

    @Test func withoutAskingNothingIsHashedAndTheReportHashesTheFile() throws {
        let folder = try TemporaryFolder()
        let job = try RenderJob(presetPath: try folder.preset(Self.preset))
        let plan = try job.outputPlan(to: .file(path: folder.path("out.wav")))
        #expect(!plan.finishing.contains { $0 is ChecksumStep })
        let result = try job.render(plan)
        #expect(result.outputChecksum == nil)
        let report = try RenderReport(job: job, result: result, inputs: RenderReport.Inputs(job: job, output: folder.path("out.wav")))
        #expect(report.outputSHA256 == (try Self.sha256(folder.path("out.wav"))))
    }
}
