import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A command run to its end with its wall time and its peak resident memory. Standard output and error go to
/// /dev/null. For peers (ffmpeg) and whole mixrender commands in the bench's sections.
///
/// The peak is the child's VmHWM (/proc/PID/status), read every 2 ms while it runs: `wait4`'s `ru_maxrss` cannot
/// be used, since Linux carries the old address space's peak across `exec`, and a child spawned by `posix_spawn`
/// (which shares the bench's memory until it execs) starts from the bench's own peak: 109 MiB for `mixrender
/// --version` after the bench's other sections. VmHWM belongs to the exec'd program alone; what the last 2 ms
/// before the child exits add can be missed.
struct ChildProcess {
    /// Wall seconds, peak resident MiB, and the CPU seconds (user and system, every thread) `wait4` reports.
    struct Outcome { var seconds: Double; var peakMiB: Double; var cpuSeconds: Double = 0 }

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
        var peakMiB = 0.0
        while true {
            let waited = wait4(pid, &status, WNOHANG, &usage)
            if waited == pid { break }
            guard waited == 0 || errno == EINTR else { throw BenchError(message: "wait4 for \(command): \(String(cString: strerror(errno)))") }
            peakMiB = max(peakMiB, ProcessMemory.peakMiB(ofProcess: pid))
            usleep(2000)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        // WIFEXITED and WEXITSTATUS are macros: exited normally when the low 7 bits are 0, status in bits 8-15.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw BenchError(message: "\(command) failed (wait status \(status))")
        }
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return Outcome(seconds: seconds, peakMiB: peakMiB, cpuSeconds: cpu)
    }
}
