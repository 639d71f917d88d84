import MixDSP
import MixIO

extension OutputConversion {
    /// `encoder`, which takes frames at the output's rate and channels, fed from the render's frames through this
    /// conversion; `encoder` itself when there is none. Makes the resampler (`SoxrResampler`) when the rates differ.
    /// `frameCount`: the frames the render writes, so that the file has exactly `outputFrames(frameCount)`.
    public func encoder(feeding encoder: AudioEncoder, frameCount: Int64, blockFrames: Int) throws -> AudioEncoder {
        guard !isIdentity else { return encoder }
        return try ConvertingEncoder(self, feeding: encoder, outputFrames: outputFrames(frameCount), blockFrames: blockFrames)
    }
}

/// An `AudioEncoder` that takes the render's interleaved frames and writes them, converted (`OutputConversion`),
/// into another encoder: the channels mixed, then the rate converted. It writes exactly the frames the conversion
/// says: the resampler's flush is cut there, or the end filled with silence up to there (a frame at most).
///
/// Layout: two interleaved buffers, the mixed channels (`blockFrames` frames) and the converted ones (as many frames
/// as a block becomes, and some), and the resampler. `init` allocates them; `write` allocates nothing of ours
/// (libsoxr may grow its own FIFOs on its first calls). Not thread-safe: one thread at a time, as for the encoder it
/// feeds.
final class ConvertingEncoder: AudioEncoder {
    let conversion: OutputConversion
    let encoder: AudioEncoder
    private let resampler: SoxrResampler?
    private let mixed: UnsafeMutablePointer<Float>
    private let blockFrames: Int
    /// `gainDb` as a factor.
    private let gain: Float
    private let converted: UnsafeMutablePointer<Float>
    private let convertedCapacity: Int
    /// The frames the file gets, and those written so far.
    private let outputFrames: Int64
    private var written: Int64 = 0

    init(_ conversion: OutputConversion, feeding encoder: AudioEncoder, outputFrames: Int64, blockFrames: Int) throws {
        self.conversion = conversion
        self.encoder = encoder
        self.outputFrames = outputFrames
        self.blockFrames = blockFrames
        gain = Float(MixDSP.gain(fromDecibels: conversion.gainDb))
        resampler = conversion.inputRate == conversion.outputRate ? nil
            : try SoxrResampler(channelCount: conversion.outputChannels, inputRate: conversion.inputRate,
                                outputRate: conversion.outputRate, quality: .soxrVHQ)
        let channels = conversion.outputChannels
        mixed = .allocate(capacity: blockFrames * channels)
        mixed.initialize(repeating: 0, count: blockFrames * channels)
        convertedCapacity = Int((Double(blockFrames) * Double(conversion.outputRate) / Double(conversion.inputRate)).rounded(.up)) + 64
        converted = .allocate(capacity: convertedCapacity * channels)
        converted.initialize(repeating: 0, count: convertedCapacity * channels)
    }

    deinit {
        mixed.deallocate()
        converted.deallocate()
    }

    func write(interleaved input: UnsafePointer<Float>, frames: Int) throws {
        var done = 0
        while done < frames {
            let n = min(blockFrames, frames - done)
            let source = mixChannels(input + done * conversion.inputChannels, frames: n)
            try resample(source, frames: n, endOfInput: false)
            done += n
        }
    }

    func finish() throws {
        if resampler != nil { try resample(mixed, frames: 0, endOfInput: true) }
        // The resampler's total may miss the exact count by a frame: silence up to it.
        let channels = conversion.outputChannels
        converted.update(repeating: 0, count: convertedCapacity * channels)
        while written < outputFrames {
            let n = Int(min(Int64(convertedCapacity), outputFrames - written))
            try encoder.write(interleaved: converted, frames: n)
            written += Int64(n)
        }
        try encoder.finish()
    }

    /// `frames` frames of `input` in the output's channels at its gain: `input` itself when they are the render's
    /// and there is no gain, else made in `mixed`.
    private func mixChannels(_ input: UnsafePointer<Float>, frames: Int) -> UnsafePointer<Float> {
        let from = conversion.inputChannels, to = conversion.outputChannels
        guard from != to || gain != 1 else { return input }
        if to == from {
            for i in 0..<frames * to { mixed[i] = input[i] * gain }
        } else if to == 1 {
            let scale = gain / Float(from)
            for i in 0..<frames {
                var sum: Float = 0
                for c in 0..<from { sum += input[i * from + c] }
                mixed[i] = sum * scale
            }
        } else {
            for i in 0..<frames {
                let value = input[i * from] * gain   // mono to stereo: the one channel in each
                for c in 0..<to { mixed[i * to + c] = value }
            }
        }
        return UnsafePointer(mixed)
    }

    /// Converts `frames` frames of `input` (in the output's channels) to the output's rate and writes them, up to the
    /// file's frame count; with `endOfInput`, flushes the resampler's filter after them.
    private func resample(_ input: UnsafePointer<Float>, frames: Int, endOfInput: Bool) throws {
        guard let resampler else { return try emit(input, frames: frames) }
        let channels = conversion.outputChannels
        var consumed = 0
        while true {
            let step = try resampler.process(input: input + consumed * channels, inputFrames: frames - consumed,
                                             output: converted, outputCapacity: convertedCapacity, endOfInput: endOfInput)
            consumed += step.consumed
            try emit(converted, frames: step.produced)
            // Done when the input is used up and, at the end, the flush gives no more; a call that moves nothing
            // while input is left would loop for ever (libsoxr does not do that, but the loop does not rely on it).
            let drained = consumed >= frames && (!endOfInput || step.produced == 0)
            if drained || (step.consumed == 0 && step.produced == 0) { break }
        }
    }

    /// Writes `frames` frames of `output`, or as many of them as the file still takes.
    private func emit(_ output: UnsafePointer<Float>, frames: Int) throws {
        let n = Int(min(Int64(frames), outputFrames - written))
        guard n > 0 else { return }
        try encoder.write(interleaved: output, frames: n)
        written += Int64(n)
    }
}
