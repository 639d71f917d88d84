/// Decodes a whole file and resamples it to the output rate, once, for looping or reuse.
///
/// For a loop the resampler sees the material circularly: the loop's own tail before it and its
/// own head after it, and only the middle is kept. The result equals resampling the endlessly
/// repeated stream, so the seam has no click from the filter seeing silence past the ends.
/// (The context is a whole number of the rates' common period, so the middle starts on an exact
/// output frame.)
///
/// `load` allocates: the whole decoded file (interleaved, at the source rate and the work channel count,
/// decoded into it in place or folded block by block), chunk buffers, a converter when the rates differ,
/// and the planar `AudioBlock` it returns. The converter reads the material in place except for the
/// (at most two) chunks that cross a seam of the circular stream. Stateless: several threads may load at once, each with its own decoder.
public enum LoopMaterial {
    /// Seconds of circular context on each side: comfortably longer than the longest sinc filter.
    public static let contextSeconds = 0.25

    /// Returns the material as a planar block at the output rate and channel count, and its length.
    public static func load(decoder: AudioDecoder, outputRate: Int, outputChannels: Int,
                            isCircular: Bool, makeConverter: ConverterFactory) throws -> (audio: AudioBlock, length: Int) {
        let n = decoder.channelCount
        let w = workChannelCount(sourceChannels: n, outputChannels: outputChannels)
        let inRate = decoder.sampleRate

        // 1. Decode everything at the source rate straight into one buffer at the work channel count (folded
        //    block by block when the counts differ); read to the end: a container's count can be off.
        let chunk = 8192
        var material = FrameBuffer(channelCount: w, capacity: Int(max(0, decoder.frameCount)) + chunk)
        defer { material.deallocate() }
        let map = n != w ? ChannelMap(inputCount: n, outputCount: w) : nil
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: map == nil ? 0 : chunk * n)
        defer { scratch.deallocate() }
        while true {
            material.reserve(chunk)
            let got: Int
            if let map {
                got = try decoder.read(into: scratch, frames: chunk)
                if got > 0 { map.apply(interleaved: scratch, frames: got, to: material.end) }
            } else {
                got = try decoder.read(into: material.end, frames: chunk)
            }
            if got == 0 { break }
            material.count += got
        }
        let inFrames = material.count
        guard inFrames > 0 else { return (AudioBlock(channelCount: outputChannels, capacity: 1), 0) }
        let work = UnsafePointer(material.base)

        let outLength = Int(StreamingSource.outputLength(inputFrames: Int64(inFrames), inputRate: inRate, outputRate: outputRate))
        let audio = AudioBlock(channelCount: outputChannels, capacity: max(outLength, 1))
        if inRate == outputRate {
            Kernels.deinterleave(work, channelCount: w, count: inFrames, into: audio)
        } else {
            // 2. Resample in chunks, reading the material circularly for loops (context frames before
            //    and after), and keep output frames [contextOut, contextOut + outLength).
            let g = gcd(inRate, outputRate)
            let unitIn = inRate / g, unitOut = outputRate / g
            let units = isCircular ? max(1, Int((contextSeconds * Double(inRate)).rounded(.up)) / unitIn + 1) : 0
            let contextIn = units * unitIn, contextOut = Int64(units * unitOut)
            let total = inFrames + 2 * contextIn
            let converter = try makeConverter(w, inRate, outputRate)
            let input = UnsafeMutablePointer<Float>.allocate(capacity: chunk * w)
            defer { input.deallocate() }
            let output = UnsafeMutablePointer<Float>.allocate(capacity: chunk * w)
            defer { output.deallocate() }
            var fed = 0                // frames of the virtual (circular) input consumed
            var produced: Int64 = 0    // output frames made so far
            var pending = 0, used = 0
            var current = UnsafePointer(input)   // the chunk being fed: inside the material, or gathered into `input`
            while true {
                if used == pending && fed < total {
                    // Next chunk of the virtual input: frame v is material[(v - contextIn) mod inFrames]. The same
                    // chunks as ever (the converter sees the same calls); a chunk that lies in one piece of the
                    // material is fed from it in place, one that crosses a seam is gathered.
                    pending = min(chunk, total - fed); used = 0
                    let first = ((fed - contextIn) % inFrames + inFrames) % inFrames
                    if first + pending <= inFrames {
                        current = work + first * w
                    } else {
                        var done = 0, f = first
                        while done < pending {
                            let run = min(pending - done, inFrames - f)
                            (input + done * w).update(from: work + f * w, count: run * w)
                            done += run; f = 0
                        }
                        current = UnsafePointer(input)
                    }
                    fed += pending
                }
                let isLast = fed == total
                let (u, made) = try converter.process(input: current + used * w, inputFrames: pending - used,
                                                      output: output, outputCapacity: chunk, endOfInput: isLast)
                used += u
                // Keep the part of this output that falls in [contextOut, contextOut + outLength).
                let lo = max(produced, contextOut), hi = min(produced + Int64(made), contextOut + Int64(outLength))
                if hi > lo {
                    Kernels.deinterleave(output + Int(lo - produced) * w, channelCount: w,
                                         count: Int(hi - lo), into: audio, offset: Int(lo - contextOut))
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

    /// Interleaved frames in one growing allocation (doubling when full), freed by `deallocate`.
    struct FrameBuffer {
        let channelCount: Int
        private(set) var base: UnsafeMutablePointer<Float>
        private(set) var capacity: Int
        var count = 0

        init(channelCount: Int, capacity: Int) {
            self.channelCount = channelCount
            self.capacity = max(capacity, 1)
            base = .allocate(capacity: self.capacity * channelCount)
        }

        /// Where the next frame goes.
        var end: UnsafeMutablePointer<Float> { base + count * channelCount }

        /// Makes room for `frames` more frames.
        mutating func reserve(_ frames: Int) {
            guard count + frames > capacity else { return }
            let bigger = max(2 * capacity, count + frames)
            let moved = UnsafeMutablePointer<Float>.allocate(capacity: bigger * channelCount)
            moved.update(from: base, count: count * channelCount)
            base.deallocate()
            base = moved; capacity = bigger
        }

        func deallocate() { base.deallocate() }
    }
}
