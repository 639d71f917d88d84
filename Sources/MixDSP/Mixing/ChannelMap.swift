/// How a source's channels reach the output's one or two channels.
///
/// - 1 channel: to both sides, at unity.
/// - 2 channels: left to left, right to right (to mono: the average of the two).
/// - 3 or more: folded to stereo with ITU-R BS.775 downmix coefficients, in WAV channel order
///   (L R C LFE Ls Rs ...): the centre (channel 3) goes to both sides at -3 dB, the LFE (channel 4
///   of 6 or more) is dropped, further channels alternate left, right at -3 dB. Quad (4 channels)
///   is L R Ls Rs. To mono: the stereo fold, averaged.
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

    static func stereoFold(_ n: Int) -> [[Float]] {
        if n == 1 { return [[1], [1]] }
        var left = [Float](repeating: 0, count: n), right = left
        left[0] = 1; right[1] = 1
        if n == 4 {                                   // quad: L R Ls Rs
            left[2] = minus3dB; right[3] = minus3dB
            return [left, right]
        }
        if n >= 3 { left[2] = minus3dB; right[2] = minus3dB }   // centre to both sides
        var toLeft = true
        for k in 3..<max(n, 3) {
            if k == 3 && n >= 6 { continue }          // LFE dropped
            if toLeft { left[k] = minus3dB } else { right[k] = minus3dB }
            toLeft.toggle()
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
