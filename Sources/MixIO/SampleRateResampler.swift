import CSampleRate
import MixDSP

/// A streaming sample-rate converter on interleaved `Float` frames, using libsamplerate's sinc converters
/// (`best`, `medium`, `fast`; `SoxrResampler` does the libsoxr ones, `makeSampleRateConverter` picks).
///
/// Layout: an opaque libsamplerate `SRC_STATE` (filter history) and the rates. `init` allocates it
/// (`src_new`); `process` and `reset` allocate nothing, except an error's message. Not thread-safe: one
/// thread at a time; separate resamplers share no state and may run on separate threads at once.
public final class SampleRateResampler: CheckedResampler {
    public let setup: ResamplerSetup
    private let state: OpaquePointer

    /// Creates the converter with `src_new` (`SRC_SINC_BEST_QUALITY`, `SRC_SINC_MEDIUM_QUALITY` or
    /// `SRC_SINC_FASTEST`); throws if the rates or channel count are out of libsamplerate's range.
    public init(channelCount: Int, inputRate: Int, outputRate: Int, quality: ResamplerChoice = .default) throws {
        setup = try ResamplerSetup(channelCount: channelCount, inputRate: inputRate, outputRate: outputRate, quality: quality,
                                   function: "src_new")
        let what = setup.creating
        let converter: Int
        switch quality {
        case .best: converter = SRC_SINC_BEST_QUALITY
        case .medium: converter = SRC_SINC_MEDIUM_QUALITY
        case .fast: converter = SRC_SINC_FASTEST
        case .soxrHQ, .soxrVHQ:
            throw AudioIOError(path: "", function: "src_new", reason: "'\(quality.rawValue)' is a libsoxr quality (SoxrResampler)",
                               operation: what)
        }
        var error: Int32 = 0
        guard let state = src_new(Int32(converter), Int32(channelCount), &error) else {
            throw AudioIOError(path: "", function: "src_new", reason: Self.reason(error), operation: what)
        }
        self.state = state
    }

    /// Calls `src_delete`.
    deinit { src_delete(state) }

    /// Calls `src_process` once with an `SRC_DATA`: converts as much of `input` as fits in `output`.
    /// After the last input, keep calling with `endOfInput: true` (and no input) until it produces 0 frames.
    public func process(input: UnsafePointer<Float>, inputFrames: Int,
                        output: UnsafeMutablePointer<Float>, outputCapacity: Int,
                        endOfInput: Bool) throws -> (consumed: Int, produced: Int) {
        precondition(inputFrames >= 0 && outputCapacity >= 0, "frame counts must not be negative")
        var data = SRC_DATA()
        data.data_in = input
        data.input_frames = inputFrames
        data.data_out = output
        data.output_frames = outputCapacity
        data.src_ratio = ratio
        data.end_of_input = endOfInput ? 1 : 0
        let error = src_process(state, &data)
        if error != 0 {
            throw AudioIOError(path: "", function: "src_process", reason: Self.reason(error), operation: setup.resampling)
        }
        return (Int(data.input_frames_used), Int(data.output_frames_gen))
    }

    /// Calls `src_reset`: forgets all history, as if newly made.
    public func reset() throws {
        let error = src_reset(state)
        if error != 0 {
            throw AudioIOError(path: "", function: "src_reset", reason: Self.reason(error),
                               operation: "reset the resampler")
        }
    }

    /// Calls `src_strerror`.
    private static func reason(_ error: Int32) -> String {
        ResamplerSetup.readable(src_strerror(error)) ?? "error \(error)"
    }
}

/// A converter over a C library that checked its `setup` first (`SampleRateResampler`, `SoxrResampler`): its channels,
/// rates, quality and ratio are the setup's.
public protocol CheckedResampler: SampleRateConverter {
    var setup: ResamplerSetup { get }
}

extension CheckedResampler {
    public var channelCount: Int { setup.channelCount }
    public var inputRate: Int { setup.inputRate }
    public var outputRate: Int { setup.outputRate }
    public var quality: ResamplerChoice { setup.quality }
    /// `outputRate / inputRate`.
    public var ratio: Double { setup.ratio }
}

/// What both converters (`SampleRateResampler`, `SoxrResampler`) check and keep before they make their C state: the
/// channels, the rates, the quality and the ratio, and the words of their errors. A value; `Sendable`.
public struct ResamplerSetup: Sendable, Equatable {
    public let channelCount: Int
    public let inputRate: Int
    public let outputRate: Int
    public let quality: ResamplerChoice
    /// `outputRate / inputRate`.
    public let ratio: Double

    /// Checks that the rates are positive, the channels 1...128 and the ratio within 1/256...256 (libsamplerate's
    /// range, which the libsoxr converter keeps too); otherwise an error naming `function`.
    init(channelCount: Int, inputRate: Int, outputRate: Int, quality: ResamplerChoice, function: String) throws {
        self.channelCount = channelCount
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.quality = quality
        let what = "create a \(quality.rawValue) resampler from \(inputRate) Hz to \(outputRate) Hz"
        guard inputRate > 0, outputRate > 0, channelCount > 0, channelCount <= 128 else {
            throw AudioIOError(path: "", function: function,
                               reason: "rates must be positive and channels 1...128 (got \(channelCount))", operation: what)
        }
        ratio = Double(outputRate) / Double(inputRate)
        guard ratio >= 1.0 / 256, ratio <= 256 else {
            throw AudioIOError(path: "", function: function, reason: "the ratio \(ratio) is outside 1/256...256", operation: what)
        }
    }

    /// What errors say was being done: making the converter, or converting.
    var creating: String { "create a \(quality.rawValue) resampler from \(inputRate) Hz to \(outputRate) Hz" }
    var resampling: String { "resample \(inputRate) Hz to \(outputRate) Hz" }

    /// A C library's message as the rest of mixrender words one: no final period, a lowercase first letter.
    static func readable(_ message: UnsafePointer<CChar>?) -> String? {
        guard let message else { return nil }
        var text = String(cString: message)
        while text.hasSuffix(".") { text.removeLast() }
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
