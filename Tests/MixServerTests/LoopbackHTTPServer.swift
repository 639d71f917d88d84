import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal blocking HTTP/1.1 server on 127.0.0.1 for tests (Foundation has no HTTP server on Linux): a thread
/// accepts one connection at a time, reads the request (headers and a Content-Length body), records it, and answers
/// as `reply` says, then closes the connection.
final class LoopbackHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var target: String
        /// Header names lowercased.
        var headers: [String: String]
        var body: Data
    }

    enum Reply: Sendable {
        /// A status line, extra header lines, and an empty body.
        case status(Int, headers: [String] = [])
        /// No answer at all: the connection stays open until the server stops.
        case silence
    }

    let port: UInt16
    private let listener: Int32
    private let reply: @Sendable (Request) -> Reply
    private let lock = NSLock()
    private var requestsSoFar: [Request] = []
    private var isStopped = false
    private let finished = DispatchSemaphore(value: 0)

    init(reply: @escaping @Sendable (Request) -> Reply) throws {
        self.reply = reply
        #if canImport(Darwin)
        let listener = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in
            serve()
            finished.signal()
        }
        thread.start()
    }

    /// The requests received so far.
    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return requestsSoFar
    }

    /// A URL on this server.
    func url(_ path: String = "/hook") -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops accepting, ends a held connection, and waits for the thread.
    func stop() {
        lock.lock()
        let wasStopped = isStopped
        isStopped = true
        lock.unlock()
        guard !wasStopped else { return }
        finished.wait()
        close(listener)
    }

    private var stopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isStopped
    }

    /// Waits up to `milliseconds` for `descriptor` to be readable.
    private func readable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    private func serve() {
        while !stopped {
            guard readable(listener, milliseconds: 50) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var received = [UInt8]()
        let deadline = Date().addingTimeInterval(5)
        // More bytes of the request, or false at its end, an error, or 5 s.
        func readMore() -> Bool {
            while Date() < deadline, !stopped {
                guard readable(connection, milliseconds: 100) else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress!, $0.count, 0) }
                guard count > 0 else { return false }
                received += buffer[0..<count]
                return true
            }
            return false
        }
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = received.indices.dropLast(3).first { received[$0..<($0 + 4)].elementsEqual(separator) }
            if headerEnd == nil, !readMore() { return }
        }
        let head = String(decoding: received[..<headerEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["expect"]?.lowercased() == "100-continue" {
            send(connection, "HTTP/1.1 100 Continue\r\n\r\n")
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headerEnd! + 4
        while received.count - bodyStart < length {
            if !readMore() { return }
        }
        let request = Request(method: requestLine.first.map(String.init) ?? "", target: requestLine.count > 1 ? String(requestLine[1]) : "",
                              headers: headers, body: Data(received[bodyStart..<(bodyStart + length)]))
        lock.lock()
        requestsSoFar.append(request)
        lock.unlock()
        switch reply(request) {
        case .status(let status, let extra):
            let lines = ["HTTP/1.1 \(status) Test", "Content-Length: 0", "Connection: close"] + extra
            send(connection, lines.joined(separator: "\r\n") + "\r\n\r\n")
        case .silence:
            while !stopped { usleep(20_000) }
        }
    }

    private func send(_ connection: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #if canImport(Darwin)
        _ = bytes.withUnsafeBytes { write(connection, $0.baseAddress!, $0.count) }
        #else
        _ = bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        #endif
    }
}
