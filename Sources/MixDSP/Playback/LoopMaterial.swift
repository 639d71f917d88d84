/// Decodes a whole file and resamples it to the output rate, once, for looping or reuse.
///
/// For a loop the resampler sees the material circularly: the loop's own tail before it and its
/// own head after it, and only the middle is kept. The result equals resampling the endlessly
/// repeated stream, so the seam has no click from the filter seeing silence past the ends.
/// (The context is a whole number of the rates' common period, so the middle starts on an exact
/// output frame.)
///
/// A file at the output rate is decoded block by block straight into the planar block (`loadAtRate`, when
/// the container's count is exact). A loop at another rate is decoded straight into the converter's chunks,
/// without holding the decoded file: its tail is read first after a seek, its head is kept as it passes
/// (`loadStreaming`); it is checked to give what the in-memory way gives (the tail read after the seek must
/// equal the stream's own last frames, the length the container's count), else `load` falls back to that way,
/// which allocates the whole decoded file (interleaved, at the source rate and the work channel count,
/// decoded into it in place or folded block by block) and lets the converter read it in place except for
/// the chunks that cross a seam. All allocate chunk buffers, a converter when the rates differ, and the
/// planar `AudioBlock` returned. Stateless: several threads may load at once, each with its own decoder.
public enum LoopMaterial {
    /// Seconds of circular context on each side: comfortably longer than the longest sinc filter.
    public static let contextSeconds = 0.25

    /// Returns the material as a planar block at the output rate and channel count, and its length.
    public static func load(decoder: AudioDecoder, outputRate: Int, outputChannels: Int,
                            isCircular: Bool, makeConverter: ConverterFactory) throws -> (audio: AudioBlock, length: Int) {
        let n = decoder.channelCount
        let w = workChannelCount(sourceChannels: n, outputChannels: outputChannels)
        let inRate = decoder.sampleRate
        if isCircular && inRate != outputRate,
           let streamed = try loadStreaming(decoder: decoder, workChannels: w, outputRate: outputRate,
                                            outputChannels: outputChannels, makeConverter: makeConverter) {
            return streamed
        }
        if inRate == outputRate, let copied = try loadAtRate(decoder: decoder, workChannels: w, outputChannels: outputChannels) {
            return copied
        }

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
            //    and after). A chunk that lies in one piece of the material is fed from it in place, one that
            //    crosses a seam is gathered.
            let (contextIn, contextOut) = context(inputRate: inRate, outputRate: outputRate, isCircular: isCircular)
            let converter = try makeConverter(w, inRate, outputRate)
            try resample(converter, channels: w, virtualFrames: inFrames + 2 * contextIn, contextOut: contextOut,
                         length: outLength, into: audio) { fed, pending, input in
                // Frame v of the virtual input is material[(v - contextIn) mod inFrames].
                let first = ((fed - contextIn) % inFrames + inFrames) % inFrames
                if first + pending <= inFrames { return work + first * w }
                var done = 0, f = first
                while done < pending {
                    let run = min(pending - done, inFrames - f)
                    (input + done * w).update(from: work + f * w, count: run * w)
                    done += run; f = 0
                }
                return UnsafePointer(input)
            }
        }
        if w == 1 && outputChannels == 2 {
            Kernels.copy(audio.channel(0).baseAddress!, to: audio.channel(1).baseAddress!, count: outLength)
        }
        return (audio, outLength)
    }

    /// Frames of circular context at the input and output rates: a whole number of the rates' common period.
    static func context(inputRate: Int, outputRate: Int, isCircular: Bool) -> (input: Int, output: Int64) {
        let g = gcd(inputRate, outputRate)
        let unitIn = inputRate / g, unitOut = outputRate / g
        let units = isCircular ? max(1, Int((contextSeconds * Double(inputRate)).rounded(.up)) / unitIn + 1) : 0
        return (units * unitIn, Int64(units * unitOut))
    }

    static let chunkFrames = 8192
    /// Frames decoded and dropped after the seek to a loop's tail.
    static let prerollFrames = 65_536

    /// Feeds `virtualFrames` frames to the converter in `chunkFrames` chunks (always the same chunks and calls,
    /// so the output does not depend on where a chunk's frames come from) and keeps output frames
    /// [contextOut, contextOut + length) in `audio`. `chunk(first, count, buffer)` returns the chunk's frames:
    /// a pointer into the caller's material, or `buffer` (room for `chunkFrames` frames) filled.
    static func resample(_ converter: SampleRateConverter, channels w: Int, virtualFrames total: Int, contextOut: Int64,
                         length outLength: Int, into audio: AudioBlock,
                         chunk: (Int, Int, UnsafeMutablePointer<Float>) throws -> UnsafePointer<Float>) throws {
        let size = chunkFrames
        let input = UnsafeMutablePointer<Float>.allocate(capacity: size * w)
        defer { input.deallocate() }
        let output = UnsafeMutablePointer<Float>.allocate(capacity: size * w)
        defer { output.deallocate() }
        var fed = 0                // frames of the virtual (circular) input consumed
        var produced: Int64 = 0    // output frames made so far
        var pending = 0, used = 0
        var current = UnsafePointer(input)
        while true {
            if used == pending && fed < total {
                pending = min(size, total - fed); used = 0
                current = try chunk(fed, pending, input)
                fed += pending
            }
            let isLast = fed == total
            let (u, made) = try converter.process(input: current + used * w, inputFrames: pending - used,
                                                  output: output, outputCapacity: size, endOfInput: isLast)
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

    /// The circular load without holding the decoded file: reads the loop's tail after a seek, then decodes the
    /// file once from its start straight into the converter's chunks (keeping its head for the end). Returns nil,
    /// with the decoder back at its start, when that cannot give the in-memory result exactly: a loop too short,
    /// a decoder that cannot seek, a tail read after the seek that differs from the stream's own last frames,
    /// or a stream longer or shorter than the container's count. Holds the tail and head (the context, twice)
    /// and chunk buffers besides the output.
    static func loadStreaming(decoder: AudioDecoder, workChannels w: Int, outputRate: Int, outputChannels: Int,
                              makeConverter: ConverterFactory) throws -> (audio: AudioBlock, length: Int)? {
        let n = decoder.channelCount, inRate = decoder.sampleRate
        let inFrames = Int(decoder.frameCount)
        let (contextIn, contextOut) = context(inputRate: inRate, outputRate: outputRate, isCircular: true)
        guard inFrames > 2 * contextIn + chunkFrames else { return nil }
        let map = n != w ? ChannelMap(inputCount: n, outputCount: w) : nil
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * n)
        defer { scratch.deallocate() }
        /// Reads up to `frames` frames at the work channel count into `target`; fewer only at the end.
        func read(_ frames: Int, into target: UnsafeMutablePointer<Float>) throws -> Int {
            var done = 0
            while done < frames {
                let want = min(frames - done, chunkFrames)
                let got: Int
                if let map {
                    got = try decoder.read(into: scratch, frames: want)
                    if got > 0 { map.apply(interleaved: scratch, frames: got, to: target + done * w) }
                } else {
                    got = try decoder.read(into: target + done * w, frames: want)
                }
                if got == 0 { break }
                done += got
            }
            return done
        }
        let tail = UnsafeMutablePointer<Float>.allocate(capacity: contextIn * w)
        defer { tail.deallocate() }
        let head = UnsafeMutablePointer<Float>.allocate(capacity: contextIn * w)
        defer { head.deallocate() }
        do {
            // Seek well before the tail and decode on into it: a lossy decoder's first frames after a seek can
            // differ from a decode from the start (libsndfile's Vorbis seek, measured on the peers' loops: wrong
            // from a seek 16k frames before the end of one file, right from 64k before every one of them).
            let preroll = min(inFrames - contextIn, prerollFrames)
            try decoder.seek(to: Int64(inFrames - contextIn - preroll))
            var skipped = 0
            while skipped < preroll {
                let got = try read(min(preroll - skipped, contextIn), into: tail)
                if got == 0 { break }
                skipped += got
            }
            guard skipped == preroll, try read(contextIn, into: tail) == contextIn else { try decoder.seek(to: 0); return nil }
            try decoder.seek(to: 0)
        } catch {
            try decoder.seek(to: 0)
            return nil
        }

        struct Mismatch: Error {}
        let outLength = Int(StreamingSource.outputLength(inputFrames: Int64(inFrames), inputRate: inRate, outputRate: outputRate))
        let audio = AudioBlock(channelCount: outputChannels, capacity: max(outLength, 1))
        let converter = try makeConverter(w, inRate, outputRate)
        let tailStart = inFrames - contextIn
        do {
            try resample(converter, channels: w, virtualFrames: inFrames + 2 * contextIn, contextOut: contextOut,
                         length: outLength, into: audio) { fed, pending, input in
                // Virtual frames: [0, contextIn) the tail, then the stream, then the head.
                var v = fed
                let end = fed + pending
                if v < contextIn {
                    let run = min(end, contextIn) - v
                    (input).update(from: tail + v * w, count: run * w)
                    v += run
                }
                if v < end && v < contextIn + inFrames {
                    let first = v - contextIn, run = min(end, contextIn + inFrames) - v
                    let target = input + (v - fed) * w
                    guard try read(run, into: target) == run else { throw Mismatch() }
                    // Keep the head; check the stream's last frames against the tail read after the seek.
                    if first < contextIn {
                        let k = min(run, contextIn - first)
                        (head + first * w).update(from: target, count: k * w)
                    }
                    let lo = max(first, tailStart), hi = first + run
                    if hi > lo {
                        for i in 0..<((hi - lo) * w) where target[(lo - first) * w + i] != tail[(lo - tailStart) * w + i] {
                            throw Mismatch()
                        }
                    }
                    if first + run == inFrames, try decoder.read(into: scratch, frames: 1) != 0 { throw Mismatch() }
                    v += run
                }
                if v < end {
                    let first = v - contextIn - inFrames, run = end - v
                    (input + (v - fed) * w).update(from: head + first * w, count: run * w)
                }
                return UnsafePointer(input)
            }
        } catch is Mismatch {
            try decoder.seek(to: 0)
            return nil
        }
        if w == 1 && outputChannels == 2 {
            Kernels.copy(audio.channel(0).baseAddress!, to: audio.channel(1).baseAddress!, count: outLength)
        }
        return (audio, outLength)
    }

    /// A file already at the output rate, decoded block by block straight into the planar block: nil, with the
    /// decoder back at its start, when the stream is not exactly the container's count long.
    static func loadAtRate(decoder: AudioDecoder, workChannels w: Int, outputChannels: Int) throws -> (audio: AudioBlock, length: Int)? {
        let n = decoder.channelCount, frames = Int(decoder.frameCount)
        guard frames > 0 else { return nil }
        let map = n != w ? ChannelMap(inputCount: n, outputCount: w) : nil
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * n)
        defer { scratch.deallocate() }
        let folded = map == nil ? scratch : UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * w)
        defer { if map != nil { folded.deallocate() } }
        let audio = AudioBlock(channelCount: outputChannels, capacity: frames)
        var done = 0
        while true {
            let got = try decoder.read(into: scratch, frames: min(chunkFrames, max(frames - done, 1)))
            if got == 0 { break }
            guard done + got <= frames else { try decoder.seek(to: 0); return nil }
            map?.apply(interleaved: scratch, frames: got, to: folded)
            Kernels.deinterleave(folded, channelCount: w, count: got, into: audio, offset: done)
            done += got
        }
        guard done == frames else { try decoder.seek(to: 0); return nil }
        if w == 1 && outputChannels == 2 {
            Kernels.copy(audio.channel(0).baseAddress!, to: audio.channel(1).baseAddress!, count: frames)
        }
        return (audio, frames)
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
