import MixIO

/// One output's own rate, channels and loudness, converted from the render's (`OutputEncoding.sampleRate`,
/// `.channelCount`, `.loudnessLUFS`):
/// a 22.05 kHz mono stream beside the 48 kHz stereo download, from the same mix. The file is a conversion of the mix,
/// as a converter would make it from the render's own file, not the mix rendered at that rate (a generator at another
/// rate makes other samples): the channels are mixed first (stereo to mono: the mean of the two, so nothing clips;
/// mono to stereo: the one channel in both), then the rate is converted by libsoxr's very-high-quality recipe
/// (`SoxrResampler`, `.soxrVHQ`: linear phase, delay-compensated, so the file starts where the render does). A quieter
/// loudness of its own is a gain (`gainDb`, never above 0) on the render's output, after its limiter.
///
/// A value; `Sendable`. Its frame counts are exact: a render of `n` frames gives `outputFrames(n)`. A value of the plan's
/// (the cache key holds it); the encoder that makes it is the output's (`encoder(feeding:frameCount:blockFrames:)`).
public struct OutputConversion: Sendable, Equatable, Hashable {
    public var inputRate: Int
    public var inputChannels: Int
    public var outputRate: Int
    public var outputChannels: Int
    /// The gain after the render's limiter, in dB (0 or less): a quieter loudness target of the file's own.
    public var gainDb: Double = 0

    public init(fromRate inputRate: Int, channels inputChannels: Int, toRate outputRate: Int, channels outputChannels: Int) {
        self.inputRate = inputRate
        self.inputChannels = inputChannels
        self.outputRate = outputRate
        self.outputChannels = outputChannels
    }

    /// Whether it changes nothing.
    public var isIdentity: Bool { inputRate == outputRate && inputChannels == outputChannels && gainDb == 0 }

    /// The frames `frames` of the render become: `frames * outputRate / inputRate`, rounded to the nearest.
    public func outputFrames(_ frames: Int64) -> Int64 {
        (frames * Int64(outputRate) + Int64(inputRate) / 2) / Int64(inputRate)
    }

    /// `mark` at the output's rate (its frames scaled, rounded to the nearest).
    public func converted(_ mark: ChapterMark) -> ChapterMark {
        var moved = mark
        moved.frame = outputFrames(mark.frame)
        moved.end = mark.end.map(outputFrames)
        moved.sampleRate = outputRate
        return moved
    }
}
