import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import MixServer

/// The connection's time-outs on an embedded channel, with the event loop's clock moved by hand: the order of reads
/// and writes that real sockets give only sometimes.
@Suite struct ConnectionClockTests {
    static func channel() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let clock = ConnectionTimeouts(.init(header: .seconds(1), body: .seconds(1), idle: .seconds(1)))
        try channel.pipeline.syncOperations.addHandler(ConnectionTimeouts.RawBytes(clock))
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
        try channel.pipeline.syncOperations.addHandler(ConnectionTimeouts.Messages(clock))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }

    /// A client sends its next request as soon as it has a response's last byte, which can be before the server's end
    /// of that response has passed the clock: the idle time must not then start under the next response (an events
    /// stream longer than the idle time-out was cut at it, now and then, before this was counted).
    @Test func theIdleTimeStartsOnlyWhenNoResponseIsOwed() throws {
        let (channel, loop) = try Self.channel()
        try channel.writeInbound(ByteBuffer(string: "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))
        try channel.writeInbound(ByteBuffer(string: "GET /b HTTP/1.1\r\nHost: x\r\n\r\n"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))   // the first response's end, after the next request
        loop.advanceTime(by: .seconds(5))
        #expect(channel.isActive, "the second response was cut by the idle time-out")
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        loop.advanceTime(by: .milliseconds(900))
        #expect(channel.isActive)
        loop.advanceTime(by: .milliseconds(200))
        #expect(!channel.isActive, "idle past its time-out with no response owed, and still open")
    }

    /// The three bounds as before: a head that does not come, a body that stops, idle after a response.
    @Test func eachPhaseHasItsBound() throws {
        let (head, headLoop) = try Self.channel()
        try head.writeInbound(ByteBuffer(string: "GET /a HTTP/1.1\r\n"))
        headLoop.advanceTime(by: .milliseconds(1100))
        #expect(!head.isActive)

        let (body, bodyLoop) = try Self.channel()
        try body.writeInbound(ByteBuffer(string: "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345"))
        bodyLoop.advanceTime(by: .milliseconds(900))
        try body.writeInbound(ByteBuffer(string: "678"))   // a read of the body starts its wait again
        bodyLoop.advanceTime(by: .milliseconds(900))
        #expect(body.isActive)
        bodyLoop.advanceTime(by: .milliseconds(200))
        #expect(!body.isActive)

        let (long, longLoop) = try Self.channel()
        try long.writeInbound(ByteBuffer(string: "GET /events HTTP/1.1\r\nHost: x\r\n\r\n"))
        longLoop.advanceTime(by: .seconds(60))   // a response takes as long as it needs
        #expect(long.isActive)
        try long.writeOutbound(HTTPServerResponsePart.end(nil))
        longLoop.advanceTime(by: .milliseconds(1100))
        #expect(!long.isActive)
    }
}
