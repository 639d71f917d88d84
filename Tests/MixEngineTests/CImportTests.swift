import Foundation
import Testing

/// MixIO is the one module that calls C (docs/architecture.md): no other module of the project imports the C library
/// (`Glibc`, `Musl`, `Darwin`) or one of the project's C modules (`CSndFile`, `CFFmpeg`, ...). Computed from the
/// sources, so a new file that reaches for C fails here, naming the file and the import.
@Suite struct CImportTests {
    @Test func onlyMixIOImportsC() throws {
        let sources = KindFolderTests.sources
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path)
        let cModules = Set(modules.filter { $0.hasPrefix("C") && $0.dropFirst().first?.isUppercase == true })
        #expect(cModules.contains("CSndFile") && cModules.contains("CFFmpeg"), "found \(cModules.sorted())")
        let forbidden = cModules.union(["Glibc", "Musl", "Darwin", "ucrt", "WinSDK"])
        var found: [String] = []
        var files = 0
        for module in modules.sorted() where module != "MixIO" && !cModules.contains(module) {
            let root = sources.appendingPathComponent(module)
            guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let path as String in enumerator where path.hasSuffix(".swift") {
                files += 1
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    guard let at = words.firstIndex(of: "import"), at + 1 < words.count else { continue }
                    let imported = words[at + 1].split(separator: ".").first.map(String.init) ?? ""
                    if forbidden.contains(imported), words[..<at].allSatisfy({ ["@_implementationOnly", "@preconcurrency", "public", "package", "internal", "private"].contains($0) }) {
                        found.append("\(module)/\(path): import \(imported)")
                    }
                }
            }
        }
        #expect(files > 200, "read \(files) files under \(sources.path)")
        #expect(found.isEmpty, "C imported outside MixIO:\n\(found.joined(separator: "\n"))")
    }
}
