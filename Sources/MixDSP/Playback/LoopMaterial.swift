/// Decodes a whole file and resamples it to the output rate, once, for looping or reuse.
///
/// For a loop the resampler sees the material circularly: the loop's own tail before it and its
/// own head after it, and only the middle is kept. The result equals resampling the endlessly
/// repeated stream, so the seam has no click from the filter seeing silence past the ends.
/// (The context is a whole number of the rates' common period, so the middle starts on an exact
/// output frame.)
public enum LoopMaterial {
    /// Seconds of circular context on each side: comfortably longer than the longest sinc filter.
    public static let contextSeconds = 0.25

    /// Returns the material as a planar block at the output rate and channel count, and its length.
    public static func load(decoder: AudioDecoder, outputRate: Int, outputChannels: Int,
                            isCircular: Bool, makeConverter: ConverterFactory) throws -> (audio: AudioBlock, length: Int) {
        let n = decoder.channelCount
        let w = workChannelCount(sourceChannels: n, outputChannels: outputChannels)
        let inRate = decoder.sampleRate

        // 1. Decode everything (the container's frame count can be off for lossy formats: read to the end).
        var decoded = [Float]()
        decoded.reserveCapacity(Int(max(0, decoder.frameCount)) * n + 4096 * n)
        let chunk = 8192
        var buffer = [Float](repeating: 0, count: chunk * n)
        while true {
            let got = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0.baseAddress!, frames: chunk) }
            if got == 0 { break }
            decoded.append(contentsOf: buffer[0..<(got * n)])
        }
        let inFrames = decoded.count / n
        guard inFrames > 0 else { return (AudioBlock(channelCount: outputChannels, capacity: 1), 0) }

        // 2. Fold channels to the work count.
        var work = decoded
        if n != w {
            work = [Float](repeating: 0, count: inFrames * w)
            let map = ChannelMap(inputCount: n, outputCount: w)
            decoded.withUnsafeBufferPointer { src in
                work.withUnsafeMutableBufferPointer { map.apply(interleaved: src.baseAddress!, frames: inFrames, to: $0.baseAddress!) }
            }
        }
        decoded = []

        let outLength = Int(StreamingSource.outputLength(inputFrames: Int64(inFrames), inputRate: inRate, outputRate: outputRate))
        let audio = AudioBlock(channelCount: outputChannels, capacity: max(outLength, 1))
        if inRate == outputRate {
            work.withUnsafeBufferPointer { Kernels.deinterleave($0.baseAddress!, channelCount: w, count: inFrames, into: audio) }
        } else {
            // 3. Resample, with circular context for loops.
            let g = gcd(inRate, outputRate)
            let unitIn = inRate / g, unitOut = outputRate / g
            let units = isCircular ? max(1, Int((contextSeconds * Double(inRate)).rounded(.up)) / unitIn + 1) : 0
            let contextIn = units * unitIn, contextOut = units * unitOut
            var extended = [Float]()
            extended.reserveCapacity((inFrames + 2 * contextIn) * w)
            if contextIn > 0 {
                for k in 0..<contextIn {                       // the tail, wrapped as often as needed
                    let f = ((inFrames - contextIn + k) % inFrames + inFrames) % inFrames
                    extended.append(contentsOf: work[(f * w)..<((f + 1) * w)])
                }
            }
            extended.append(contentsOf: work)
            for k in 0..<contextIn {                           // the head
                let f = k % inFrames
                extended.append(contentsOf: work[(f * w)..<((f + 1) * w)])
            }
            work = []
            let converter = try makeConverter(w, inRate, outputRate)
            let total = extended.count / w
            let capacity = Int(Double(total) * Double(outputRate) / Double(inRate)) + 4096
            var out = [Float](repeating: 0, count: capacity * w)
            var used = 0, made = 0
            try extended.withUnsafeBufferPointer { src in
                try out.withUnsafeMutableBufferPointer { dst in
                    while true {
                        let (u, m) = try converter.process(input: src.baseAddress! + used * w, inputFrames: total - used,
                                                           output: dst.baseAddress! + made * w, outputCapacity: capacity - made,
                                                           endOfInput: true)
                        used += u; made += m
                        if m == 0 && (used == total || made == capacity) { break }
                    }
                }
            }
            let available = max(0, min(outLength, made - contextOut))
            out.withUnsafeBufferPointer {
                Kernels.deinterleave($0.baseAddress! + contextOut * w, channelCount: w, count: available, into: audio)
            }
        }
        if w == 1 && outputChannels == 2 {
            Kernels.copy(audio.channel(0).baseAddress!, to: audio.channel(1).baseAddress!, count: outLength)
        }
        return (audio, outLength)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
