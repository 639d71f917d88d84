import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// `--report` and `mixrender key`: the report's fields agree with what was written and with the key the
/// `key` command prints; the report validates against docs/report.schema.json; bad paths write nothing.
@Suite struct ReportCLITests {
    static let docs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs")

    func session() throws -> (TemporaryFolder, String) {
        let s = try TemporaryFolder()
        _ = try s.wav("sine.wav", rate: 44100, frames: 44100 * 2, TestSignals.sine(frequency: 1000, amplitude: 0.5, rate: 44100))
        let preset = try s.write("mix.json", """
            { "duration": "3s", "output": { "sampleRate": 48000, "bitDepth": 24 },
              "tracks": [ { "file": "sine.wav", "loop": true, "gainDb": -6 },
                          { "generator": { "type": "pink" }, "gainDb": -30 } ] }
            """)
        return (s, preset)
    }

    func sha256(_ path: String) throws -> String {
        var hash = ContentHash()
        try FileSystem.readDocument(path: path, maximumBytes: 1 << 30).withUnsafeBytes { hash.update($0) }
        return hash.hex
    }

    @Test(arguments: ["out.flac", "out.ogg"])
    func theReportDescribesTheRender(name: String) throws {
        let (s, preset) = try session()
        let r = try CLI.run([preset, "-o", s.path(name), "--report", s.path("report.json"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try readJSONObject(s.path("report.json"))

        let output = try #require(report["output"] as? [String: Any])
        #expect(output["sha256"] as? String == (try sha256(s.path(name))))
        #expect((output["bytes"] as? NSNumber)?.int64Value == FileSystem.identity(of: s.path(name))?.size)
        let info = try AudioFileInfo.read(path: s.path(name))
        #expect((output["frames"] as? NSNumber)?.int64Value == info.frameCount)
        #expect(info.frameCount == 3 * 48000)
        #expect(output["format"] as? String == String(name.split(separator: ".").last!))

        let inputs = try #require(report["inputs"] as? [[String: Any]])
        #expect(inputs.count == 1)
        #expect((inputs.first?["bytes"] as? NSNumber)?.int64Value == FileSystem.identity(of: s.path("sine.wav"))?.size)
        #expect(inputs.first?["sha256"] as? String == (try sha256(s.path("sine.wav"))))
        #expect((inputs.first?["frames"] as? NSNumber)?.intValue == 88200)
        #expect((inputs.first?["sampleRate"] as? NSNumber)?.intValue == 44100)

        let levels = try #require(report["levels"] as? [String: Any])
        let integrated = try #require((levels["integratedLUFS"] as? NSNumber)?.doubleValue)
        #expect(abs(integrated - (try LoudnessMeter.measure(path: s.path(name), truePeak: false).integrated)) < (name.hasSuffix(".ogg") ? 0.3 : 0.05))
        #expect((report["mixrender"] as? [String: Any])?["version"] as? String == (try CLI.run(["--version"])).stdout.trimmingCharacters(in: .whitespacesAndNewlines))

        let timings = try #require(report["timings"] as? [String: Any])
        let render = try #require(timings["render"] as? [String: Any])
        #expect(((render["wallSeconds"] as? NSNumber)?.doubleValue ?? 0) > 0)
        #expect(((render["cpuSeconds"] as? NSNumber)?.doubleValue ?? 0) > 0)

        // The key command prints the same keys without rendering.
        let key = try #require(report["cacheKey"] as? [String: Any])
        let audio = try CLI.run(["key", preset])
        #expect(audio.status == 0, "\(audio.stderr)")
        #expect(audio.stdout == "\(key["audio"] as? String ?? "?")\n")
        let file = try CLI.run(["key", preset, "--format", String(name.split(separator: ".").last!)])
        #expect(file.stdout == "\(key["file"] as? String ?? "?")\n")
        #expect(s.contents == ["mix.json", name, "report.json", "sine.wav"].sorted())
    }

    @Test func theKeyFollowsTheOverridesAsTheRenderDoes() throws {
        let (s, preset) = try session()
        let r = try CLI.run([preset, "-o", s.path("out.wav"), "--duration", "2s", "--report", s.path("r.json"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let key = try #require(try readJSONObject(s.path("r.json"))["cacheKey"] as? [String: Any])
        #expect(try CLI.run(["key", preset, "--duration", "2s"]).stdout == "\(key["audio"] as? String ?? "?")\n")
        #expect(try CLI.run(["key", preset]).stdout != "\(key["audio"] as? String ?? "?")\n")
    }

    // MARK: - Schema

    static func schema() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: docs.appendingPathComponent("report.schema.json"))) as? [String: Any])
    }

    /// The subset of JSON Schema the report's schema uses: type, required, properties, additionalProperties
    /// false, items, $ref to $defs, oneOf, enum, const, pattern. Returns the problems, with their paths.
    static func check(_ value: Any, against node: [String: Any], root: [String: Any], path: String = "$") -> [String] {
        if let ref = node["$ref"] as? String {
            let name = String(ref.dropFirst("#/$defs/".count))
            guard let target = (root["$defs"] as? [String: Any])?[name] as? [String: Any] else { return ["\(path): unknown $ref \(ref)"] }
            return check(value, against: target, root: root, path: path)
        }
        if let options = node["oneOf"] as? [[String: Any]] {
            let passing = options.filter { check(value, against: $0, root: root, path: path).isEmpty }.count
            return passing == 1 ? [] : ["\(path): matches \(passing) of oneOf"]
        }
        var problems: [String] = []
        let types = (node["type"] as? [String]) ?? (node["type"] as? String).map { [$0] } ?? []
        func kind(_ v: Any) -> Set<String> {
            if v is NSNull { return ["null"] }
            if let n = v as? NSNumber {
                // (The report writes no booleans; JSONSerialization gives them as numbers too.)
                return n.doubleValue == n.doubleValue.rounded() && !"\(n)".contains(".") && !"\(n)".contains("e") ? ["integer", "number"] : ["number"]
            }
            if v is String { return ["string"] }
            if v is [Any] { return ["array"] }
            if v is [String: Any] { return ["object"] }
            return []
        }
        if !types.isEmpty && kind(value).isDisjoint(with: types) { return ["\(path): \(value) is not \(types)"] }
        if let allowed = node["enum"] as? [Any], !allowed.contains(where: { "\($0)" == "\(value)" }) { problems.append("\(path): \(value) not in enum") }
        if let constant = node["const"], "\(constant)" != "\(value)" { problems.append("\(path): \(value) is not \(constant)") }
        if let pattern = node["pattern"] as? String, let s = value as? String, s.range(of: pattern, options: .regularExpression) == nil {
            problems.append("\(path): '\(s)' does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            for key in node["required"] as? [String] ?? [] where object[key] == nil { problems.append("\(path): missing \(key)") }
            let properties = node["properties"] as? [String: Any] ?? [:]
            for (key, v) in object {
                if let p = properties[key] as? [String: Any] {
                    problems += check(v, against: p, root: root, path: "\(path).\(key)")
                } else if node["additionalProperties"] as? Bool == false {
                    problems.append("\(path): unexpected \(key)")
                }
            }
        }
        if let array = value as? [Any], let items = node["items"] as? [String: Any] {
            for (i, v) in array.enumerated() { problems += check(v, against: items, root: root, path: "\(path)[\(i)]") }
        }
        return problems
    }

    /// `--report -` (issue 28): the report on standard output, the same document a file gets but for the run's
    /// timings, the summary on standard error, and no file named "-".
    @Test func aReportOnStandardOutput() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": 2, "output": { "sampleRate": 8000 }, "tracks": [ { "tone": { "frequencyHz": 440 }, "volume": 0.5 } ] }"#)
        let run = try CLI.run([preset, "-o", "out.flac", "--report", "-"], in: s.url)
        #expect(run.status == 0, "\(run.stderr)")
        let onStdout = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(run.stderr.hasPrefix("wrote     out.flac\n") && !run.stderr.contains("report "), "\(run.stderr)")
        #expect(s.contents == ["out.flac", "p.json"])
        let file = try CLI.run([preset, "-o", "again.flac", "--report", "report.json", "-q"], in: s.url)
        #expect(file.status == 0, "\(file.stderr)")
        let inFile = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("report.json"))) as? [String: Any])
        #expect(Set(onStdout.keys) == Set(inFile.keys))
        #expect(onStdout["cacheKey"] as? String == inFile["cacheKey"] as? String)
        let sha = { (d: [String: Any]) in (d["output"] as? [String: Any])?["sha256"] as? String }
        #expect(sha(onStdout) != nil && sha(onStdout) == sha(inFile))
        // Audio and report cannot share standard output.
        let both = try CLI.run([preset, "-o", "-", "--format", "flac", "--report", "-"], in: s.url)
        #expect(both.status != 0 && both.stderr.contains("--report"), "\(both.stderr)")
    }

    @Test func aRealReportValidatesAgainstTheSchema() throws {
        let (s, preset) = try session()
        // Normalised, so the normalisation object is there too.
        let r = try CLI.run([preset, "-o", s.path("out.ogg"), "--loudness", "-20", "--report", s.path("report.json"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.path("report.json"))))
        let schema = try Self.schema()
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let problems = Self.check(report, against: schema, root: schema)
        #expect(problems.isEmpty, "\(problems)")
        #expect(((report as? [String: Any])?["levels"] as? [String: Any])?["normalisation"] is [String: Any])
        // The checker does find a problem.
        var broken = try #require(report as? [String: Any])
        broken["output"] = ["path": 3]
        #expect(!Self.check(broken, against: schema, root: schema).isEmpty)
    }

    /// Every property the schema names is described in docs/report.md (as `name` in a table).
    /// A session's report gives its speech synthesis (`timings.synthesise`), and validates against the schema.
    @Test func aSessionsReportGivesItsSynthesis() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("session.json", SessionCLITests.oneSection(#"{ "text": "Hello there.", "speech": { "voice": "espeak:en-us" } }"#))
        let r = try CLI.run([preset, "-o", s.path("out.flac"), "--report", s.path("report.json"), "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: s.path("report.json"))))
        let schema = try Self.schema()
        let problems = Self.check(report, against: schema, root: schema)
        #expect(problems.isEmpty, "\(problems)")
        let synthesis = ((report as? [String: Any])?["timings"] as? [String: Any])?["synthesise"] as? [String: Any]
        #expect((synthesis?["speechSeconds"] as? Double ?? 0) > 0.3, "\(synthesis ?? [:])")
        #expect((synthesis?["wallSeconds"] as? Double ?? -1) >= 0, "\(synthesis ?? [:])")
    }

    @Test func everySchemaFieldIsDocumented() throws {
        let doc = try String(contentsOf: Self.docs.appendingPathComponent("report.md"), encoding: .utf8)
        var names = Set<String>()
        func collect(_ node: Any) {
            if let object = node as? [String: Any] {
                if let properties = object["properties"] as? [String: Any] { names.formUnion(properties.keys) }
                object.values.forEach(collect)
            } else if let array = node as? [Any] { array.forEach(collect) }
        }
        collect(try Self.schema())
        #expect(names.count > 40)
        for name in names.sorted() { #expect(doc.contains("`\(name)`"), "docs/report.md does not describe '\(name)'") }
    }

    // MARK: - Bad input

    @Test(arguments: [
        ("missing folder", ["--report", "no/such/folder/r.json"], "does not exist"),
        ("same as the output", ["--report", "OUT"], "--report"),
        ("same as the timeline", ["--timeline", "t.json", "--report", "t.json"], "--report"),
    ])
    func badReportPathsWriteNothing(what: String, extra: [String], fragment: String) throws {
        let (s, preset) = try session()
        let before = s.contents
        let out = s.path("out.flac")
        let arguments = extra.map { $0 == "OUT" ? out : ($0.hasSuffix(".json") ? s.path($0) : $0) }
        let r = try CLI.run([preset, "-o", out] + arguments)
        #expect(r.status != 0, "\(what): exit status 0")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(what): \(r.stderr)")
        #expect(r.stderr.contains(fragment), "\(what): \(r.stderr)")
        #expect(s.contents == before, "\(what): left \(s.contents)")
    }

    @Test func aFailedRenderWritesNoReport() throws {
        let s = try TemporaryFolder()
        let preset = try s.write("p.json", #"{ "duration": 10, "tracks": [ { "file": "nowhere.wav" } ] }"#)
        let r = try CLI.run([preset, "-o", s.path("out.wav"), "--report", s.path("r.json")])
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(s.contents == ["p.json"])
        let k = try CLI.run(["key", preset])
        #expect(k.status != 0 && k.stdout.isEmpty && k.stderr.contains("tracks[0].file"), "\(k.stderr)")
        let f = try CLI.run(["key", preset, "--format", "aac"])
        #expect(f.status != 0 && f.stderr.contains("--format"), "\(f.stderr)")
    }
}
