import Foundation
@testable import MixEngine
import Testing

/// A kind is one plug-in: nothing in `Sources/` outside its folder names its type, but the registry's one line
/// (`SourceKinds.all`), so adding or removing a kind touches its folder and that line.
@Suite struct KindFolderTests {
    static let sources = PresetParserDocsTests.docs.deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every Swift file under `Sources/`, by its path from there.
    static func swiftFiles() throws -> [(path: String, text: String)] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: sources.path))
        return try enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: sources.appendingPathComponent($0), encoding: .utf8))
        }
    }

    /// Whether `text` holds `word` as a whole word (not inside `ToneKindTests` or `isToneKind`).
    static func names(_ text: String, _ word: String) -> Bool {
        func isWordCharacter(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
        var rest = text[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            if !isWordCharacter(before) && !isWordCharacter(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }

    @Test func noKindIsNamedOutsideItsFolderAndTheRegistry() throws {
        let files = try Self.swiftFiles()
        #expect(files.count > 100, "found \(files.count) files under \(Self.sources.path)")
        for kind in SourceKinds.all {
            let name = String(describing: kind)
            #expect(name.hasSuffix("Kind"), "\(name)")
            let folder = "MixEngine/SourceKinds/\(name.dropLast(4))/"
            let outside = files.filter { !$0.path.hasPrefix(folder) && Self.names($0.text, name) }.map(\.path)
            #expect(outside == ["MixEngine/SourceKinds/SourceKinds.swift"], "\(name) is named outside \(folder): \(outside)")
            #expect(files.contains { $0.path.hasPrefix(folder) }, "\(name) has no folder \(folder)")
        }
    }
}
