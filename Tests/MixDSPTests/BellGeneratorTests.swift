import DSPTestSupport
import Foundation
import MixDSP
import Testing

/// The bell: its partials, its decay, a strike that does not click, and samples that depend only on their position.
@Suite struct BellGeneratorTests {
    static let rate = 48000
    // A fresh generator per use: tests run in parallel, and a generator keeps state between renders.
    static var bell: BellGenerator { BellGenerator(fundamentalHz: 220, decaySeconds: 12, sampleRate: rate, amplitude: 0.5, channelCount: 2) }

    /// |DFT| of `x` (Hann-windowed) at `hz`, normalised so a steady sine of amplitude A reads A / 2.
    static func magnitude(_ x: ArraySlice<Float>, at hz: Double) -> Double {
        var re = 0.0, im = 0.0
        let count = Double(x.count)
        for (i, v) in x.enumerated() {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / count)
            let angle = 2 * Double.pi * hz * Double(i) / Double(rate)
            re += w * Double(v) * cos(angle); im -= w * Double(v) * sin(angle)
        }
        return (re * re + im * im).squareRoot() / count
    }

    @Test func itRingsAtItsPartialsAndNotBetweenThem() throws {
        // The first second after the strike: every partial stands at least 20 dB above the spectrum halfway to the next.
        let x = try GeneratorTesting.render(Self.bell, frames: Self.rate)[0]
        let partials = BellGenerator.partials.map { $0.ratio * 220 }
        var weakestMargin = Double.infinity
        for k in 0..<partials.count {
            let on = Self.magnitude(x[...], at: partials[k])
            let neighbours = [k > 0 ? (partials[k - 1] + partials[k]) / 2 : partials[k] * 0.8,
                              k + 1 < partials.count ? (partials[k] + partials[k + 1]) / 2 : partials[k] * 1.2]
            for between in neighbours {
                let margin = dB(on / Self.magnitude(x[...], at: between))
                weakestMargin = min(weakestMargin, margin)
                #expect(margin > 20, "\(partials[k]) Hz stands only \(margin) dB above \(between) Hz")
            }
        }
        print("bell: weakest partial stands \(weakestMargin) dB above its surroundings")
    }

    @Test func itDecaysToSilence() throws {
        let frames = Int(Self.bell.frameCount!)
        #expect(frames == 12 * Self.rate)
        let x = try GeneratorTesting.render(Self.bell, frames: frames + 1000)[0]
        let first = rms(x[0..<Self.rate]), last = rms(x[(frames - Self.rate)..<frames])
        #expect(dB(last / first) < -50, "last second \(dB(last / first)) dB re the first")
        // 60 dB below the peak before the release starts, and exactly silent after the end
        let top = peak(x)
        #expect(abs(dB(Double(top) / 0.5)) < 0.1, "peak \(top)")
        #expect(peak(x[(frames - Self.rate / 10)..<frames]) < top / 1000)
        #expect(x[frames...].allSatisfy { $0 == 0 })
        print("bell: peak \(top), last second \(dB(last / first)) dB re the first")
    }

    @Test func theStrikeDoesNotClick() throws {
        let x = try GeneratorTesting.render(Self.bell, frames: Self.rate / 5)[0]
        // The 5 ms raised-cosine attack: silence at the strike, the first 0.2 ms 54 dB below the peak, the first ms
        // at most a tenth of it.
        #expect(x[0] == 0 && peak(x[0..<10]) < 1e-3 && peak(x[0..<48]) < 0.05,
                "first 10 samples \(peak(x[0..<10])), first ms \(peak(x[0..<48]))")
        // No step in the attack larger than the bell's own once it rings (100 to 200 ms).
        var strike: Float = 0, ringing: Float = 0
        for i in 1..<480 { strike = max(strike, abs(x[i] - x[i - 1])) }
        for i in 4800..<9600 { ringing = max(ringing, abs(x[i] - x[i - 1])) }
        #expect(strike <= ringing, "largest step in the attack \(strike), ringing \(ringing)")
        print("bell: first 10 samples peak \(peak(x[0..<10])), first ms \(peak(x[0..<48])), largest step in the attack \(strike), ringing \(ringing)")
    }

    @Test func partialsAboveNyquistAreDropped() {
        let high = BellGenerator(fundamentalHz: 9000, decaySeconds: 3, sampleRate: 24000, amplitude: 0.5, channelCount: 1)
        #expect(high.sounding.map(\.ratio) == [0.5, 1.0, 1.2])
    }

    @Test func everyBlockSizeAndEveryStartGiveTheSameSamples() throws {
        // A short bell, so that the attack, the release and the silence after it are all inside the frames compared.
        let bell = BellGenerator(fundamentalHz: 523.25, decaySeconds: 0.2, sampleRate: Self.rate, amplitude: 0.8, channelCount: 2)
        try GeneratorTesting.expectSameSamplesForAnyBlocks(bell, frames: 10_000, partialStart: 123)
    }
}
