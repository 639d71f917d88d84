import DSPTestSupport
import Foundation
import TestSupport
import Testing

/// The README's usage block runs as written (issue 28: `info rain.ogg` named a file that is not there, `batch
/// jobs.jsonl` a list that did not ship, `join part1.flac ...` parts nothing made). In a scratch copy of what a
/// clone holds (the files git tracks), after the set-up's own render (`scripts/setup.sh`'s last line: the default
/// preset to `night.ogg`), every line of the block marked `<!-- usage: ... -->` runs in order, as `/bin/sh -c` runs
/// it with `mixrender` on the PATH, and must exit 0 and write every file it names.
@Suite struct ReadmeUsageTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The usage block's command lines, without their comments.
    static func usageLines() throws -> [String] {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let marker = try #require(lines.firstIndex { $0.hasPrefix("<!-- usage:") }, "README.md has no '<!-- usage: ... -->' block")
        #expect(lines[marker + 1] == "```sh", "the usage marker is not followed by a ```sh block")
        let end = try #require(lines[(marker + 2)...].firstIndex { $0.hasPrefix("```") })
        return lines[(marker + 2)..<end].map { line in
            // The comment starts at the first " # " (no command in the block has a '#' of its own).
            guard let hash = line.range(of: " # ") else { return line }
            return String(line[..<hash.lowerBound]).trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }

    /// The files a command line says it writes: the values of -o, --output, --timeline, --report, --waveform and
    /// --results, and a redirection's target (`-`, standard output, is not a file).
    static func writtenFiles(_ line: String) -> [String] {
        let words = line.split(separator: " ").map { String($0) }
        var files: [String] = []
        for (index, word) in words.enumerated().dropLast()
        where ["-o", "--output", "--timeline", "--report", "--waveform", "--results", ">"].contains(word) && words[index + 1] != "-" {
            files.append(words[index + 1])
        }
        return files
    }

    @Test func everyLineOfTheUsageBlockRunsAsWritten() throws {
        let commands = try Self.usageLines()
        #expect(commands.count >= 20, "the usage block has only \(commands.count) lines")
        for command in commands { #expect(command.hasPrefix("mixrender "), "not a mixrender command: \(command)") }

        // A scratch clone: the files git tracks, copied from the working tree (so a README or preset being changed
        // is the one tested), but the tests and their goldens, which no command reads.
        let clone = try TemporaryFolder()
        let listed = try Self.run("/usr/bin/env", ["git", "-C", Self.repository.path, "ls-files", "-z"], in: clone.url)
        #expect(listed.status == 0, "git ls-files: \(listed.stderr)")
        for path in listed.stdout.split(separator: "\0").map({ String($0) })
        where !path.hasPrefix("golden/") && !path.hasPrefix("Tests/") {
            let from = Self.repository.appendingPathComponent(path), to = clone.url.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: from.path) else { continue }   // deleted, not yet committed
            try FileManager.default.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: from, to: to)
        }
        // `mixrender` on the PATH, as the README says to put it.
        let bin = clone.url.appendingPathComponent(".build/release")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("mixrender"), withDestinationURL: try CLI.executable)
        let environment = ["PATH": bin.path + ":/usr/local/bin:/usr/bin:/bin"]

        // The set-up's render, as scripts/setup.sh runs it but for its length: the set-up renders the preset's whole
        // hour, which took 40 s of this test's 110; the commands below read night.ogg only as a file to inspect, and the
        // preset's own sound is the golden tests' (`--end` cuts a render short exactly as the whole has it).
        let setup = try String(contentsOf: Self.repository.appendingPathComponent("scripts/setup.sh"), encoding: .utf8)
        let render = try #require(setup.components(separatedBy: "\n").last { $0.hasPrefix(".build/release/mixrender ") })
        let made = try Self.run("/bin/sh", ["-c", render + " --end 20s"], in: clone.url, environment: environment)
        #expect(made.status == 0, "scripts/setup.sh's \(render): \(made.stderr)")

        for command in commands {
            let run = try Self.run("/bin/sh", ["-c", command], in: clone.url, environment: environment)
            #expect(run.status == 0, "\(command): exit \(run.status): \(run.stderr)")
            #expect(!run.stdout.isEmpty || !Self.writtenFiles(command).isEmpty, "\(command) printed and wrote nothing")
            for file in Self.writtenFiles(command) {
                let size = (try? FileManager.default.attributesOfItem(atPath: clone.url.appendingPathComponent(file).path)[.size] as? Int) ?? 0
                #expect(size > 0, "\(command) did not write \(file)")
            }
        }
    }

    /// `program arguments` in `folder` (`CLI.run` with another program).
    static func run(_ program: String, _ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(arguments, in: folder, environment: environment, program: URL(fileURLWithPath: program))
    }
}
