import DSPTestSupport
import Foundation
import MixDSP
import MixIO
import Testing

/// `LoopMaterial.load` against the plain way it was first written (decode into an array, gather every chunk
/// of the circular stream frame by frame): the output must be the same, bit for bit, for libsamplerate and
/// libsoxr, looped or not, for any channel fold, and for loops shorter than the circular context.
@Suite struct LoopMaterialTests {
    /// A decoder over frames made in code, handing out reads of an odd size (as a real file may).
    final class MemoryDecoder: AudioDecoder {
        let sampleRate: Int, channelCount: Int, frameCount: Int64
        let samples: [Float]
        var position = 0
        /// Frames a seek lands past where it was asked (an inexact seek).
        let seekError: Int
        var seeks = 0
        init(rate: Int, channels: Int, frames: Int, reportedFrames: Int? = nil, seekError: Int = 0, seed: UInt64) {
            sampleRate = rate; channelCount = channels; frameCount = Int64(reportedFrames ?? frames)
            self.seekError = seekError
            var state = seed
            samples = (0..<(frames * channels)).map { i in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Float(Int64(bitPattern: state >> 11) % 1_000_000) / 4_000_000
                return noise + 0.4 * Float(sin(Double(i / channels) * 0.0123 * Double(1 + i % channels)))
            }
        }
        func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
            let n = max(0, min(frames, 5001, samples.count / channelCount - position))
            for k in 0..<(n * channelCount) { buffer[k] = samples[position * channelCount + k] }
            position += n
            return n
        }
        func seek(to frame: Int64) throws { seeks += 1; position = frame == 0 ? 0 : Int(frame) + seekError }
    }

    /// The load as it was before: the reference.
    static func reference(decoder: AudioDecoder, outputRate: Int, outputChannels: Int, isCircular: Bool,
                          makeConverter: ConverterFactory) throws -> (audio: AudioBlock, length: Int) {
        let n = decoder.channelCount
        let w = workChannelCount(sourceChannels: n, outputChannels: outputChannels)
        let inRate = decoder.sampleRate
        var decoded = [Float]()
        let chunk = 8192
        var buffer = [Float](repeating: 0, count: chunk * n)
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0.baseAddress!, frames: chunk) }
            if got == 0 { break }
            decoded.append(contentsOf: buffer[0..<(got * n)])
        }
        let inFrames = decoded.count / n
        var work = decoded
        if n != w {
            work = [Float](repeating: 0, count: inFrames * w)
            let map = ChannelMap(inputCount: n, outputCount: w)
            decoded.withUnsafeBufferPointer { src in
                work.withUnsafeMutableBufferPointer { map.apply(interleaved: src.baseAddress!, frames: inFrames, to: $0.baseAddress!) }
            }
        }
        let outLength = Int(StreamingSource.outputLength(inputFrames: Int64(inFrames), inputRate: inRate, outputRate: outputRate))
        let audio = AudioBlock(channelCount: outputChannels, capacity: max(outLength, 1))
        if inRate == outputRate {
            work.withUnsafeBufferPointer { Kernels.deinterleave($0.baseAddress!, channelCount: w, count: inFrames, into: audio) }
        } else {
            let g = LoopMaterialTests.gcd(inRate, outputRate)
            let unitIn = inRate / g, unitOut = outputRate / g
            let units = isCircular ? max(1, Int((LoopMaterial.contextSeconds * Double(inRate)).rounded(.up)) / unitIn + 1) : 0
            let contextIn = units * unitIn, contextOut = Int64(units * unitOut)
            let total = inFrames + 2 * contextIn
            let converter = try makeConverter(w, inRate, outputRate)
            var input = [Float](repeating: 0, count: chunk * w)
            var output = [Float](repeating: 0, count: chunk * w)
            var fed = 0, produced: Int64 = 0, pending = 0, used = 0
            while true {
                if used == pending && fed < total {
                    pending = min(chunk, total - fed); used = 0
                    for k in 0..<pending {
                        let f = ((fed + k - contextIn) % inFrames + inFrames) % inFrames
                        for c in 0..<w { input[k * w + c] = work[f * w + c] }
                    }
                    fed += pending
                }
                let isLast = fed == total
                let (u, made) = try input.withUnsafeBufferPointer { i in
                    try output.withUnsafeMutableBufferPointer { o in
                        try converter.process(input: i.baseAddress! + used * w, inputFrames: pending - used,
                                              output: o.baseAddress!, outputCapacity: chunk, endOfInput: isLast)
                    }
                }
                used += u
                let lo = max(produced, contextOut), hi = min(produced + Int64(made), contextOut + Int64(outLength))
                if hi > lo {
                    output.withUnsafeBufferPointer {
                        Kernels.deinterleave($0.baseAddress! + Int(lo - produced) * w, channelCount: w,
                                             count: Int(hi - lo), into: audio, offset: Int(lo - contextOut))
                    }
                }
                produced += Int64(made)
                if isLast && used == pending && made == 0 { break }
            }
        }
        if w == 1 && outputChannels == 2 {
            Kernels.copy(audio.channel(0).baseAddress!, to: audio.channel(1).baseAddress!, count: outLength)
        }
        return (audio, outLength)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    static func factory(_ quality: ResamplerChoice) -> ConverterFactory {
        { c, i, o in try makeSampleRateConverter(channelCount: c, inputRate: i, outputRate: o, quality: quality) }
    }

    @Test(arguments: [
        // (quality, input rate, source channels, output channels, frames, circular)
        (ResamplerChoice.medium, 44_100, 2, 2, 100_000, true),
        (.fast, 22_050, 2, 2, 40_000, true),
        (.medium, 44_100, 1, 2, 30_000, true),
        (.medium, 44_100, 2, 1, 30_000, true),
        (.fast, 44_100, 6, 2, 20_000, true),
        (.medium, 44_100, 2, 2, 3_000, true),      // shorter than the context: the stream wraps several times
        (.medium, 44_100, 2, 2, 50_000, false),
        (.medium, 48_000, 2, 2, 50_000, true),     // no resampling
        (.medium, 48_000, 1, 2, 50_000, false),
        (.medium, 48_000, 6, 2, 30_000, true),
        (.soxrHQ, 44_100, 2, 2, 100_000, true),
        (.soxrVHQ, 22_050, 1, 2, 40_000, true),
        (.soxrHQ, 44_100, 2, 2, 3_000, true),
    ])
    func sameAsTheReference(quality: ResamplerChoice, rate: Int, channels: Int, outputChannels: Int, frames: Int,
                            isCircular: Bool) throws {
        let make = { MemoryDecoder(rate: rate, channels: channels, frames: frames, seed: UInt64(frames + channels)) }
        let new = try LoopMaterial.load(decoder: make(), outputRate: 48_000, outputChannels: outputChannels,
                                        isCircular: isCircular, makeConverter: Self.factory(quality))
        let old = try Self.reference(decoder: make(), outputRate: 48_000, outputChannels: outputChannels,
                                     isCircular: isCircular, makeConverter: Self.factory(quality))
        #expect(new.length == old.length)
        for c in 0..<outputChannels {
            let a = Array(new.audio.channel(c)[0..<new.length]), b = Array(old.audio.channel(c)[0..<old.length])
            #expect(a == b, "channel \(c)")
        }
    }

    /// Whatever the container reports and however its seeks land, the result is the in-memory one: a count short
    /// of the frames (read on to the end), one past them, an inexact seek (the streaming way checks the tail it
    /// read after the seek against the stream's own last frames and falls back).
    @Test(arguments: [(10_000, 0), (50_000, 0), (70_000, 0), (60_000, 1), (60_000, -3), (60_000, 0)])
    func sameResultWhateverTheContainerSays(reported: Int, seekError: Int) throws {
        let make = { MemoryDecoder(rate: 44_100, channels: 2, frames: 60_000, reportedFrames: reported, seekError: seekError, seed: 9) }
        let decoder = make()
        let new = try LoopMaterial.load(decoder: decoder, outputRate: 48_000, outputChannels: 2, isCircular: true,
                                        makeConverter: Self.factory(.fast))
        let old = try Self.reference(decoder: make(), outputRate: 48_000, outputChannels: 2, isCircular: true,
                                     makeConverter: Self.factory(.fast))
        #expect(new.length == 65_306)
        #expect(Array(new.audio.channel(1)[0..<new.length]) == Array(old.audio.channel(1)[0..<old.length]))
        if reported == 60_000 && seekError == 0 { #expect(decoder.seeks == 2, "streamed: one seek to the tail, one back") }
    }

    /// At the output rate: a count short of the frames or past them gives the in-memory result too.
    @Test(arguments: [10_000, 59_999, 60_000, 60_001, 70_000])
    func sameResultAtTheOutputRate(reported: Int) throws {
        let make = { MemoryDecoder(rate: 48_000, channels: 2, frames: 60_000, reportedFrames: reported, seed: 4) }
        let new = try LoopMaterial.load(decoder: make(), outputRate: 48_000, outputChannels: 2, isCircular: true,
                                        makeConverter: Self.factory(.fast))
        #expect(new.length == 60_000)
        let reference = make()
        for c in 0..<2 {
            let expected = (0..<60_000).map { reference.samples[$0 * 2 + c] }
            #expect(Array(new.audio.channel(c)[0..<new.length]) == expected, "channel \(c)")
        }
    }
}
