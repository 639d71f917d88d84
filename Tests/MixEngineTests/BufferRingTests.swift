import DSPTestSupport
import Foundation
import Testing
import MixDSP
@testable import MixEngine

private struct Boom: Error, Equatable { var at: Int }

/// Runs `body` on a thread of its own; `wait()` returns when it has ended.
private final class Worker: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [done] in body(); done.signal() }
        thread.start()
    }
    func wait() { done.wait() }
}

/// Collects values from another thread.
private final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

@Suite struct BufferRingTests {
    /// Fills block `k` with k * 1000 + i for its first `count(k)` floats.
    private static func count(_ k: Int) -> Int { 1 + (k * 37) % 100 }

    @Test(arguments: [1, 2, 3, 8])
    func passesEveryBlockInOrder(slots: Int) throws {
        let ring = BufferRing(slotCount: slots, capacity: 100)
        #expect(ring.stride % 16 == 0 && ring.stride >= 100)
        let blocks = 500
        let producer = Worker {
            for k in 0..<blocks {
                let buffer = try! ring.reserve()
                for i in 0..<Self.count(k) { buffer[i] = Float(k * 1000 + i) }
                ring.publish(count: Self.count(k))
            }
            ring.closeWriting()
        }
        var received = 0
        while let block = try ring.next() {
            #expect(block.count == Self.count(received))
            let expected = (0..<block.count).map { Float(received * 1000 + $0) }
            #expect(Array(UnsafeBufferPointer(start: block.buffer, count: block.count)) == expected)
            ring.release()
            received += 1
        }
        #expect(received == blocks)
        #expect(try ring.next() == nil)   // stays at the end
        ring.closeReading()
        producer.wait()
        #expect(ring.waitUntilReadingClosed() == nil)
    }

    @Test func producerFailureComesAfterThePublishedBlocks() throws {
        let ring = BufferRing(slotCount: 4, capacity: 8)
        let producer = Worker {
            for k in 0..<10 {
                let buffer = try! ring.reserve()
                buffer[0] = Float(k)
                ring.publish(count: 1)
            }
            ring.closeWriting(failure: Boom(at: 10))
        }
        var seen: [Float] = []
        do {
            while let block = try ring.next() { seen.append(block.buffer[0]); ring.release() }
            Issue.record("expected the producer's failure")
        } catch let error as Boom {
            #expect(error == Boom(at: 10))
        }
        #expect(seen == (0..<10).map(Float.init))
        #expect(ring.waitUntilWritingClosed() as? Boom == Boom(at: 10))
        producer.wait()
    }

    @Test func consumerFailureStopsTheProducer() throws {
        let ring = BufferRing(slotCount: 2, capacity: 4)
        let thrown = Box<Error?>(nil), published = Box(0)
        let producer = Worker {
            do {
                while true {
                    _ = try ring.reserve()
                    ring.publish(count: 1)
                    published.value += 1
                }
            } catch { thrown.value = error }
            ring.closeWriting()
        }
        for _ in 0..<3 { _ = try ring.next(); ring.release() }
        ring.closeReading(failure: Boom(at: 3))
        producer.wait()   // it would hang here if reserve() kept waiting for a free slot
        #expect(thrown.value as? Boom == Boom(at: 3))
        #expect(published.value >= 3 && published.value <= 5)
        #expect(ring.waitUntilReadingClosed() as? Boom == Boom(at: 3))
    }

    @Test func consumerClosingWithoutFailureThrowsClosed() {
        let ring = BufferRing(slotCount: 2, capacity: 4)
        ring.closeReading()
        #expect(throws: BufferRing.Closed.self) { try ring.reserve() }
    }

    /// Several readers each get every block, in order, at their own pace (one stops now and then), and the producer
    /// reuses a slot only once all of them have released it (a block's values are checked when each reader reads it).
    @Test(arguments: [1, 2, 3, 8])
    func everyReaderGetsEveryBlockInOrder(slots: Int) throws {
        let readers = 3, blocks = 400
        let ring = BufferRing(slotCount: slots, capacity: 100, readers: readers)
        #expect(ring.readerCount == readers)
        let received = (0..<readers).map { _ in Box(0) }
        let mismatches = (0..<readers).map { _ in Box(0) }
        let threads = (0..<readers).map { r in
            Worker {
                var k = 0
                while let block = try! ring.next(reader: r) {
                    if block.count != Self.count(k) || (0..<block.count).contains(where: { block.buffer[$0] != Float(k * 1000 + $0) }) {
                        mismatches[r].value += 1
                    }
                    if r == 1 && k % 37 == 0 { usleep(200) }   // a slower reader
                    ring.release(reader: r)
                    k += 1
                }
                received[r].value = k
                ring.closeReading(reader: r)
            }
        }
        for k in 0..<blocks {
            let buffer = try ring.reserve()
            for i in 0..<Self.count(k) { buffer[i] = Float(k * 1000 + i) }
            ring.publish(count: Self.count(k))
        }
        ring.closeWriting()
        #expect(ring.waitUntilReadingClosed() == nil)
        for thread in threads { thread.wait() }
        #expect(received.map(\.value) == Array(repeating: blocks, count: readers))
        #expect(mismatches.map(\.value) == Array(repeating: 0, count: readers))
    }

    /// A reader's failure stops the producer (as a lone reader's does); the other readers still get what was
    /// published, and the producer's wait for the readers lasts until all have closed.
    @Test func oneReadersFailureStopsTheProducerAndTheOthersReadOn() throws {
        let ring = BufferRing(slotCount: 4, capacity: 8, readers: 2)
        let failing = Worker {
            for _ in 0..<3 { _ = try! ring.next(reader: 1); ring.release(reader: 1) }
            ring.closeReading(reader: 1, failure: Boom(at: 3))
        }
        let other = Box(0)
        let reading = Worker {
            while (try? ring.next(reader: 0)) != nil { ring.release(reader: 0); other.value += 1 }
            ring.closeReading(reader: 0)
        }
        var published = 0
        do {
            while true {
                let buffer = try ring.reserve()
                buffer[0] = Float(published)
                ring.publish(count: 1)
                published += 1
            }
        } catch {
            #expect(error as? Boom == Boom(at: 3))
        }
        failing.wait()
        #expect(published >= 3 && published <= 3 + 4, "the producer stops within a ring of the failure")
        ring.closeWriting()
        #expect(ring.waitUntilReadingClosed() as? Boom == Boom(at: 3))
        reading.wait()
        #expect(other.value == published)
    }

    // MARK: - ThreadedTap (with an EncoderSink) and ReadAheadDecoder, built on the ring

    /// Records frames (channel 0 of each interleaved frame); fails on block `failAt`.
    private final class RecordingEncoder: AudioEncoder, @unchecked Sendable {
        var frames: [Float] = []
        var blocks = 0
        var finished = 0
        let failAt: Int?
        init(failAt: Int? = nil) { self.failAt = failAt }
        func write(interleaved: UnsafePointer<Float>, frames n: Int) throws {
            if blocks == failAt { throw Boom(at: blocks) }
            for i in 0..<n { frames.append(interleaved[2 * i]) }
            blocks += 1
        }
        func finish() throws { finished += 1 }
    }

    /// Records the positions a sink is given, on whichever thread calls it. `@unchecked Sendable`: the
    /// `ThreadedTap` calls it from its thread only, and the test reads it after `finish()` has joined that thread.
    private final class PositionSink: MixTap, @unchecked Sendable {
        var positions: [Int64] = []
        var counts: [Int] = []
        func receive(_ block: AudioBlock, offset: Int, count: Int, at position: Int64) throws {
            positions.append(position); counts.append(count)
        }
    }

    @Test func threadedEncoderSinkEncodesEveryBlockInOrderInterleaved() throws {
        let encoder = RecordingEncoder()
        let tap = ThreadedTap(EncoderSink(encoder, channelCount: 2, blockFrames: 64), channelCount: 2, blockFrames: 64, depth: 3)
        let block = AudioBlock(channelCount: 2, capacity: 80)
        var expected: [Float] = []
        var position: Int64 = 0
        for k in 0..<200 {
            let n = 1 + k % 64, offset = k % 16   // a block's frames need not start at its first
            for i in 0..<n { block.channel(0)[offset + i] = Float(k * 100 + i); block.channel(1)[offset + i] = -1 }
            try tap.receive(block, offset: offset, count: n, at: position)
            position += Int64(n)
            expected += (0..<n).map { Float(k * 100 + $0) }
        }
        try tap.finish()
        #expect(encoder.frames == expected)
        #expect(encoder.blocks == 200 && encoder.finished == 1)
        #expect(tap.workSeconds(sink: 0) >= 0 && tap.handOverSeconds >= 0)
    }

    @Test func threadedTapGivesEachBlockItsPosition() throws {
        let sink = PositionSink()
        let tap = ThreadedTap(sink, channelCount: 1, blockFrames: 10, depth: 2)
        let block = AudioBlock(channelCount: 1, capacity: 10)
        let positions: [Int64] = (0..<50).map { k in Int64(1000 + 7 * k) }
        let counts: [Int] = (0..<50).map { k in 1 + k % 10 }
        for k in 0..<50 { try tap.receive(block, offset: 0, count: counts[k], at: positions[k]) }
        try tap.finish()
        #expect(sink.positions == positions)
        #expect(sink.counts == counts)
    }

    /// Two sinks on one ring (the encoder and a meter, as a render has them): each gets every block, in order, with
    /// its position, and both are finished.
    @Test func twoSinksShareOneRing() throws {
        let encoder = RecordingEncoder()
        let positions = PositionSink()
        let tap = ThreadedTap([(EncoderSink(encoder, channelCount: 2, blockFrames: 32), "test-encoder"), (positions, "test-positions")],
                              channelCount: 2, blockFrames: 32, depth: 3)
        #expect(tap.sinks.count == 2)
        let block = AudioBlock(channelCount: 2, capacity: 32)
        var expected: [Float] = [], expectedPositions: [Int64] = [], counts: [Int] = []
        var position: Int64 = 0
        for k in 0..<300 {
            let n = 1 + k % 32
            for i in 0..<n { block.channel(0)[i] = Float(k * 100 + i); block.channel(1)[i] = 0 }
            try tap.receive(block, offset: 0, count: n, at: position)
            expected += (0..<n).map { Float(k * 100 + $0) }
            expectedPositions.append(position); counts.append(n)
            position += Int64(n)
        }
        try tap.finish()
        #expect(encoder.frames == expected && encoder.finished == 1)
        #expect(positions.positions == expectedPositions && positions.counts == counts)
        #expect(tap.workSeconds(sink: 0) >= 0 && tap.workSeconds(sink: 1) >= 0)
    }

    /// A sink's failure fails the tap, whether it runs alone or beside another (which reads on): `receive` and then
    /// `finish` throw its error, and the failed sink is not finished.
    @Test(arguments: [false, true]) func aSinksFailureFailsTheTap(besideAnother: Bool) throws {
        let encoder = RecordingEncoder(failAt: 7)
        let positions = PositionSink()
        let failing: (tap: MixTap, thread: String) = (EncoderSink(encoder, channelCount: 2, blockFrames: 16), "test-encoder")
        let tap = ThreadedTap(besideAnother ? [(positions, "test-positions"), failing] : [failing],
                              channelCount: 2, blockFrames: 16, depth: 2)
        let block = AudioBlock(channelCount: 2, capacity: 16)
        var failure: Error?
        for k in 0..<1000 {
            do { try tap.receive(block, offset: 0, count: 16, at: Int64(16 * k)) } catch { failure = error; break }
        }
        #expect(failure as? Boom == Boom(at: 7))
        #expect(throws: Boom(at: 7)) { try tap.finish() }
        #expect(encoder.blocks == 7 && encoder.finished == 0, "a failed sink is not finished")
        if besideAnother { #expect(positions.positions.count >= 7, "the other sink read on") }
    }

    /// Every frame in order, then the end or the decoder's failure.
    @Test func readAheadDecoderDeliversTheFileThenTheFailure() throws {
        for failingAt in [nil, 10_000] as [Int?] {
            let blocks = ReadAheadDecoder(CountingDecoder(frames: 10_000, failingAt: failingAt), blockFrames: 333, slotCount: 3)
            var values: [Float] = []
            do {
                while let block = try blocks.next() {
                    values += UnsafeBufferPointer(start: block.samples, count: block.frames)
                    blocks.release()
                }
                #expect(failingAt == nil)
            } catch let error as CountingDecoder.Failure {
                #expect(error.at == failingAt)
            }
            blocks.cancel()
            blocks.cancel()
            #expect(values == (0..<10_000).map(Float.init))
        }
    }

    @Test func readAheadDecoderCancelsEarly() throws {
        let blocks = ReadAheadDecoder(CountingDecoder(frames: 1_000_000), blockFrames: 100, slotCount: 2)
        let first = try #require(try blocks.next())
        #expect(first.frames == 100 && first.samples[99] == 99)
        blocks.release()
        blocks.cancel()   // returns: the decoding thread has ended
    }
}
