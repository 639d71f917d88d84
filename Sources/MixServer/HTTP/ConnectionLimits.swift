import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import MixIO

/// How many connections the server holds at once, in all and from one address (nginx's `worker_connections` and
/// `limit_conn`): a connection past either bound is answered `503 Service Unavailable` with `Retry-After` and closed at
/// once, so a client learns it should come back, and the server keeps the descriptors its renders need.
///
/// The bound in all comes from the process's descriptor limit (raised to its hard limit at start) less what renders
/// need, so that the server never runs out of descriptors for connections: at the limit, NIO's accept loop would
/// otherwise spin on `EMFILE` (a whole core, and no answer to anyone). Past the bound plus a margin (connections being
/// answered 503), the server stops accepting until some close, which waits in the kernel's backlog without a
/// descriptor.
final class ConnectionLimits: Sendable {
    let maximum: Int
    let maximumPerAddress: Int
    private let logger: Logger
    private let state = Locked(State())

    private struct State {
        var open = 0
        var perAddress: [String: Int] = [:]
        /// The bound in all was met and logged; logged again once the count has fallen below 90 % of it.
        var full = false
    }

    /// Connections past `maximum` being answered 503 before they close: the margin before accepting stops.
    static let refusalMargin = 32

    init(maximum: Int, maximumPerAddress: Int, logger: Logger) {
        self.maximum = maximum
        self.maximumPerAddress = maximumPerAddress
        self.logger = logger
    }

    /// The bound in all for a descriptor limit of `descriptors` and `renders` renders at once: the limit less 64
    /// descriptors for the server itself (its database, logs, listening socket), 32 per render (sources, encoders,
    /// the speech helper) and the refusal margin; at most 16,384, at least 8.
    static func maximum(descriptors: Int, renders: Int) -> Int {
        let reserve = 64 + 32 * renders + refusalMargin
        return max(8, min(16_384, descriptors > reserve ? descriptors - reserve : 0))
    }

    /// Why a new connection from `address` is refused, or nil when it is taken (and counted until `closed`).
    func open(from address: String) -> String? {
        let (refusal, log) = state.withLock { state -> (String?, Bool) in
            if state.open >= maximum {
                let first = !state.full
                state.full = true
                return ("the server holds \(maximum) connections, the most it takes; try again shortly", first)
            }
            if state.perAddress[address, default: 0] >= maximumPerAddress {
                return ("this address holds \(maximumPerAddress) connections, the most one address may; close one or try again shortly", false)
            }
            state.open += 1
            state.perAddress[address, default: 0] += 1
            return (nil, false)
        }
        if log {
            logger.error("out of connections: \(maximum) open, the most this server takes (--max-connections, from its descriptor limit); new ones are answered 503 until some close")
        }
        return refusal
    }

    /// A connection `open` took has closed.
    func closed(from address: String) {
        state.withLock { state in
            state.open -= 1
            let left = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = left > 0 ? left : nil
            if state.full, state.open < maximum * 9 / 10 { state.full = false }
        }
    }

    /// Hummingbird's gate on accepting: closed past the bound and the margin.
    var acceptGate: MaximumAvailableConnections {
        MaximumAvailableConnections(maximum + Self.refusalMargin, logger: logger)
    }
}

/// The first handler of a connection refused by `ConnectionLimits`: it answers `503` with `Retry-After` and a
/// problem document, in bytes of its own (the HTTP handlers behind it never see a byte), and closes.
final class RefusedConnection: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let reason: String
    private var answered = false

    init(reason: String) { self.reason = reason }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answer(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}   // the request is not read

    private func answer(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let body = HTTPProblem(.unavailable(reason, retryAfter: 5)).document.json(.compact)
        var bytes = context.channel.allocator.buffer(capacity: 256 + body.utf8.count)
        bytes.writeString("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n"
                          + "Content-Type: application/problem+json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        context.writeAndFlush(NIOAny(bytes)).whenComplete { _ in context.close(promise: nil) }
    }
}
