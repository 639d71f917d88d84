import DSPTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// The connection's three time-outs (`--header-timeout`, `--body-timeout`, `--idle-timeout`), met with real sockets on
/// loopback: a client that sends nothing, one that drips its request's head a byte at a time, one whose body stops,
/// and one that keeps an idle keep-alive connection, are each closed once its own time-out has passed (issue 54:
/// before, each stayed open for as long as it liked, and a few hundred such clients held every file descriptor the
/// server had). A body that keeps coming is not cut, nor is a response being written.
@Suite(.serialized) struct ConnectionTimeoutTests {
    /// With a head time-out of 1 s, a body time-out of 2 s and an idle time-out of 3 s: each kind of client is closed no
    /// sooner than its own time-out (a timer never fires early; a loaded machine runs it late, so the upper bounds are
    /// generous), which tells the three apart.
    @Test func everyKindOfIdleClientIsClosedAtItsOwnTimeOut() async throws {
        let server = try ServerProcess.start(arguments: ["--header-timeout", "1", "--body-timeout", "2", "--idle-timeout", "3"])
        defer { server.stop() }

        // Sends nothing at all: the head's time-out.
        let silent = try RawConnection(port: server.port)
        let silentClosed = try #require(silent.secondsUntilClosed(within: 10), "a silent connection was still open after 10 s")
        #expect(silentClosed >= 0.8 && silent.received.isEmpty, "closed after \(silentClosed) s, having been sent \(silent.received.count) bytes")

        // Drips a request's head, a byte every 0.2 s: it would take 6 s to finish, and each byte is activity of a kind
        // that must not keep the connection open.
        let dripping = try RawConnection(port: server.port)
        let head = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: drip\r\n\r\n".utf8)
        let started = Date()
        var sent = 0
        while sent < head.count, dripping.send(head[sent..<sent + 1]) {
            sent += 1
            if dripping.secondsUntilClosed(within: 0.2) != nil { break }
        }
        let drippingClosed = Date().timeIntervalSince(started)
        #expect(sent < head.count, "the whole head was taken, a byte at a time, over \(drippingClosed) s")
        #expect(drippingClosed >= 0.8 && drippingClosed < 5, "the dripping client was closed after \(drippingClosed) s")

        // A request's head, then a body that stops after ten of the thousand bytes it announced: the body's time-out.
        let bodyHead = "POST /v1/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        let stalled = try RawConnection(port: server.port)
        #expect(stalled.send(Array((bodyHead + "{\"preset\":").utf8)))
        let stalledClosed = try #require(stalled.secondsUntilClosed(within: 10), "a stalled body's connection was still open after 10 s")
        #expect(stalledClosed >= 1.8, "closed \(stalledClosed) s after the body stopped: sooner than the body's 2 s")

        // A body that keeps coming, a piece every 0.6 s for 4 s (each wait shorter than the body's time-out, the whole
        // longer than it): taken, and answered.
        let body = Array(#"{"preset": {"duration": "1s", "tracks": []}}"#.utf8)
        let slow = try RawConnection(port: server.port)
        #expect(slow.send(Array((bodyHead.replacingOccurrences(of: "1000", with: "\(body.count)")).utf8)))
        for piece in stride(from: 0, to: body.count, by: (body.count + 6) / 7) {
            #expect(slow.secondsUntilClosed(within: 0.6) == nil, "a body still coming was cut")
            #expect(slow.send(body[piece..<min(body.count, piece + (body.count + 6) / 7)]))
        }
        _ = slow.secondsUntilClosed(within: 2)
        #expect(String(decoding: slow.received, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "\(String(decoding: slow.received, as: UTF8.self).prefix(200))")

        // A whole request, answered; then idle on the kept-alive connection: the idle time-out.
        let idle = try RawConnection(port: server.port)
        #expect(idle.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
        let idleClosed = try #require(idle.secondsUntilClosed(within: 15), "an idle keep-alive connection was still open after 15 s")
        let answer = String(decoding: idle.received, as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(idleClosed >= 2.8, "closed \(idleClosed) s after the request: sooner than the idle 3 s")

        // The server is still there for a new client.
        let health = try await server.request("GET", "/healthz", token: "")
        #expect(health.status == 200)
    }

    /// A response that takes longer than the time-out is not cut: an events stream held open while a render runs
    /// (three minutes of audio: seconds, more under the Thread Sanitizer) ends with the final state. A test process
    /// starved by the suites beside it can open the stream after a short render has ended (then the stream is only the
    /// final state, and proves nothing): a render four times as long is then tried.
    @Test func aResponseLongerThanTheTimeOutIsNotCut() async throws {
        let server = try ServerProcess.start(arguments: ["--header-timeout", "1", "--body-timeout", "1", "--idle-timeout", "1"])
        defer { server.stop() }
        var open = 0.0, text = ""
        for (attempt, minutes) in [3, 12].enumerated() {
            let preset = RenderServiceTests.longPreset(seed: 40 + attempt, minutes: minutes)
            let submitted = try await server.request("POST", "/v1/renders", json: ["preset": preset, "format": "ogg"])
            #expect(submitted.status == 202, "\(submitted.object)")
            let id = try #require(submitted.object["id"] as? String)
            let started = Date()
            let events = try await server.request("GET", "/v1/renders/\(id)/events", timeout: 900)
            open = Date().timeIntervalSince(started)
            #expect(events.status == 200)
            text = String(decoding: events.body, as: UTF8.self)
            if open > 1.5 { break }
        }
        #expect(text.contains("\"state\":\"succeeded\""), "\(text.suffix(300))")
        #expect(open > 1.5, "the stream was open \(open) s, not past the time-out")
    }

    /// The options' values: a length of time up to an hour, named in the error otherwise.
    @Test(arguments: ["--header-timeout", "--body-timeout", "--idle-timeout"],
          [("0", "is not a length of time"), ("-5", "is not a length of time"), ("soon", "is not a length of time"),
           ("2h", "up to 1h")])
    func aBadTimeOutIsRefused(_ option: String, _ value: (String, String)) throws {
        let folder = try TemporaryFolder(prefix: "mixrender-serve-test")
        let r = try CLI.run(["serve", "--port", "0", "--state", folder.url.path, "\(option)=\(value.0)"])
        #expect(r.status != 0)
        #expect(r.stderr.contains(option) && r.stderr.contains(value.1), "\(r.stderr)")
    }
}

/// The HTTP/1 rules that need the request's version (RFC 9112), met with real sockets: a connection the client did not
/// ask to keep is closed after its response (an HTTP/1.0 request was answered and left open before), and an HTTP/1.1
/// request without exactly one `Host` is answered 400 (it was answered 200). The server's idle time-out is left at its
/// minute, so a connection closed within seconds was closed by the rule.
@Suite(.serialized) struct HTTPVersionRulesTests {
    /// Sends `head` on a new connection; what came back, and whether the server closed the connection within 5 s.
    static func exchange(_ server: ServerProcess, _ head: String) throws -> (answer: String, closed: Bool) {
        let connection = try RawConnection(port: server.port)
        #expect(connection.send(Array(head.utf8)))
        let closed = connection.secondsUntilClosed(within: 5) != nil
        return (String(decoding: connection.received, as: UTF8.self), closed)
    }

    @Test func aConnectionNotKeptIsClosedAndOneWithoutHostIsRefused() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }

        let old = try Self.exchange(server, "GET /healthz HTTP/1.0\r\n\r\n")
        #expect(old.answer.hasPrefix("HTTP/1.1 200") && old.answer.lowercased().contains("connection: close"), "\(old.answer.prefix(300))")
        #expect(old.closed, "an HTTP/1.0 request without keep-alive: the connection was left open")

        let closing = try Self.exchange(server, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(closing.answer.hasPrefix("HTTP/1.1 200") && closing.closed, "\(closing.answer.prefix(300))")

        // HTTP/1.0 that asks to keep the connection keeps it, like HTTP/1.1 by default.
        let kept = try RawConnection(port: server.port)
        #expect(kept.send(Array("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".utf8)))
        #expect(kept.secondsUntilClosed(within: 1.5) == nil, "a kept HTTP/1.0 connection was closed")
        #expect(String(decoding: kept.received, as: UTF8.self).hasPrefix("HTTP/1.1 200"))

        for (head, words) in [("GET /healthz HTTP/1.1\r\n\r\n", "must carry a Host header"),
                              ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "one Host header, not several")] {
            let refused = try Self.exchange(server, head)
            #expect(refused.answer.hasPrefix("HTTP/1.1 400") && refused.answer.contains("application/problem+json")
                    && refused.answer.contains(words), "\(refused.answer.prefix(400))")
            #expect(refused.closed, "a refused request's connection was left open")
        }
        // A refused request's body is not taken as a next request; the server goes on for everyone else.
        let withBody = try Self.exchange(server, "POST /v1/validate HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
        #expect(withBody.answer.hasPrefix("HTTP/1.1 400") && withBody.closed, "\(withBody.answer.prefix(300))")
        #expect(try await server.request("GET", "/healthz", token: "").status == 200)
    }
}

/// The bounds on connections held at once, met with real sockets: in all (from the descriptor limit: before them, 300
/// silent connections against a limit of 256 descriptors made the server spin a whole core on `accept`'s `EMFILE`
/// and answer no one), and from one address. A connection past a bound is answered 503 with `Retry-After` at once.
@Suite(.serialized) struct ConnectionLimitTests {
    /// The server's CPU seconds so far (user and system), from /proc.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        return (Double(fields[11])! + Double(fields[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The answer to `GET /healthz` on a new connection, as far as it came in 5 s.
    static func health(_ server: ServerProcess) throws -> String {
        let probe = try RawConnection(port: server.port)
        _ = probe.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        _ = probe.secondsUntilClosed(within: 5)
        return String(decoding: probe.received, as: UTF8.self)
    }

    @Test func aFloodOfSilentConnectionsIsAnsweredAndLeavesTheServerIdle() async throws {
        let server = try ServerProcess.start(descriptorLimit: 256)
        defer { server.stop() }
        var silent: [RawConnection] = []
        for _ in 0..<300 { silent.append(try RawConnection(port: server.port)) }
        try await Task.sleep(for: .seconds(1))
        // Idle: a spinning accept loop burns about a CPU second a second; an idle server next to none. The bound is
        // far from both (a check for the spin, not a speed measurement).
        let before = try Self.cpuSeconds(server.process.processIdentifier)
        try await Task.sleep(for: .seconds(2))
        let spent = try Self.cpuSeconds(server.process.processIdentifier) - before
        #expect(spent < 0.8, "the server spent \(spent) CPU seconds in 2 s holding silent connections")
        let refused = try Self.health(server)
        #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("Retry-After: 5") && refused.contains("connections, the most it takes"),
                "\(refused.prefix(300))")
        #expect(server.log.lines.contains { $0.contains("out of connections") }, "the log says the server is out of connections")
        // Once the flood leaves, the server answers.
        silent.removeAll()
        try await Task.sleep(for: .milliseconds(500))
        #expect(try Self.health(server).hasPrefix("HTTP/1.1 200"))
    }

    @Test func oneAddressHoldsAtMostItsShare() async throws {
        let server = try ServerProcess.start(arguments: ["--max-connections-per-address", "4"])
        defer { server.stop() }
        var held = try (0..<4).map { _ in try RawConnection(port: server.port) }
        try await Task.sleep(for: .milliseconds(300))
        let refused = try Self.health(server)
        #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("this address holds 4 connections"), "\(refused.prefix(300))")
        held.removeLast()
        try await Task.sleep(for: .milliseconds(300))
        #expect(try Self.health(server).hasPrefix("HTTP/1.1 200"), "a connection closed makes room")
        withExtendedLifetime(held) {}
    }

    @Test(arguments: [(["--max-connections", "0"], "--max-connections must be from 1"),
                      (["--max-connections-per-address", "0"], "--max-connections-per-address must be from 1")])
    func aBadBoundIsRefused(_ arguments: [String], _ message: String) throws {
        let result = try CLI.run(["serve", "--port", "0"] + arguments)
        #expect(result.status != 0 && result.stderr.contains(message), "\(result.stderr)")
    }
}

/// A TCP connection to 127.0.0.1 through the C socket calls, for what URLSession will not do: send a request's head
/// a byte at a time, or send nothing, and see when the server closes.
final class RawConnection {
    private let descriptor: Int32
    /// Every byte the server has sent so far.
    private(set) var received: [UInt8] = []

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else { let code = errno; close(descriptor); throw ServerError("connect to port \(port): errno \(code)") }
    }

    deinit { close(descriptor) }

    /// Sends `bytes`; false when the server has closed the connection.
    func send(_ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        return array.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == array.count
    }

    /// Reads what the server sends until it closes the connection or `seconds` pass: the seconds it took to close, or
    /// nil while it is still open.
    func secondsUntilClosed(within seconds: Double) -> Double? {
        let started = Date()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = seconds - Date().timeIntervalSince(started)
            guard left > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, (left * 1000).rounded(.up))))
            if ready < 0 { if errno == EINTR { continue }; return Date().timeIntervalSince(started) }
            if ready == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return Date().timeIntervalSince(started) }  // 0: closed; < 0: reset
            received += buffer[0..<count]
        }
    }
}
