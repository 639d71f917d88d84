import DSPTestSupport
import Foundation
import MixEngine
import Testing

/// The spoken tier tells apart what it must: golden/features/speech.json rendered as it is passes against its
/// golden; with its neural voice placed 20 ms later, slower, another voice, or 2 dB louder, it fails.
@Suite struct SpokenTierTests {
    static let preset = GoldenPaths.root.appendingPathComponent("golden/features/speech.json").path
    static let golden = GoldenPaths.root.appendingPathComponent("golden/features/speech.flac").path

    /// The speech feature with `change` applied to its text, rendered into memory.
    func render(_ change: (String) -> String) throws -> PCMAudio {
        let folder = try TemporaryFolder()
        let text = change(try String(contentsOfFile: Self.preset, encoding: .utf8))
        let path = try folder.write("speech.json", text)
        return try GoldenRender.toMemory(path).audio
    }

    func passes(_ actual: PCMAudio) throws -> Bool {
        let golden = try PCMAudio.decode(path: Self.golden)
        guard ExactTier.mismatches(actual: actual, golden: golden).isEmpty else { return false }
        return SpokenTier.isWithinThresholds(SpokenTier.compare(actual: actual, golden: golden))
    }

    @Test func theFeatureAsItIsPasses() throws {
        #expect(try passes(render { $0 }))
    }

    @Test(arguments: [
        ("placed 20 ms later", #""start": 0.5 }"#, #""start": 0.52 }"#),
        ("slower", #""speed": 0.95"#, #""speed": 0.9"#),
        ("another voice", #"{ "speech": { "text": "Hello there." }"#, #"{ "speech": { "text": "Hello there.", "voice": "espeak:en-us" }"#),
        ("the voice 2 dB louder", #""levelDb": -18"#, #""levelDb": -16"#),
    ])
    func aChangedVoiceFails(what: String, from: String, to: String) throws {
        let audio = try render { text in
            precondition(text.contains(from), "\(what): the feature no longer holds \(from)")
            return text.replacingOccurrences(of: from, with: to)
        }
        #expect(try !passes(audio), "\(what) passed the spoken tier")
    }
}
