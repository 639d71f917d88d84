import Foundation  // JSONSerialization, FileManager (removing the helper's folder)
import Glibc

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later), which Swift's Glibc module does not import.
@_silgen_name("posix_spawn_file_actions_addchdir_np")
private func spawnAddChdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>) -> Int32

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later): the child closes every descriptor from
/// the given one up, so a helper holds none of this process's files (a batch's other outputs, say).
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

/// The limits a speech helper runs under: set by the helper on itself (`setrlimit`) before it reads any text,
/// and by mixrender around each text (the time-out, the most samples it takes). A value; `Sendable`.
public struct SpeechHelperLimits: Sendable, Equatable {
    /// Address space (`RLIMIT_AS`). The neural voice's Python with onnxruntime maps about 1 GB.
    public var memoryBytes: Int = 3 << 30
    /// CPU seconds for the helper's whole life (`RLIMIT_CPU`): one text for espeak-ng, a render for hibari.
    public var cpuSeconds: Int = 900
    /// Wall-clock seconds a text may take before the helper is killed.
    public var timeoutSeconds: Double = 120
    /// The most samples one text may give: 20 minutes at 24 kHz.
    public var maxSamples: Int = 20 * 60 * 24_000

    public init() {}
    public static let standard = SpeechHelperLimits()
}

/// One speech helper process, started with `posix_spawn` (no shell) from an absolute path, with a clean
/// environment, a fresh empty working folder of its own (removed when it ends), no descriptor of this process
/// but its socket, and its standard error discarded, and spoken to over a Unix socket on its standard input and output: JSON lines in; a JSON
/// header line and raw little-endian 16-bit samples out (`scripts/speech/hibari_helper.py` documents the
/// protocol). Every read has a deadline; a helper that crashes, hangs or says something that is not the
/// protocol is killed and becomes one `AudioIOError`.
///
/// A class (it owns the process and the socket); not thread-safe: one caller at a time.
final class SpeechHelperProcess {
    let pid: pid_t
    /// What messages call it: "the neural voice's helper".
    let name: String
    private var socket: Int32
    private let folder: String
    private var pending: [UInt8] = []
    private var isFinished = false

    /// Starts `executable` with `arguments` and exactly `environment` (`KEY=value`).
    init(executable: String, arguments: [String], environment: [String], name: String) throws {
        self.name = name
        let temporary = FileSystem.temporaryFolder
        var template = Array("\(temporary)/mixrender-speech-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw LibC.failure("mkdtemp", path: temporary, operation: "make a working folder for \(name) in")
        }
        folder = String(cString: template)
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            let error = LibC.failure("socketpair", path: "", operation: "start \(name)")
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        socket = pair[0]
        defer { Glibc.close(pair[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        guard spawnAddCloseFrom(&actions, 3) == 0, spawnAddChdir(&actions, folder) == 0 else {
            Glibc.close(socket)
            try? FileManager.default.removeItem(atPath: folder)
            throw AudioIOError(path: folder, function: "posix_spawn_file_actions_addchdir_np", reason: "refused", operation: "start \(name) in")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling and an empty mask in the helper, whatever this process set (SIGPIPE kills it
        // when mixrender goes away).
        var defaults = sigset_t(), empty = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        // Its home is its own folder, so what a library keeps "in the user's home" (onnxruntime opens a database
        // under ~/.cache) stays there and goes with the folder.
        let envp = (environment + ["HOME=\(folder)", "XDG_CACHE_HOME=\(folder)"]).map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            Glibc.close(socket)
            try? FileManager.default.removeItem(atPath: folder)
            throw AudioIOError(path: executable, function: "posix_spawn", reason: LibC.describe(status), operation: "start \(name)", code: status)
        }
        pid = child
        // Ctrl-C or a kill of mixrender removes it if it is empty; the neural voice's helper removes its own as it ends.
        InterruptCleanup.registerFolder(folder)
    }

    deinit { finish() }

    /// The neural helper (`neural_helper.py` in the virtual environment `venv`) as `engine`, with `extra` arguments,
    /// started with `limits` and waited for until it says it is ready; `name` is what messages call it.
    static func neural(venv: String, engine: String, extra: [String] = [], limits: SpeechHelperLimits, name: String) throws -> SpeechHelperProcess {
        let arguments = ["-I", venv + "/" + SpeechHelperLocation.neuralHelperScript, "--engine", engine,
                         "--cpu-seconds", "\(limits.cpuSeconds)", "--memory-mb", "\(limits.memoryBytes >> 20)"] + extra
        let helper = try SpeechHelperProcess(executable: venv + "/bin/python", arguments: arguments,
                                             environment: SpeechHelperLocation.neuralEnvironment(venv: venv), name: name)
        let ready = try helper.readHeader(until: .now + .seconds(90))
        guard ready["ready"] as? Bool == true else {
            helper.kill()
            throw helper.failure("it did not start: \(ready["error"] as? String ?? "no reason given")")
        }
        return helper
    }

    /// Sends one request line (a JSON object).
    func send(_ request: [String: Any]) throws {
        var line = try JSONSerialization.data(withJSONObject: request, options: [.sortedKeys])
        line.append(0x0A)
        try line.withUnsafeBytes { try send(bytes: $0) }
    }

    /// Sends raw bytes (what follows a request that announces them: a recording's chunks for the aligner).
    func send(bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = Glibc.send(socket, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure("it stopped reading (\(ended()))") }
            done += n
        }
    }

    /// The longest header line a helper may answer: a long text's words and their samples.
    static let longestHeader = 8 << 20

    /// Reads one JSON object line (at most `longestHeader` bytes) before `deadline`.
    func readHeader(until deadline: ContinuousClock.Instant) throws -> [String: Any] {
        var scanned = 0    // bytes of `pending` already known to hold no newline
        while true {
            if let newline = pending[scanned...].firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                    kill()
                    throw failure("it answered something that is not the protocol")
                }
                return object
            }
            scanned = pending.count
            guard pending.count < Self.longestHeader else { kill(); throw failure("it answered a line longer than \(Self.longestHeader >> 20) MiB") }
            try fill(until: deadline)
        }
    }

    /// Reads `count` 16-bit samples before `deadline`.
    func readSamples(_ count: Int, until deadline: ContinuousClock.Instant) throws -> [Int16] {
        var samples = [Int16](repeating: 0, count: count)
        var filled = 0
        try samples.withUnsafeMutableBytes { out in
            let wanted = count * 2
            let first = min(wanted, pending.count)
            out.copyBytes(from: pending[..<first])
            pending.removeFirst(first)
            filled = first
            while filled < wanted {
                try wait(until: deadline)
                let n = Glibc.recv(socket, out.baseAddress! + filled, wanted - filled, 0)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw failure(ended()) }
                filled += n
            }
        }
        return samples.map { Int16(littleEndian: $0) }
    }

    /// Closes the socket (the helper ends on end of input), waits a moment, then kills it; removes its folder.
    func finish() {
        guard !isFinished else { return }
        isFinished = true
        Glibc.shutdown(socket, Int32(SHUT_RDWR))
        Glibc.close(socket)
        var status: Int32 = 0
        for _ in 0..<50 {
            if waitpid(pid, &status, WNOHANG) == pid { removeFolder(); return }
            usleep(10_000)
        }
        Glibc.kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        removeFolder()
    }

    /// Kills the helper now (a time-out, a broken answer).
    func kill() {
        guard !isFinished else { return }
        Glibc.kill(pid, SIGKILL)
        finish()
    }

    // MARK: - Reading

    private func fill(until deadline: ContinuousClock.Instant) throws {
        try wait(until: deadline)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress!, $0.count, 0) }
        if n < 0 && errno == EINTR { return }
        guard n > 0 else { throw failure(ended()) }
        pending.append(contentsOf: chunk[..<n])
    }

    /// Waits for something to read; kills the helper at the deadline.
    private func wait(until deadline: ContinuousClock.Instant) throws {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            let milliseconds = max(0, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard milliseconds > 0 else {
                kill()
                throw failure("it took longer than its time-out and was stopped")
            }
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(milliseconds, 60_000)))
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw LibC.failure("poll", path: "", operation: "read from \(name)") }
        }
    }

    /// How the helper ended (it closed its output): waited for, and worded.
    private func ended() -> String {
        var status: Int32 = 0
        var reaped = false
        for _ in 0..<200 {
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true; break }
            usleep(5_000)
        }
        if !reaped { Glibc.kill(pid, SIGKILL); while waitpid(pid, &status, 0) < 0 && errno == EINTR {} }
        isFinished = true
        Glibc.close(socket)
        removeFolder()
        let signal = status & 0x7f
        if signal != 0 {
            let what = String(cString: strsignal(signal))
            switch signal {
            case SIGXCPU: return "it ran out of CPU time (its limit) and stopped"
            case SIGKILL: return "it was killed (signal 9, \(what))"
            default: return "it crashed (signal \(signal), \(what))"
            }
        }
        return "it ended early (exit status \((status >> 8) & 0xff))"
    }

    private func removeFolder() {
        try? FileManager.default.removeItem(atPath: folder)
        InterruptCleanup.unregisterFolder(folder)
    }

    func failure(_ reason: String) -> AudioIOError {
        AudioIOError(path: "", function: "", reason: "\(name) failed: \(reason)", operation: "synthesise speech")
    }
}
