import Testing
@testable import MixEngine

/// The kinds a reader knows are given to it, not named by it: the same document read with fewer kinds refuses what
/// it was not given, naming the kinds it was.
@Suite struct SourceKindRegistryTests {
    static func track(_ json: String, kinds: SourceKindRegistry) throws -> TrackSpec {
        var reader = PresetReader(baseDirectory: "/")
        reader.kinds = kinds
        var warnings: [String] = []
        return try reader.track(JSONCursor(try JSONValue.parse(Array(json.utf8)), file: "test.json"), duration: 10, warnings: &warnings)
    }

    @Test func aReaderReadsOnlyTheKindsItIsGiven() throws {
        let rain = #"{"rain": {"intensity": 0.5}, "gainDb": -6}"#
        _ = try Self.track(rain, kinds: .standard)
        let fewer = SourceKindRegistry(kinds: SourceKindRegistry.standard.kinds.filter { $0.key != "rain" })
        #expect(fewer.keys.count == SourceKindRegistry.standard.keys.count - 1)
        do {
            _ = try Self.track(rain, kinds: fewer)
            Issue.record("a rain track was read by a reader given no rain")
        } catch {
            let message = "\(error)"
            #expect(message.contains("unknown key 'rain'") && message.contains("generator, playlist") && !message.contains(" rain,"), "\(message)")
        }
        #expect(SourceKindRegistry.standard.keys == SourceKinds.keys)
        #expect(SourceKindRegistry.standard.loopableKeys.contains("file"))
    }
}
