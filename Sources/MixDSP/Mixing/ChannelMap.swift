/// How a source's channels reach the output's one or two channels.
///
/// - 1 channel: to both sides, at unity.
/// - 2 channels: left to left, right to right (to mono: the average of the two).
/// - 3 or more: laid out by `ChannelLayout` (WAV order by count: 3.0, quad, 5.0, 5.1, 6.1, 7.1), the rule the
///   loudness meters follow too, and folded to stereo with ITU-R BS.775 downmix coefficients: the centre and
///   back centre to both sides at -3 dB, every other channel to its side at -3 dB, the LFE dropped.
///   To mono: the stereo fold, averaged.
///
/// A value: two counts and the coefficient matrix as nested arrays, allocated in `init`; `apply`
/// allocates nothing. `Sendable`, safe to share.
public struct ChannelMap: Sendable, Equatable {
    public let inputCount: Int
    public let outputCount: Int
    /// `coefficients[out][in]`
    public let coefficients: [[Float]]

    public init(inputCount: Int, outputCount: Int) {
        precondition(inputCount > 0 && (outputCount == 1 || outputCount == 2))
        self.inputCount = inputCount
        self.outputCount = outputCount
        let stereo = ChannelMap.stereoFold(inputCount)
        if outputCount == 2 {
            coefficients = stereo
        } else if inputCount == 1 {
            coefficients = [[1]]
        } else {
            coefficients = [zip(stereo[0], stereo[1]).map { ($0 + $1) / 2 }]
        }
    }

    static let minus3dB: Float = 0.70710678

    /// The fold of `n` channels laid out by `ChannelLayout` to stereo: the front left and right at unity, a channel
    /// on one side to that side at -3 dB, one in the middle (centre, back centre) to both at -3 dB, the LFE dropped.
    static func stereoFold(_ n: Int) -> [[Float]] {
        if n == 1 { return [[1], [1]] }
        var left = [Float](repeating: 0, count: n), right = left
        for (k, speaker) in ChannelLayout.speakers(channelCount: n).enumerated() where !speaker.isLFE {
            switch speaker {
            case .left: left[k] = 1
            case .right: right[k] = 1
            default:
                if speaker.azimuth > 0 && speaker.azimuth < 180 { left[k] = minus3dB }
                else if speaker.azimuth < 0 { right[k] = minus3dB }
                else { left[k] = minus3dB; right[k] = minus3dB }
            }
        }
        return [left, right]
    }

    /// Maps `frames` interleaved input frames to `frames` interleaved output frames.
    public func apply(interleaved input: UnsafePointer<Float>, frames: Int, to output: UnsafeMutablePointer<Float>) {
        let n = inputCount, m = outputCount
        if n == 1 && m == 1 { Kernels.copy(input, to: output, count: frames); return }
        for i in 0..<frames {
            for o in 0..<m {
                var s: Float = 0
                for k in 0..<n { s += coefficients[o][k] * input[i * n + k] }
                output[i * m + o] = s
            }
        }
    }
}
