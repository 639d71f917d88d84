import DSPTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport

/// A real `mixrender serve` in a subprocess on a free loopback port, with a state folder of its own: what the
/// end-to-end tests call over HTTP. It prints the token it made and the address it listens on; `stop` sends
/// SIGTERM and waits, `kill9` sends SIGKILL (a crash). The state folder is a `TemporaryFolder` the server holds: it goes
/// (results included: an interrupted test's two-hour FLAC is 850 MB) once no server started on it is left.
final class ServerProcess: @unchecked Sendable {
    let process: Process
    let folder: TemporaryFolder
    var state: URL { folder.url }
    let port: Int
    let token: String
    let output: Pipe
    private let lines: LineCollector
    /// The server's log (its standard error), each line also passed on to the test's.
    let log: LineCollector

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts a server on `state` (a new temporary folder when nil; a restart passes the first server's `folder`) with
    /// `arguments` besides `--port 0 --state`.
    /// `token`: the token to use when the state folder has one already (a restart); the first start prints one.
    /// `descriptorLimit`: the server runs under `ulimit -n` of that many open files (soft and hard).
    static func start(state: TemporaryFolder? = nil, arguments: [String] = [], token: String? = nil,
                      environment: [String: String] = [:], descriptorLimit: Int? = nil) throws -> ServerProcess {
        let folder = try state ?? TemporaryFolder(prefix: "mixrender-serve-test")
        let process = Process()
        let serve = ["serve", "--port", "0", "--state", folder.url.path] + arguments
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", try CLI.executable.path] + serve
        } else {
            process.executableURL = try CLI.executable
            process.arguments = serve
        }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        let lines = LineCollector(output.fileHandleForReading)
        let logLines = LineCollector(errors.fileHandleForReading, echo: FileHandle.standardError)
        try process.run()
        // The server prints its token (the first time) and then `listening on http://127.0.0.1:PORT`.
        let deadline = Date() + 60
        var port: Int? = nil, printed: String? = nil
        while Date() < deadline, port == nil {
            for line in lines.take() {
                if line.hasPrefix("token: ") { printed = String(line.dropFirst("token: ".count)) }
                if let range = line.range(of: "listening on http://127.0.0.1:") {
                    port = Int(line[range.upperBound...].prefix { $0.isNumber })
                }
            }
            if port == nil {
                guard process.isRunning else { throw ServerError("mixrender serve exited with status \(process.terminationStatus) before listening") }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        guard let port else { process.terminate(); throw ServerError("mixrender serve did not say where it listens within 60 s") }
        guard let chosen = printed ?? token else { process.terminate(); throw ServerError("mixrender serve printed no token and none was given") }
        return ServerProcess(process: process, folder: folder, port: port, token: chosen, output: output, lines: lines, log: logLines)
    }

    private init(process: Process, folder: TemporaryFolder, port: Int, token: String, output: Pipe, lines: LineCollector, log: LineCollector) {
        self.log = log
        self.process = process
        self.folder = folder
        self.port = port
        self.token = token
        self.output = output
        self.lines = lines
    }

    /// SIGTERM, then waits for the process to exit (at most `seconds`); its exit status.
    @discardableResult
    func stop(seconds: Double = 60) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date() + seconds
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        return process.terminationStatus
    }

    /// SIGKILL: the server dies at once, as in a crash.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A server still running when its test ends (a failed expectation) is killed and waited for before its folder goes.
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

    // MARK: - HTTP

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
        var json: Any? { try? JSONSerialization.jsonObject(with: body) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// One request with this server's token (or `token`, or none when `token` is ""), over URLSession.
    func request(_ method: String, _ path: String, json: Any? = nil, body: Data? = nil, token: String? = nil,
                 headers: [String: String] = [:], timeout: Double = 120) async throws -> Reply {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        let bearer = token ?? self.token
        if !bearer.isEmpty { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        for (key, value) in headers { request.setValue(value, forHTTPHeaderField: key) }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let body {
            request.httpBody = body
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields { fields["\(key)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    /// Polls the render until its state is final (at most `seconds`); the last reply.
    func waitForRender(_ id: String, seconds: Double = 300, token: String? = nil) async throws -> Reply {
        let deadline = Date() + seconds
        while true {
            let reply = try await request("GET", "/v1/renders/\(id)", token: token)
            let state = reply.object["state"] as? String ?? ""
            if ["succeeded", "failed", "cancelled"].contains(state) || reply.status != 200 { return reply }
            guard Date() < deadline else { throw ServerError("render \(id) still \(state) after \(seconds) s") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects a pipe's lines on a thread of its own (so the child never blocks on a full pipe).
final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [String] = []
    private var all: [String] = []

    /// `echo`: where every chunk read is also written, as it comes.
    init(_ handle: FileHandle, echo: FileHandle? = nil) {
        let thread = Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                echo?.write(chunk)
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    lock.lock(); pending.append(line); all.append(line); lock.unlock()
                }
            }
        }
        thread.start()
    }

    func take() -> [String] {
        lock.lock(); defer { lock.unlock() }
        defer { pending = [] }
        return pending
    }

    var lines: [String] { lock.lock(); defer { lock.unlock() }; return all }
}
