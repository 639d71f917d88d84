import CEBUR128
import MixDSP

/// What a loudness meter reports of a whole programme, per EBU R128 / ITU-R BS.1770-4.
/// A value of six `Double`s; allocates nothing. `Sendable`, safe to share.
public struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated (gated) loudness in LUFS; -infinity for silence or audio too short to gate (under 400 ms).
    public var integrated: Double
    /// Loudness range (EBU Tech 3342) in LU; 0 when there is too little to measure.
    public var range: Double
    /// True peak in dBTP (4x oversampled, BS.1770-4 annex 2, as libebur128 does it); -infinity for silence.
    public var truePeak: Double
    /// Sample peak in dBFS; -infinity for silence.
    public var samplePeak: Double
    /// The loudest momentary (400 ms) and short-term (3 s) loudness, in LUFS, taken every 100 ms;
    /// -infinity when the audio is shorter than the window.
    public var momentaryMax: Double
    public var shortTermMax: Double

    /// Nothing measured: every level -infinity, the range 0.
    public static let unmeasured = LoudnessMeasurement(integrated: -.infinity, range: 0, truePeak: -.infinity,
                                                       samplePeak: -.infinity, momentaryMax: -.infinity, shortTermMax: -.infinity)

    public init(integrated: Double, range: Double, truePeak: Double, samplePeak: Double,
                momentaryMax: Double, shortTermMax: Double) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
        self.samplePeak = samplePeak
        self.momentaryMax = momentaryMax
        self.shortTermMax = shortTermMax
    }
}

/// Measures loudness with libebur128 (EBU R128 / ITU-R BS.1770-4): integrated loudness, loudness range,
/// true and sample peak, and the momentary and short-term maxima.
///
/// Channels are weighted as BS.1770 says for their position: the first two are left and right, the third
/// centre, the fourth unused (LFE), the fifth and sixth the surrounds; a mono signal is one channel, as
/// played from one loudspeaker (libebur128's default).
///
/// Layout: an opaque libebur128 state in histogram mode (its memory does not grow with the programme's
/// length: 8 hours take what 8 seconds take), a scratch buffer for interleaving planar blocks, and the
/// running maxima. `init` allocates; `add` allocates nothing. Not thread-safe: one thread at a time;
/// separate meters may run on separate threads.
public final class LoudnessMeter {
    public let channelCount: Int
    public let sampleRate: Int
    private let state: UnsafeMutablePointer<ebur128_state>
    /// Frames between two readings of the momentary and short-term loudness: 100 ms, as EBU Tech 3341 asks.
    private let hop: Int
    private var sinceReading = 0
    private var momentaryMax = -Double.infinity
    private var shortTermMax = -Double.infinity
    private let scratch: UnsafeMutablePointer<Float>
    private static let scratchFrames = 4096

    /// Calls `ebur128_init` with integrated loudness, range, sample and true peak, in histogram mode.
    /// `truePeak: false` leaves out the 4x oversampling (about three times faster) and reports the true
    /// peak as the sample peak.
    public init(channelCount: Int, sampleRate: Int, truePeak: Bool = true) throws {
        guard (1...64).contains(channelCount), (8...768_000).contains(sampleRate) else {
            throw AudioIOError(path: "", function: "ebur128_init",
                               reason: "\(channelCount) channels at \(sampleRate) Hz cannot be measured",
                               operation: "create a loudness meter")
        }
        let peakMode = truePeak ? EBUR128_MODE_TRUE_PEAK.rawValue : EBUR128_MODE_SAMPLE_PEAK.rawValue
        let mode = EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | peakMode | EBUR128_MODE_HISTOGRAM.rawValue
        guard let state = ebur128_init(UInt32(channelCount), UInt(sampleRate), Int32(mode)) else {
            throw AudioIOError(path: "", function: "ebur128_init", reason: "out of memory",
                               operation: "create a loudness meter")
        }
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.state = state
        hop = max(1, sampleRate / 10)
        self.isTruePeak = truePeak
        scratch = .allocate(capacity: Self.scratchFrames * channelCount)
    }

    private let isTruePeak: Bool

    /// Calls `ebur128_destroy`.
    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
        scratch.deallocate()
    }

    /// Adds interleaved frames (`ebur128_add_frames_float`), reading the momentary and short-term
    /// loudness at every 100 ms boundary.
    public func add(interleaved: UnsafePointer<Float>, frames: Int) throws {
        var done = 0
        while done < frames {
            let run = min(frames - done, hop - sinceReading)
            let code = ebur128_add_frames_float(state, interleaved + done * channelCount, run)
            guard code == EBUR128_SUCCESS.rawValue else {
                throw AudioIOError(path: "", function: "ebur128_add_frames_float", reason: "error \(code)",
                                   operation: "measure loudness")
            }
            done += run
            sinceReading += run
            if sinceReading == hop {
                sinceReading = 0
                var value = 0.0
                if ebur128_loudness_momentary(state, &value) == EBUR128_SUCCESS.rawValue { momentaryMax = max(momentaryMax, value) }
                if ebur128_loudness_shortterm(state, &value) == EBUR128_SUCCESS.rawValue { shortTermMax = max(shortTermMax, value) }
            }
        }
    }

    /// Adds frames `[offset, offset + count)` of a planar block, interleaving them through a scratch buffer.
    public func add(_ block: AudioBlock, offset: Int, count: Int) throws {
        precondition(block.channelCount == channelCount, "the block's channels must match the meter's")
        var done = 0
        while done < count {
            let run = min(count - done, Self.scratchFrames)
            for c in 0..<channelCount {
                let source = block.channel(c).baseAddress! + offset + done
                for i in 0..<run { scratch[i * channelCount + c] = source[i] }
            }
            try add(interleaved: scratch, frames: run)
            done += run
        }
    }

    /// What has been measured so far (`ebur128_loudness_global`, `_range`, `_true_peak`, `_sample_peak`).
    public var measurement: LoudnessMeasurement {
        var integrated = -Double.infinity, range = 0.0
        if ebur128_loudness_global(state, &integrated) != EBUR128_SUCCESS.rawValue || !integrated.isFinite { integrated = -.infinity }
        if ebur128_loudness_range(state, &range) != EBUR128_SUCCESS.rawValue || !range.isFinite { range = 0 }
        var truePeak = 0.0, samplePeak = 0.0
        for c in 0..<channelCount {
            var value = 0.0
            if isTruePeak, ebur128_true_peak(state, UInt32(c), &value) == EBUR128_SUCCESS.rawValue { truePeak = max(truePeak, value) }
            if ebur128_sample_peak(state, UInt32(c), &value) == EBUR128_SUCCESS.rawValue { samplePeak = max(samplePeak, value) }
        }
        if !isTruePeak { truePeak = samplePeak }
        return LoudnessMeasurement(integrated: integrated, range: range, truePeak: decibels(fromGain: truePeak),
                                   samplePeak: decibels(fromGain: samplePeak),
                                   momentaryMax: momentaryMax.isFinite ? momentaryMax : -.infinity,
                                   shortTermMax: shortTermMax.isFinite ? shortTermMax : -.infinity)
    }

    /// Measures a whole file: decodes it (`AudioFile.open` for analysis: the fastest decoder) and adds every frame.
    public static func measure(path: String, truePeak: Bool = true) throws -> LoudnessMeasurement {
        let reader = try AudioFile.open(path: path, purpose: .analysis)
        let meter: LoudnessMeter
        do {
            meter = try LoudnessMeter(channelCount: reader.channelCount, sampleRate: reader.sampleRate, truePeak: truePeak)
        } catch var error as AudioIOError {
            error.path = path
            throw error
        }
        let frames = 8192
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: frames * reader.channelCount)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer, frames: frames)
            if count == 0 { break }
            try meter.add(interleaved: buffer, frames: count)
        }
        return meter.measurement
    }
}
