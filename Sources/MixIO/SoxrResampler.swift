import CSoxr
import MixDSP

/// A streaming sample-rate converter on interleaved `Float` frames, using libsoxr (the resampler behind SoX's
/// `rate`): `soxr-hq` is SOXR_HQ (20-bit precision, passband to 91.3 % of the lower Nyquist, linear phase),
/// `soxr-vhq` is SOXR_VHQ (28-bit precision, same band).
///
/// Layout: an opaque `soxr_t` (filter tables and history) and the rates. `init` allocates it (`soxr_create`,
/// one thread: `PreparedMaterial` already runs files in parallel); `process` and `reset` allocate nothing
/// of ours (libsoxr may grow its own FIFOs on the first calls), except an error's message. Not thread-safe:
/// one thread at a time; separate resamplers share no state and may run on separate threads at once.
///
/// End of input: libsoxr flushes its filter when `soxr_process` is called with no input (`in` NULL).
/// `process(endOfInput: true)` first consumes what input it is given; once all of it is consumed it flushes
/// in the same call, and callers keep calling (with no input) until it produces 0 frames, as with
/// libsamplerate. After the flush, `reset` before converting another stream.
public final class SoxrResampler: CheckedResampler {
    public let setup: ResamplerSetup
    private let state: soxr_t

    /// Creates the converter with `soxr_create` (interleaved float in and out, the quality's recipe, one
    /// thread); throws if `quality` is not a libsoxr one or the rates or channel count are out of range.
    public init(channelCount: Int, inputRate: Int, outputRate: Int, quality: ResamplerChoice = .soxrHQ) throws {
        let what = "create a \(quality.rawValue) resampler from \(inputRate) Hz to \(outputRate) Hz"
        let recipe: UInt
        switch quality {
        case .soxrHQ: recipe = UInt(SOXR_HQ)
        case .soxrVHQ: recipe = UInt(SOXR_VHQ)
        case .best, .medium, .fast:
            throw AudioIOError(path: "", function: "soxr_create", reason: "'\(quality.rawValue)' is a libsamplerate quality",
                               operation: what)
        }
        setup = try ResamplerSetup(channelCount: channelCount, inputRate: inputRate, outputRate: outputRate, quality: quality,
                                   function: "soxr_create")
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var spec = soxr_quality_spec(recipe, 0)
        var runtime = soxr_runtime_spec(1)
        var error: soxr_error_t? = nil
        let made = soxr_create(Double(inputRate), Double(outputRate), UInt32(channelCount), &error, &io, &spec, &runtime)
        guard let made, error == nil else {
            if let made { soxr_delete(made) }
            throw AudioIOError(path: "", function: "soxr_create", reason: Self.reason(error), operation: what)
        }
        state = made
    }

    /// Calls `soxr_delete`.
    deinit { soxr_delete(state) }

    /// Calls `soxr_process`: converts as much of `input` as fits in `output`; with `endOfInput`, once all of
    /// `input` is consumed, calls it again with no input (the flush) into the space left.
    public func process(input: UnsafePointer<Float>, inputFrames: Int,
                        output: UnsafeMutablePointer<Float>, outputCapacity: Int,
                        endOfInput: Bool) throws -> (consumed: Int, produced: Int) {
        precondition(inputFrames >= 0 && outputCapacity >= 0, "frame counts must not be negative")
        var consumed = 0, produced = 0
        if inputFrames > 0 || !endOfInput {
            let error = soxr_process(state, input, inputFrames, &consumed, output, outputCapacity, &produced)
            if let error { throw failure(error) }
        }
        if endOfInput && consumed == inputFrames && produced < outputCapacity {
            var flushed = 0
            let error = soxr_process(state, nil, 0, nil, output + produced * channelCount, outputCapacity - produced, &flushed)
            if let error { throw failure(error) }
            produced += flushed
        }
        return (consumed, produced)
    }

    /// Calls `soxr_clear`: forgets all history (and a finished flush), as if newly made.
    public func reset() throws {
        if let error = soxr_clear(state) {
            throw AudioIOError(path: "", function: "soxr_clear", reason: Self.reason(error), operation: "reset the resampler")
        }
    }

    private func failure(_ error: soxr_error_t) -> AudioIOError {
        AudioIOError(path: "", function: "soxr_process", reason: Self.reason(error), operation: setup.resampling)
    }

    /// libsoxr's errors are static C strings (`soxr_strerror` is a macro over them).
    private static func reason(_ error: soxr_error_t?) -> String {
        ResamplerSetup.readable(error) ?? "unknown error"
    }
}

/// Makes the converter for `quality`: libsamplerate's `SampleRateResampler` for `best`, `medium` and `fast`, libsoxr's
/// `SoxrResampler` for `soxr-hq` and `soxr-vhq`. Allocates the converter.
public func makeSampleRateConverter(channelCount: Int, inputRate: Int, outputRate: Int,
                                    quality: ResamplerChoice) throws -> SampleRateConverter {
    switch quality {
    case .best, .medium, .fast:
        return try SampleRateResampler(channelCount: channelCount, inputRate: inputRate, outputRate: outputRate, quality: quality)
    case .soxrHQ, .soxrVHQ:
        return try SoxrResampler(channelCount: channelCount, inputRate: inputRate, outputRate: outputRate, quality: quality)
    }
}
