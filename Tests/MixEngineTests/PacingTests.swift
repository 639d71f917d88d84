import Foundation
import MixDSP
@testable import MixEngine
import MixIO
import DSPTestSupport
import Testing
import TestSupport

/// How a stretching section spreads the time it gains (`SectionPacing`), to the frame: recordings of exact
/// lengths at the output rate, so the natural layout is known in frames.
@Suite struct PacingTests {
    static let rate = 16_000

    /// One segment (1 s, 1 s pause) in "A"; three (1 s each, 1 s pause each) in the stretching "S"; one in "C".
    /// Natural: A 0-2 s, S 2-8 s (segments at 2, 4, 6 s), C 8-9 s.
    static func session(_ folder: TemporaryFolder, pacing: String = "", duration: String = "69") throws -> RenderJob {
        for name in ["a", "b", "c"] {
            _ = try SessionTests.voiceFile(folder, "\(name).wav", rate: rate, seconds: 1, speech: [(0, 1)], seed: 3)
        }
        let segment = #"{ "file": "b.wav", "pauseAfter": "1s" }"#
        return try SessionTests.job("""
            { "duration": \(duration), "output": { "sampleRate": \(rate), "channels": 1 },
              "sections": [
                { "name": "A", "segments": [ { "file": "a.wav", "pauseAfter": "1s" } ] },
                { "name": "S", "stretch": true \(pacing), "segments": [ \(segment), \(segment), \(segment) ] },
                { "name": "C", "segments": [ { "file": "c.wav" } ] } ] }
            """, in: folder)
    }

    /// The three starts of S's segments and C's start, in frames.
    static func starts(_ job: RenderJob) -> [Int64] {
        job.plan.timeline.segments.filter { $0.section == 1 }.map(\.start) + [job.plan.timeline.sections[2].start]
    }

    static func frames(_ seconds: Double) -> Int64 { Int64(seconds * Double(rate)) }

    @Test(arguments: [
        ("", [2, 24, 46, 68]),                                                    // even (default): 20 s after each
        (#", "pacing": "even""#, [2, 24, 46, 68]),
        (#", "pacing": "end""#, [2, 4, 6, 68]),                                   // the voice's own timing, 60 s at the end
        (#", "pacing": [1, 2, 1]"#, [2, 19, 51, 68]),                             // 15, 30, 15 s
        (#", "longestPause": "10s""#, [2, 13, 24, 68]),                           // 9 s added to the first two, 42 s to the last
        (#", "pacing": [0, 0, 1], "shortestPause": "5s""#, [2, 8, 14, 68]),       // every pause raised to 5 s, the rest at the end
    ])
    func theAddedTimeGoesWhereThePacingSays(pacing: String, seconds: [Double]) throws {
        let job = try Self.session(TemporaryFolder(), pacing: pacing)
        #expect(Self.starts(job) == seconds.map(Self.frames), "\(pacing)")
        #expect(job.plan.outputFrameCount == Self.frames(69))
    }

    /// One frame that does not divide by three goes to the last pause; everything else to the frame.
    @Test func oddFramesGoToTheLastPause() throws {
        let job = try Self.session(TemporaryFolder(), duration: "69.0001875")     // 3 frames more
        #expect(Self.starts(job) == [2, 24, 46].map(Self.frames).enumerated().map { $0.element + Int64($0.offset) } + [Self.frames(68) + 3])
    }

    @Test func theSharesAreWholeFramesThatAddUp() {
        let added = SectionPacing.weights([1, 1, 1]).added(to: [0, 0, 0], extra: 10, shortest: 0, longest: nil)
        #expect(added == [3, 3, 4])
        let capped = SectionPacing.even.added(to: [5, 0, 0], extra: 30, shortest: 0, longest: 8)
        #expect(capped == [3, 8, 19])
        #expect(capped.reduce(0, +) == 30)
        #expect(SectionPacing.even.added(to: [1, 2], extra: 0, shortest: 10, longest: nil) == [0, 0])
    }

    /// The issue's case: a 20-minute session whose stretching section holds three suggestions. Under the default
    /// pacing its longest silence is a third of the section's added time (plus the natural pause), not all of it.
    @Test func aTwentyMinuteSessionsLongestSilenceIsBounded() throws {
        let job = try Self.session(TemporaryFolder(), duration: "\"20m\"")
        let timeline = job.plan.timeline
        var edges = timeline.segments.map { ($0.start, $0.end) }
        edges.sort { $0.0 < $1.0 }
        let silences = zip(edges, edges.dropFirst()).map { $1.0 - $0.1 } + [job.plan.outputFrameCount - edges.last!.1]
        let added = timeline.sections[1].addedFrames
        let longest = try #require(silences.max())
        #expect(longest <= added / 3 + 1 + Self.frames(1), "longest silence \(Double(longest) / Double(Self.rate)) s")
        #expect(Double(longest) / Double(Self.rate) < 400, "\(Double(longest) / Double(Self.rate)) s")   // 20 min: 6:37 at most
        let atTheEnd = try Self.session(TemporaryFolder(), pacing: #", "pacing": "end""#, duration: "\"20m\"")
        #expect(Self.starts(atTheEnd)[2] == Self.frames(6), "'end' keeps the voice's timing")
    }

    @Test(arguments: [
        (#", "pacing": [1, 2]"#, "sections[1].pacing: 2 weights for 3 segments"),
        (#", "pacing": "middle""#, "sections[1].pacing"),
        (#", "pacing": [0, 0, 0]"#, "at least one weight must be above 0"),
        (#", "shortestPause": "20s", "longestPause": "10s""#, "sections[1].longestPause: the longest pause is shorter than the shortest"),
    ])
    func badPacingIsNamed(pacing: String, fragment: String) throws {
        do {
            _ = try Self.session(TemporaryFolder(), pacing: pacing)
            Issue.record("accepted \(pacing)")
        } catch {
            #expect("\(error)".contains(fragment), "\(error)")
        }
    }

    @Test func pacingWithoutStretchIsRefused() throws {
        let folder = try TemporaryFolder()
        _ = try SessionTests.voiceFile(folder, "a.wav", rate: Self.rate, seconds: 1, speech: [(0, 1)])
        let error = SessionTests.error("""
            { "sections": [ { "name": "A", "pacing": "end", "segments": [ { "file": "\(folder.path("a.wav"))" } ] } ] }
            """)
        #expect(error.contains("sections[0].pacing: 'pacing' says how a stretching section spreads its added time"), "\(error)")
    }
}
