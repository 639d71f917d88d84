/// Makes a sample-rate converter for (channels, input rate, output rate); MixIO supplies libsamplerate's.
public typealias ConverterFactory = (_ channelCount: Int, _ inputRate: Int, _ outputRate: Int) throws -> SampleRateConverter

/// The channel count a source is resampled in: mono stays mono (duplicated after resampling,
/// which halves the work), anything else is folded to the output's channel count first.
@inlinable
public func workChannelCount(sourceChannels: Int, outputChannels: Int) -> Int {
    sourceChannels == 1 ? 1 : outputChannels
}

/// Decoder -> channel fold -> resampler, pulled in order: interleaved frames at the output rate,
/// in `workChannels` channels. All buffers are allocated in `init`.
///
/// Layout: the decoder, an optional converter and channel fold, and two interleaved buffers of
/// `chunkFrames` frames: decoded (source channels) and folded (work channels; the same buffer when
/// there is no fold). `pull` and `rewind` allocate nothing. Not thread-safe: one thread at a time.
public final class DecodePipeline {
    public let decoder: AudioDecoder
    public let workChannels: Int
    private let converter: SampleRateConverter?
    private let fold: ChannelMap?
    private let chunk: Int
    private let decoded: UnsafeMutablePointer<Float>
    private let mapped: UnsafeMutablePointer<Float>
    private var pendingStart = 0, pendingEnd = 0
    private var isInputFinished = false
    private var isDrained = false

    public init(decoder: AudioDecoder, outputRate: Int, outputChannels: Int,
                makeConverter: ConverterFactory, chunkFrames: Int = 4096) throws {
        self.decoder = decoder
        let w = workChannelCount(sourceChannels: decoder.channelCount, outputChannels: outputChannels)
        self.workChannels = w
        self.fold = decoder.channelCount == w ? nil : ChannelMap(inputCount: decoder.channelCount, outputCount: w)
        self.converter = decoder.sampleRate == outputRate ? nil : try makeConverter(w, decoder.sampleRate, outputRate)
        self.chunk = chunkFrames
        decoded = .allocate(capacity: chunkFrames * decoder.channelCount)
        mapped = fold == nil ? decoded : .allocate(capacity: chunkFrames * w)
    }

    deinit {
        if fold != nil { mapped.deallocate() }
        decoded.deallocate()
    }

    /// Starts again from the first frame.
    public func rewind() throws {
        try decoder.seek(to: 0)
        try converter?.reset()
        pendingStart = 0; pendingEnd = 0
        isInputFinished = false; isDrained = false
    }

    private func refill() throws {
        let n = try decoder.read(into: decoded, frames: chunk)
        if n == 0 { isInputFinished = true }
        fold?.apply(interleaved: decoded, frames: n, to: mapped)
        pendingStart = 0; pendingEnd = n
    }

    /// Writes up to `frames` interleaved frames into `output`; returns how many, 0 at the end.
    public func pull(into output: UnsafeMutablePointer<Float>, frames: Int) throws -> Int {
        if isDrained { return 0 }
        guard let converter else {
            // Same rate: decoded (and folded) frames go straight out.
            var done = 0
            while done < frames {
                if pendingStart == pendingEnd {
                    if isInputFinished { break }
                    try refill()
                    continue
                }
                let n = min(frames - done, pendingEnd - pendingStart)
                Kernels.copy(mapped + pendingStart * workChannels, to: output + done * workChannels, count: n * workChannels)
                pendingStart += n; done += n
            }
            if done == 0 { isDrained = true }
            return done
        }
        while true {
            if pendingStart == pendingEnd && !isInputFinished { try refill() }
            let (used, made) = try converter.process(
                input: mapped + pendingStart * workChannels, inputFrames: pendingEnd - pendingStart,
                output: output, outputCapacity: frames, endOfInput: isInputFinished)
            pendingStart += used
            if made > 0 { return made }
            if isInputFinished && pendingStart == pendingEnd { isDrained = true; return 0 }
        }
    }
}
