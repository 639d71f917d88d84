import CEBUR128
import MixDSP

/// What a loudness meter reports of a whole programme, per EBU R128 / ITU-R BS.1770-4.
/// A value of six `Double`s; allocates nothing. `Sendable`, safe to share.
public struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated (gated) loudness in LUFS; -infinity for silence or audio too short to gate (under 400 ms).
    public var integrated: Double
    /// Loudness range (EBU Tech 3342, short-term loudness every 100 ms) in LU; 0 when there is too little to measure.
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

/// Measures loudness with libebur128 (EBU R128 / ITU-R BS.1770-4): integrated loudness, true and sample peak, the
/// momentary and short-term maxima; and the loudness range (EBU Tech 3342) from libebur128's short-term loudness
/// read every 100 ms (`LoudnessRange`: libebur128's own range takes one value a second, where Tech 3342 asks for ten).
///
/// Channels are weighted as BS.1770 says for where `ChannelLayout` places them (the rule mixrender's downmix
/// follows: 5.1 is L R C LFE Ls Rs, 7.1 L R C LFE Lb Rb Ls Rs, ...); a mono signal is one channel, as played from
/// one loudspeaker. A signal below 44.1 kHz is measured resampled to 48 kHz (`LoudnessResampler`), where BS.1770's
/// filters are its own and the true peak is read at 192 kHz; its sample peak is its own samples'.
///
/// Layout: an opaque libebur128 state in histogram mode (its memory does not grow with the programme's length:
/// 8 hours take what 8 seconds take), a `LoudnessRange` histogram, a scratch buffer for interleaving planar
/// blocks, a resampler below 44.1 kHz, and the running maxima. `init` allocates; `add` allocates nothing. Not
/// thread-safe: one thread at a time; separate meters may run on separate threads.
public final class LoudnessMeter {
    public let channelCount: Int
    /// The signal's rate, and the rate it is measured at (48 kHz below 44.1 kHz, else the same).
    public let sampleRate: Int
    public let measuringRate: Int
    private let state: UnsafeMutablePointer<ebur128_state>
    private let resampler: LoudnessResampler?
    /// Frames between two readings of the momentary loudness, 10 ms, and of the short-term loudness, ten of those
    /// (100 ms, as EBU Tech 3342 asks). Tech 3341's case 13 (400 ms bursts 20 ms apart) needs the momentary maximum
    /// read that finely: read every 100 ms it misses a burst's peak by up to 0.58 LU.
    private let readingFrames: Int
    private var sinceReading = 0
    private var readings = 0
    private var momentaryMax = -Double.infinity
    private var shortTermMax = -Double.infinity
    private var range = LoudnessRange()
    /// The input's own sample peak, when it is resampled (libebur128 sees only the resampled signal).
    private var inputSamplePeak: Float = 0
    private let scratch: UnsafeMutablePointer<Float>
    private static let scratchFrames = 4096
    private let isTruePeak: Bool

    /// Calls `ebur128_init` with integrated and short-term loudness, sample and true peak, in histogram mode, and
    /// `ebur128_set_channel` for each channel's weight. `truePeak: false` leaves out the 4x oversampling (about three
    /// times faster) and reports the true peak as the sample peak.
    public init(channelCount: Int, sampleRate: Int, truePeak: Bool = true) throws {
        guard (1...64).contains(channelCount), (8...768_000).contains(sampleRate) else {
            throw AudioIOError(path: "", function: "ebur128_init",
                               reason: "\(channelCount) channels at \(sampleRate) Hz cannot be measured",
                               operation: "create a loudness meter")
        }
        let measuringRate = LoudnessResampler.measuringRate(for: sampleRate)
        let peakMode = truePeak ? EBUR128_MODE_TRUE_PEAK.rawValue : EBUR128_MODE_SAMPLE_PEAK.rawValue
        let mode = EBUR128_MODE_I.rawValue | EBUR128_MODE_S.rawValue | peakMode | EBUR128_MODE_HISTOGRAM.rawValue
        guard let state = ebur128_init(UInt32(channelCount), UInt(measuringRate), Int32(mode)) else {
            throw AudioIOError(path: "", function: "ebur128_init", reason: "out of memory",
                               operation: "create a loudness meter")
        }
        // Each channel weighted for where ChannelLayout places it: libebur128 weighs LEFT and CENTER 1,
        // LEFT_SURROUND 1.41, UNUSED 0.
        if channelCount > 1 {
            for (c, weight) in ChannelLayout.loudnessWeights(channelCount: channelCount).enumerated() {
                let type = weight == 0 ? EBUR128_UNUSED : weight > 1 ? EBUR128_LEFT_SURROUND : EBUR128_CENTER
                _ = ebur128_set_channel(state, UInt32(c), Int32(type.rawValue))
            }
        }
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.measuringRate = measuringRate
        self.state = state
        readingFrames = max(1, measuringRate / 100)
        isTruePeak = truePeak
        do {
            resampler = measuringRate == sampleRate ? nil : try LoudnessResampler(channelCount: channelCount, inputRate: sampleRate)
        } catch {
            var pointer: UnsafeMutablePointer<ebur128_state>? = state
            ebur128_destroy(&pointer)
            throw error
        }
        scratch = .allocate(capacity: Self.scratchFrames * channelCount)
    }

    /// Calls `ebur128_destroy`.
    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
        scratch.deallocate()
    }

    /// Adds interleaved frames at the signal's rate (resampled to the measuring rate first, when they differ).
    public func add(interleaved: UnsafePointer<Float>, frames: Int) throws {
        guard let resampler else { return try measure(interleaved, frames: frames) }
        for i in 0..<frames * channelCount { inputSamplePeak = max(inputSamplePeak, abs(interleaved[i])) }
        try resampler.process(interleaved, frames: frames) { try measure($0, frames: $1) }
    }

    /// Ends the signal: a resampler's last frames are measured. `measurement` calls it; adding after it is an error.
    public func finish() throws {
        try resampler?.finish { try measure($0, frames: $1) }
    }

    /// Adds frames at the measuring rate (`ebur128_add_frames_float`), reading the momentary loudness every 10 ms
    /// and the short-term loudness every 100 ms; the range takes the short-term values once 3 s are in.
    private func measure(_ interleaved: UnsafePointer<Float>, frames: Int) throws {
        var done = 0
        while done < frames {
            let run = min(frames - done, readingFrames - sinceReading)
            let code = ebur128_add_frames_float(state, interleaved + done * channelCount, run)
            guard code == EBUR128_SUCCESS.rawValue else {
                throw AudioIOError(path: "", function: "ebur128_add_frames_float", reason: "error \(code)",
                                   operation: "measure loudness")
            }
            done += run
            sinceReading += run
            if sinceReading == readingFrames {
                sinceReading = 0
                readings += 1
                var value = 0.0
                // From the start, as libebur128 reads them: a sound shorter than the window reads as that window.
                if ebur128_loudness_momentary(state, &value) == EBUR128_SUCCESS.rawValue {
                    momentaryMax = max(momentaryMax, value)
                }
                if readings % 10 == 0, ebur128_loudness_shortterm(state, &value) == EBUR128_SUCCESS.rawValue {
                    shortTermMax = max(shortTermMax, value)
                    if readings >= 300 { range.add(lufs: value) }   // a whole 3 s window behind it
                }
            }
        }
    }

    /// The loudest momentary and short-term loudness so far, in LUFS, without ending the signal (a meter that
    /// follows a live signal shows them as it goes); a resampled signal's last few milliseconds are not in yet.
    public var maximaSoFar: (momentary: Double, shortTerm: Double) { (momentaryMax, shortTermMax) }

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

    /// What has been measured (`ebur128_loudness_global`, `_true_peak`, `_sample_peak`, and the range); ends the
    /// signal (`finish`) first.
    public var measurement: LoudnessMeasurement {
        try? finish()
        var integrated = -Double.infinity
        if ebur128_loudness_global(state, &integrated) != EBUR128_SUCCESS.rawValue || !integrated.isFinite { integrated = -.infinity }
        var truePeak = 0.0, samplePeak = 0.0
        for c in 0..<channelCount {
            var value = 0.0
            if isTruePeak, ebur128_true_peak(state, UInt32(c), &value) == EBUR128_SUCCESS.rawValue { truePeak = max(truePeak, value) }
            if ebur128_sample_peak(state, UInt32(c), &value) == EBUR128_SUCCESS.rawValue { samplePeak = max(samplePeak, value) }
        }
        if resampler != nil { samplePeak = Double(inputSamplePeak) }
        if !isTruePeak { truePeak = samplePeak }
        truePeak = max(truePeak, samplePeak)
        return LoudnessMeasurement(integrated: integrated, range: range.value, truePeak: decibels(fromGain: truePeak),
                                   samplePeak: decibels(fromGain: samplePeak),
                                   momentaryMax: momentaryMax.isFinite ? momentaryMax : -.infinity,
                                   shortTermMax: shortTermMax.isFinite ? shortTermMax : -.infinity)
    }

    /// Measures a whole file: decodes it (`AudioFile.open` for analysis: the fastest decoder) and adds every frame.
    public static func measure(path: String, truePeak: Bool = true) throws -> LoudnessMeasurement {
        let reader = try AudioFile.open(path: path, purpose: .wholeFile)
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
