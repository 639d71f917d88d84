import NIOCore
import NIOHTTP1

/// The three times a connection may take, each its own option, as nginx bounds them:
///
/// - **the request's head** (`--header-timeout`, nginx's `client_header_timeout`): from the connection opening, or
///   from the first byte of a next request, until the whole head has arrived. Bytes arriving do not reset it, so a
///   client that drips a header a byte at a time is closed as one that sends nothing;
/// - **the body** (`--body-timeout`, `client_body_timeout`): the longest wait between two reads of a request's body;
/// - **idle between requests** (`--idle-timeout`, `keepalive_timeout`): from a response's end until the next
///   request's first byte.
///
/// Nothing bounds the response: an events stream or a download to a slow reader runs as long as it needs (the
/// bounds on connections keep such clients from holding every descriptor). A connection past a bound is closed
/// without an answer, as nginx closes a slow header (its 408 is never sent either).
///
/// Two handlers share one clock: `RawBytes`, first in the pipeline, sees bytes arrive; `Messages`, after NIO's
/// decoder, sees a head and an end arrive and a response end. Both run on the connection's event loop, which alone
/// touches the clock.
final class ConnectionTimeouts {
    struct Limits: Sendable {
        var header: TimeAmount
        var body: TimeAmount
        var idle: TimeAmount
    }

    private enum Phase {
        /// Waiting for the whole head of a request (its first byte has come, or the connection is new).
        case head
        /// Reading a request's body.
        case body
        /// The request has all arrived; the response is the server's to take its time over.
        case responding
        /// Between a response's end and a next request's first byte.
        case idle
    }

    private let limits: Limits
    private var phase = Phase.head
    /// Requests read whole whose responses have not ended. A client may send its next request on the connection as
    /// soon as it has a response's last byte, before the server's end of that response has passed `Messages`: the
    /// idle time then starts only when no response is owed, never under the next request's response.
    private var responsesOwed = 0
    private var timer: Scheduled<Void>?
    /// The first handler's context: where a time-out closes the connection.
    private var context: ChannelHandlerContext?

    init(_ limits: Limits) { self.limits = limits }

    private func enter(_ next: Phase) {
        phase = next
        timer?.cancel()
        timer = nil
        let amount: TimeAmount
        switch next {
        case .head: amount = limits.header
        case .body: amount = limits.body
        case .idle: amount = limits.idle
        case .responding: return
        }
        guard let context else { return }
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: amount) { [self] in
            timer = nil
            self.context?.close(promise: nil)
        }
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        context = nil
    }

    /// First in the pipeline: the connection opening, bytes arriving.
    final class RawBytes: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        let clock: ConnectionTimeouts
        init(_ clock: ConnectionTimeouts) { self.clock = clock }

        func handlerAdded(context: ChannelHandlerContext) {
            clock.context = context
            if context.channel.isActive { clock.enter(.head) }
        }

        func channelActive(context: ChannelHandlerContext) {
            clock.enter(.head)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch clock.phase {
            case .idle: clock.enter(.head)      // a next request's first byte
            case .body: clock.enter(.body)      // a read of the body: the wait starts again
            case .head, .responding: break      // dripping a head does not buy time
            }
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            clock.stop()
            context.fireChannelInactive()
        }

        func handlerRemoved(context: ChannelHandlerContext) { clock.stop() }
    }

    /// After NIO's decoder: a head, a request's end, a response's end.
    final class Messages: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias InboundOut = HTTPServerRequestPart
        typealias OutboundIn = HTTPServerResponsePart
        typealias OutboundOut = HTTPServerResponsePart
        let clock: ConnectionTimeouts
        init(_ clock: ConnectionTimeouts) { self.clock = clock }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: clock.enter(.body)
            case .body: break
            case .end:
                clock.responsesOwed += 1
                clock.enter(.responding)
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) {
                clock.responsesOwed = max(0, clock.responsesOwed - 1)
                if clock.responsesOwed == 0, clock.phase == .responding { clock.enter(.idle) }
            }
            context.write(data, promise: promise)
        }
    }
}
