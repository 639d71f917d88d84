import Foundation

/// The built `mixrender` executable, run in a subprocess as the user runs it.
public enum CLI {
    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String {
            "the mixrender executable is not beside the test bundle; build the tests with scripts/test.sh (or MIXRENDER_OPTIMIZE_OWN_MODULES=1 swift build --build-tests)"
        }
    }

    /// The `mixrender` beside the running test binary (/proc/self/exe), or in a folder above it (the test
    /// runner may be inside a .xctest bundle folder).
    public static var executable: URL {
        get throws {
            let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                         ?? CommandLine.arguments[0])
            var folder = me.deletingLastPathComponent()
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent("mixrender")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                folder = folder.deletingLastPathComponent()
            }
            throw NotBuilt()
        }
    }

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `mixrender arguments` (in `folder` if given) to the end; `program` runs another program instead (the
    /// README's lines through /bin/sh). The environment is this process's without `COLUMNS` (so that output does
    /// not depend on the terminal running the tests), plus `environment`. Standard output goes through a file, so
    /// a command that writes much to both streams cannot fill one pipe while the other is read.
    public static func run(_ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:],
                           program: URL? = nil) throws -> Result {
        let p = Process()
        p.executableURL = try program ?? executable
        p.arguments = arguments
        if let folder { p.currentDirectoryURL = folder }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "COLUMNS")
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("mixrender-cli-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: outFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outFile) }
        let out = try FileHandle(forWritingTo: outFile), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try out.close()
        let o = try Data(contentsOf: outFile)
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                      stderr: String(decoding: e, as: UTF8.self))
    }
}
