import Foundation
import MixIO
import TestSupport
import Testing

/// Every format the writer supports (`OutputFileFormat.allCases`) is named wherever formats are listed (issue 28:
/// `.m4a` was missing from `render --help`, `key --format`, the waveform's input list and tags.md), so a format
/// added later cannot be left out of one: the help texts take their lists from `OutputFileFormat`, and this test
/// reads them as the user does, with the docs' tables and the service's OpenAPI document.
@Suite struct FormatListTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The words a text uses for each format, as the help texts and the docs write them.
    static let names: [OutputFileFormat: [String]] = [
        .oggVorbis: ["ogg", "Vorbis"], .flac: ["flac", "FLAC"], .wav: ["wav", "WAV"], .mp3: ["mp3", "MP3"],
        .opus: ["opus", "Opus"], .caf: ["caf", "CAF", "ALAC"], .aiff: ["aiff", "AIFF"], .m4a: ["m4a", "M4A", "AAC"],
    ]

    /// The formats `text` names, each word matched whole (`.ogg`, `ogg,`, `Ogg Vorbis`; not `logger`).
    static func formatsNamed(in text: String) -> Set<OutputFileFormat> {
        let words = Set(text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
        return Set(names.filter { !words.isDisjoint(with: $0.value) }.map(\.key))
    }

    /// The help texts that list every format: what the program writes, or reads.
    @Test(arguments: [["--help"], ["render", "--help"], ["key", "--help"], ["validate", "--help"], ["waveform", "--help"],
                      ["info", "--help"], ["loudness", "--help"]])
    func aHelpTextNamesEveryFormat(_ arguments: [String]) throws {
        let run = try CLI.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let named = Self.formatsNamed(in: run.stdout)
        for format in OutputFileFormat.allCases {
            #expect(named.contains(format), "mixrender \(arguments.joined(separator: " ")) does not name .\(format.fileExtension)")
        }
    }

    /// The lists of a kind of format: what a pipe takes (`-o -`), what `join` joins (the lossless ones).
    @Test func theSubsetListsNameTheirWholeSubset() throws {
        let render = try CLI.run(["render", "--help"])
        let stream = try #require(render.stdout.range(of: "--format <format>")).upperBound
        let streamHelp = String(render.stdout[stream...].prefix(200))
        for format in OutputFileFormat.allCases where format.canStream {
            #expect(Self.formatsNamed(in: streamHelp).contains(format), "render --format's help: \(streamHelp)")
        }
        let join = try CLI.run(["join", "--help"])
        for format in OutputFileFormat.allCases where format.isPCM {
            #expect(Self.formatsNamed(in: join.stdout).contains(format), "join --help does not name .\(format.fileExtension)")
        }
    }

    /// A Markdown table in the README or docs/ that names three formats or more names all of them, unless a comment
    /// just above it says it is a selection (`<!-- formats: a selection: ... -->`, e.g. the eight-hour sizes).
    @Test func everyDocsTableOfFormatsNamesEveryFormat() throws {
        var files = [Self.repository.appendingPathComponent("README.md")]
        let docs = Self.repository.appendingPathComponent("docs")
        files += try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
            .map { docs.appendingPathComponent($0) }
        var tablesChecked = 0
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                guard lines[index].hasPrefix("|") else { index += 1; continue }
                let start = index
                while index < lines.count, lines[index].hasPrefix("|") { index += 1 }
                let above = lines[max(0, start - 3)..<start].joined(separator: "\n")
                if above.contains("<!-- formats: a selection") { continue }
                // The first column names the rows; a table of formats has one per row (or one per header cell).
                let rows = lines[start..<index].map { $0.split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? "" }
                let named = [lines[start]] + rows
                let formats = named.reduce(into: Set<OutputFileFormat>()) { $0.formUnion(Self.formatsNamed(in: $1)) }
                guard formats.count >= 3 else { continue }
                tablesChecked += 1
                let missing = OutputFileFormat.allCases.filter { !formats.contains($0) }.map { "." + $0.fileExtension }
                #expect(missing.isEmpty, "\(file.lastPathComponent):\(start + 1): a table of formats without \(missing.joined(separator: ", ")) (name them, or mark the table '<!-- formats: a selection: why -->')")
            }
        }
        #expect(tablesChecked >= 3, "found only \(tablesChecked) tables of formats in the README and docs/")
    }

    /// The render service's OpenAPI document lists every format a render may be written in.
    @Test func theServiceTakesEveryFormat() throws {
        let openapi = try String(contentsOf: Self.repository.appendingPathComponent("Sources/MixServer/Page/openapi.yaml"), encoding: .utf8)
        let line = try #require(openapi.components(separatedBy: "\n").first { $0.contains("enum: [m4a") })
        for format in OutputFileFormat.allCases {
            #expect(line.contains(format.fileExtension), "openapi.yaml's format enum lacks \(format.fileExtension)")
        }
    }
}
