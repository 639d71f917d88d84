import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A command run to its end with its wall time and its peak resident memory (`wait4`'s `ru_maxrss`, the
/// child's own: Foundation's `Process` does not give it). Standard output and error go to /dev/null unless
/// `keepsOutput`. For peers (ffmpeg) and whole mixrender commands in the bench's sections.
struct ChildProcess {
    struct Outcome { var seconds: Double; var peakMiB: Double }

    /// The first executable `name` on PATH, or nil.
    static func find(_ name: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs `executable` with `arguments`; throws a `BenchError` naming the command if it cannot start or
    /// exits with a status other than 0.
    static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let started = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        let command = ([executable] + arguments).joined(separator: " ")
        guard spawned == 0 else { throw BenchError(message: "could not start \(command): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchError(message: "wait4 for \(command): \(String(cString: strerror(errno)))") }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        // WIFEXITED and WEXITSTATUS are macros: exited normally when the low 7 bits are 0, status in bits 8-15.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw BenchError(message: "\(command) failed (wait status \(status))")
        }
        return Outcome(seconds: seconds, peakMiB: Double(usage.ru_maxrss) / 1024)
    }
}
