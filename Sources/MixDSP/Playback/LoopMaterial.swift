/// Decodes a whole file and resamples it to the output rate, once, for looping or reuse.
///
/// For a loop the resampler sees the material circularly: the loop's own tail before it and its
/// own head after it, and only the middle is kept. The result equals resampling the endlessly
/// repeated stream, so the seam has no click from the filter seeing silence past the ends.
/// (The context is a whole number of the rates' common period, so the middle starts on an exact
/// output frame.)
///
/// `load` allocates: the whole decoded file (interleaved, at the source rate), a folded copy when the
/// channel count changes, chunk buffers, a converter when the rates differ, and the planar `AudioBlock`
/// it returns. Stateless: several threads may load at once, each with its own decoder.
public enum LoopMaterial {
    /// Seconds of circular context on each side: comfortably longer than the longest sinc filter.
    public static let contextSeconds = 0.25

    /// Returns the material as a planar block at the output rate and channel count, and its length.
    public static func load(decoder: AudioDecoder, outputRate: Int, outputChannels: Int,
                            isCircular: Bool, makeConverter: ConverterFactory) throws -> (audio: AudioBlock, length: Int) {
        let n = decoder.channelCount
        let w = workChannelCount(sourceChannels: n, outputChannels: outputChannels)
        let inRate = decoder.sampleRate

        // 1. Decode everything at the source rate (read to the end: a container's count can be off).
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
            // 3. Resample in chunks, reading the material circularly for loops (context frames before
            //    and after), and keep output frames [contextOut, contextOut + outLength).
            let g = gcd(inRate, outputRate)
            let unitIn = inRate / g, unitOut = outputRate / g
            let units = isCircular ? max(1, Int((contextSeconds * Double(inRate)).rounded(.up)) / unitIn + 1) : 0
            let contextIn = units * unitIn, contextOut = Int64(units * unitOut)
            let total = inFrames + 2 * contextIn
            let converter = try makeConverter(w, inRate, outputRate)
            let chunk = 8192
            var input = [Float](repeating: 0, count: chunk * w)
            var output = [Float](repeating: 0, count: chunk * w)
            var fed = 0                // frames of the virtual (circular) input consumed
            var produced: Int64 = 0    // output frames made so far
            try work.withUnsafeBufferPointer { material in
                try input.withUnsafeMutableBufferPointer { inBuf in
                    try output.withUnsafeMutableBufferPointer { outBuf in
                        var pending = 0, used = 0
                        while true {
                            if used == pending && fed < total {
                                // Next chunk of the virtual input: frame v is material[(v - contextIn) mod inFrames].
                                pending = min(chunk, total - fed); used = 0
                                for k in 0..<pending {
                                    let f = ((fed + k - contextIn) % inFrames + inFrames) % inFrames
                                    for c in 0..<w { inBuf[k * w + c] = material[f * w + c] }
                                }
                                fed += pending
                            }
                            let isLast = fed == total
                            let (u, made) = try converter.process(input: inBuf.baseAddress! + used * w, inputFrames: pending - used,
                                                                  output: outBuf.baseAddress!, outputCapacity: chunk, endOfInput: isLast)
                            used += u
                            // Keep the part of this output that falls in [contextOut, contextOut + outLength).
                            let lo = max(produced, contextOut), hi = min(produced + Int64(made), contextOut + Int64(outLength))
                            if hi > lo {
                                Kernels.deinterleave(outBuf.baseAddress! + Int(lo - produced) * w, channelCount: w,
                                                     count: Int(hi - lo), into: audio, offset: Int(lo - contextOut))
                            }
                            produced += Int64(made)
                            if isLast && used == pending && made == 0 { break }
                        }
                    }
                }
            }
        }
        if w == 1 && outputChannels == 2 {
            Kernels.copy(audio.channel(0).baseAddress!, to: audio.channel(1).baseAddress!, count: outLength)
        }
        return (audio, outLength)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
