import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The HTTP/1 rules that need the request's version, which Hummingbird's pipeline drops when it turns NIO's
/// request head into an `HTTPRequest`; so this handler sits just after NIO's request decoder, where the version
/// is still known (RFC 9112):
///
/// - **A connection the client did not ask to keep is closed after its response** (9.3): an HTTP/1.0 request
///   without `Connection: keep-alive`, or any request with `Connection: close`. The request goes on with
///   `Connection: close`, which Hummingbird honours, and the response says `Connection: close`.
/// - **An HTTP/1.1 request must carry exactly one `Host`** (3.2): one without, or with two, is answered `400` with
///   a problem document here, without reaching a route, and the connection is closed.
final class HTTPVersionRules: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The request being read was refused: its body and end are dropped, and nothing more is read.
    private var refusing = false
    /// The connection closes after the response being written.
    private var closeAfterResponse = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            if let reason = Self.refusal(of: head) {
                refusing = true
                refuse(context: context, reason: reason)
                return
            }
            if !head.isKeepAlive {
                closeAfterResponse = true
                head.headers.replaceOrAdd(name: "connection", value: "close")
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .body, .end:
            if !refusing { context.fireChannelRead(data) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard closeAfterResponse, case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }

    /// Why `head` is refused, or nil.
    static func refusal(of head: HTTPRequestHead) -> String? {
        guard head.version.major == 1, head.version.minor >= 1 else { return nil }
        switch head.headers["host"].count {
        case 1: return nil
        case 0: return "an HTTP/1.1 request must carry a Host header (RFC 9112, 3.2)"
        default: return "an HTTP/1.1 request must carry one Host header, not several (RFC 9112, 3.2)"
        }
    }

    /// Answers `400` with a problem document naming `reason`, then closes the connection.
    private func refuse(context: ChannelHandlerContext, reason: String) {
        let problem = HTTPProblem(.malformed(reason))
        var body = context.channel.allocator.buffer(capacity: 256)
        body.writeString(problem.document.json(.compact))
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "application/problem+json")
        headers.add(name: "content-length", value: "\(body.readableBytes)")
        headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}

/// Hummingbird's HTTP/1 child channel with the connection bounds (`ConnectionLimits`: a connection past them gets
/// `RefusedConnection` first, and no byte reaches HTTP), the connection's three time-outs (`ConnectionTimeouts`), and
/// `HTTPVersionRules` just after NIO's request decoder.
struct RuledHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let inner: HTTP1Channel
    let limits: ConnectionLimits
    let timeouts: ConnectionTimeouts.Limits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        if let refusal = limits.open(from: address) {
            return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
                try channel.pipeline.syncOperations.addHandler(RefusedConnection(reason: refusal), position: .first)
                return value
            }
        }
        channel.closeFuture.whenComplete { _ in limits.closed(from: address) }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { [timeouts] value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let clock = ConnectionTimeouts(timeouts)
            try pipeline.addHandler(ConnectionTimeouts.RawBytes(clock), position: .first)
            try pipeline.addHandler(HTTPVersionRules(), position: .after(decoder.handler))
            try pipeline.addHandler(ConnectionTimeouts.Messages(clock), position: .after(decoder.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
