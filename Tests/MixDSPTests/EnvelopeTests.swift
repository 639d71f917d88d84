import Testing
import MixDSP

@Suite struct EnvelopeTests {
    let envelope = Envelope(points: [
        .init(position: 1000, value: 0.25),
        .init(position: 5000, value: 1, curve: .sCurve),
        .init(position: 5000, value: 0.5),               // a step
        .init(position: 9001, value: 0.125, curve: .exponential),
        .init(position: 20_000, value: 0, curve: .equalPower),
    ])

    /// Renders frames [0, total) in blocks of `size` and returns them.
    func rendered(_ e: Envelope, blockSize size: Int, total: Int) -> [Float] {
        var out = [Float](repeating: 0, count: total)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: size)
        defer { buffer.deallocate() }
        var p = 0
        while p < total {
            let n = min(size, total - p)
            if let k = e.render(into: buffer, count: n, at: Int64(p)) {
                for i in 0..<n { out[p + i] = k }
            } else {
                for i in 0..<n { out[p + i] = buffer[i] }
            }
            p += n
        }
        return out
    }

    @Test func blockSizeDoesNotChangeTheResult() {
        let total = 24_000
        let reference = (0..<total).map { envelope.value(at: Int64($0)) }
        for size in [1, 7, 64, 1000, 4096, 24_000] {
            #expect(rendered(envelope, blockSize: size, total: total) == reference, "block size \(size)")
        }
    }

    @Test func holdsOutsideItsPointsAndHitsThem() {
        #expect(envelope.value(at: 0) == 0.25)
        #expect(envelope.value(at: 1000) == 0.25)
        #expect(envelope.value(at: 5000) == 0.5)      // the step takes effect at its position
        #expect(abs(envelope.value(at: 4999) - 1) < 1e-6)
        #expect(envelope.value(at: 20_000) == 0)
        #expect(envelope.value(at: 1 << 40) == 0)
    }

    @Test func rampIsContinuousAcrossBlockBoundaries() {
        let ramp = Envelope.fadeIn(start: 0, length: 48_000, curve: .linear)
        let values = rendered(ramp, blockSize: 4096, total: 48_000)
        for i in 1..<values.count {
            #expect(abs(values[i] - values[i - 1] - 1 / 48_000) < 1e-6)
        }
    }

    @Test func positionsFarIntoALongRenderAreExact() {
        // 8 hours at 48 kHz: the fade must end on its frame, not drift.
        let end: Int64 = 8 * 3600 * 48_000
        let fade = Envelope.fadeOut(end: end, length: 30 * 60 * 48_000, curve: .linear)
        #expect(fade.value(at: end) == 0)
        #expect(abs(fade.value(at: end - 1) - 1 / Float(30 * 60 * 48_000)) < 1e-9)
        #expect(fade.value(at: end - 30 * 60 * 48_000) == 1)
    }

    @Test func constantBlocksAreReportedAsConstant() {
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { buffer.deallocate() }
        #expect(envelope.render(into: buffer, count: 512, at: 0) == 0.25)
        #expect(envelope.render(into: buffer, count: 512, at: 30_000) == 0)
        #expect(envelope.render(into: buffer, count: 512, at: 900) == nil)
    }

    @Test func gainStackMultipliesItsEnvelopes() {
        let stack = GainStack(constant: 0.5, envelopes: [
            .fadeIn(start: 0, length: 100, curve: .linear),
            .fadeOut(end: 200, length: 100, curve: .linear),
        ])
        let gains = UnsafeMutablePointer<Float>.allocate(capacity: 200)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 200)
        defer { gains.deallocate(); scratch.deallocate() }
        #expect(stack.render(into: gains, scratch: scratch, count: 200, at: 0) == nil)
        #expect(abs(gains[50] - 0.25) < 1e-7)
        #expect(abs(gains[150] - 0.25) < 1e-7)
        #expect(abs(gains[100] - 0.5) < 1e-7)
        #expect(stack.render(into: gains, scratch: scratch, count: 10, at: 300) == 0)
    }
}
