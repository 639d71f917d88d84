import Foundation
import Testing

/// The graph of MixEngine's folders, computed from the sources: folder A uses folder B when a file in A names a type
/// that only B declares at the top level of one of its files (comments left out). The engine is in layers (issue 55):
/// each folder uses only folders of layers below its own, so there is no loop. A use that goes up or sideways, a loop,
/// or a folder no layer lists fails the test, naming the types that make the use.
@Suite struct FolderGraphTests {
    /// MixEngine's folders from the bottom up, in the order data flows (docs/architecture.md lists them so): the
    /// values and the reading vocabulary; the kinds' contract and the kinds; the preset, its session and its files;
    /// the plan; the material prepared, the master chain and its sinks, the render loop, analysis and waveforms;
    /// loudness (measuring passes are renders); outputs and finishing steps; the job; the batch.
    static let layers: [[String]] = [
        ["Values", "Errors", "Concurrency"],
        ["Reading"],
        ["Contract"],
        ["SourceKinds", "Session"],
        ["Preset"],
        ["Plan", "Files"],
        ["Preparation", "Master", "Join"],
        ["Analysis", "Render", "Waveform"],
        ["Loudness"],
        ["Output"],
        ["Job"],
        ["Batch"],
    ]

    /// Folder to the folders it uses.
    static func graph() throws -> [String: Set<String>] { try uses().mapValues { Set($0.keys) } }

    /// Folder to the folders it uses, each with the types it names there.
    static func uses() throws -> [String: [String: Set<String>]] {
        let root = KindFolderTests.sources.appendingPathComponent("MixEngine")
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        var files: [(folder: String, code: String)] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            let folder = path.contains("/") ? String(path.prefix { $0 != "/" }) : "(root)"
            // Comments name types without using them.
            let code = text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line) }
                .joined(separator: "\n")
            files.append((folder, code))
        }
        #expect(files.count > 50, "found \(files.count) files under \(root.path)")
        // Types declared at a file's top level, by the folder that declares them (a name declared in two is left out).
        let declaration = /^(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)/
            .anchorsMatchLineEndings()
        var declaredIn: [String: Set<String>] = [:]
        for file in files {
            for match in file.code.matches(of: declaration) { declaredIn[String(match.1), default: []].insert(file.folder) }
        }
        let owner = declaredIn.compactMapValues { $0.count == 1 ? $0.first : nil }
        var uses: [String: [String: Set<String>]] = [:]
        for file in files {
            uses[file.folder, default: [:]].merge([:]) { a, _ in a }
            // Simple word boundaries: Unicode's default would read `Type.member` as one word.
            for match in file.code.matches(of: /\b[A-Z][A-Za-z0-9_]*\b/.wordBoundaryKind(.simple)) {
                if let used = owner[String(match.0)], used != file.folder { uses[file.folder, default: [:]][used, default: []].insert(String(match.0)) }
            }
        }
        return uses
    }

    /// The strongly connected components with more than one folder (Tarjan's algorithm).
    static func loops(_ graph: [String: Set<String>]) -> [Set<String>] {
        var index: [String: Int] = [:], low: [String: Int] = [:], stack: [String] = [], onStack: Set<String> = []
        var next = 0, found: [Set<String>] = []
        func visit(_ v: String) {
            index[v] = next; low[v] = next; next += 1
            stack.append(v); onStack.insert(v)
            for w in (graph[v] ?? []).sorted() {
                if index[w] == nil { visit(w); low[v] = min(low[v]!, low[w]!) }
                else if onStack.contains(w) { low[v] = min(low[v]!, index[w]!) }
            }
            guard low[v] == index[v] else { return }
            var component: Set<String> = []
            while let w = stack.popLast() {
                onStack.remove(w)
                component.insert(w)
                if w == v { break }
            }
            if component.count > 1 { found.append(component) }
        }
        for v in graph.keys.sorted() where index[v] == nil { visit(v) }
        return found
    }

    @Test func everyFolderUsesOnlyTheLayersBelowIt() throws {
        let uses = try Self.uses()
        let layer = Dictionary(uniqueKeysWithValues: Self.layers.enumerated().flatMap { i, folders in folders.map { ($0, i) } })
        #expect(Set(uses.keys).subtracting(layer.keys).isEmpty, "folders no layer lists: \(Set(uses.keys).subtracting(layer.keys).sorted())")
        #expect(Set(layer.keys).subtracting(uses.keys).isEmpty, "listed folders with no sources: \(Set(layer.keys).subtracting(uses.keys).sorted())")
        for (folder, used) in uses.sorted(by: { $0.key < $1.key }) {
            for (other, types) in used.sorted(by: { $0.key < $1.key }) where (layer[other] ?? .max) >= (layer[folder] ?? .max) {
                Issue.record("\(folder) (layer \(layer[folder] ?? -1)) uses \(other) (layer \(layer[other] ?? -1)), not below it: \(types.sorted().joined(separator: ", "))")
            }
        }
        #expect(Self.loops(uses.mapValues { Set($0.keys) }).isEmpty)
    }

    /// The graph is computed, not assumed: two folders made to use each other in a copy of the graph form a loop,
    /// and the engine's own graph has as many folders as the layers list.
    @Test func aPairOfFoldersUsingEachOtherIsALoop() throws {
        var graph = try Self.graph()
        #expect(graph.count == Self.layers.joined().count, "\(graph.keys.sorted())")
        #expect(graph["Job"]?.contains("Render") == true && graph["Contract"]?.contains("Errors") == true, "\(graph)")
        let (a, b) = ("Values", "Batch")
        graph[a, default: []].insert(b)
        graph[b, default: []].insert(a)
        #expect(Self.loops(graph).contains { $0.isSuperset(of: [a, b]) })
    }
}
