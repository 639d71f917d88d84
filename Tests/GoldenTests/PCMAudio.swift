import Foundation
import MixDSP
import MixEngine
import MixIO
import DSPTestSupport
import TestSupport

/// Decoded audio: interleaved `Float` frames with their rate and channel count.
/// Every comparison in the golden suite works on this, never on the bytes of an encoded file.
struct PCMAudio {
    var sampleRate: Int
    var channelCount: Int
    /// Interleaved: frame i, channel c is `samples[i * channelCount + c]`.
    var samples: [Float]

    var frameCount: Int { samples.count / channelCount }
    var durationSeconds: Double { Double(frameCount) / Double(sampleRate) }

    /// Decodes a whole file (`AudioFile.open`), reading until it returns 0 frames.
    static func decode(path: String) throws -> PCMAudio {
        let reader = try AudioFile.open(path: path)
        return PCMAudio(sampleRate: reader.sampleRate, channelCount: reader.channelCount,
                        samples: try readAll(reader, blockFrames: 8192))
    }

    /// Writes the audio with libsndfile (`SoundFileWriter`): FLAC 24-bit, WAV float or Ogg Vorbis.
    func write(to path: String, format: OutputFileFormat, sampleFormat: OutputSampleFormat = .pcm24,
               vorbisQuality: Double = 0.4) throws {
        let settings = OutputSettings(format: format, sampleRate: sampleRate, channelCount: channelCount,
                                      sampleFormat: sampleFormat, vorbisQuality: vorbisQuality)
        let writer = try SoundFileWriter(path: path, settings: settings)
        try samples.withUnsafeBufferPointer { try writer.write(interleaved: $0.baseAddress!, frames: frameCount) }
        try writer.finish()
    }

    /// Channel `c` as its own array.
    func channel(_ c: Int) -> [Float] {
        precondition(c >= 0 && c < channelCount)
        return samples.withUnsafeBufferPointer { s in
            (0..<frameCount).map { s[$0 * channelCount + c] }
        }
    }

    /// Frames `[start, end)`.
    func frames(_ range: Range<Int>) -> PCMAudio {
        PCMAudio(sampleRate: sampleRate, channelCount: channelCount,
                 samples: Array(samples[(range.lowerBound * channelCount)..<(range.upperBound * channelCount)]))
    }

    /// Largest |sample|.
    var peak: Float { samples.withUnsafeBufferPointer { Kernels.peak($0.baseAddress!, count: $0.count) } }

    /// RMS over all samples, in dBFS.
    var rmsDb: Double {
        guard !samples.isEmpty else { return -.infinity }
        let sum = samples.withUnsafeBufferPointer { Kernels.sumOfSquares($0.baseAddress!, count: $0.count) }
        return decibels(fromGain: (sum / Double(samples.count)).squareRoot())
    }
}

extension CaptureEncoder {
    var audio: PCMAudio { PCMAudio(sampleRate: sampleRate, channelCount: channelCount, samples: samples) }
}

/// What a render into memory produced.
struct MemoryRender {
    var audio: PCMAudio
    var summary: RenderSummary
    var job: RenderJob
}

enum GoldenRender {
    /// Overrides for a part of the timeline, optionally at another output rate.
    static func overrides(start: Double? = nil, end: Double? = nil, sampleRate: Int? = nil,
                          resampler: ResamplerChoice? = nil) -> RenderOverrides {
        var o = RenderOverrides(sampleRate: sampleRate, resampler: resampler)
        o.startSeconds = start
        o.endSeconds = end
        return o
    }

    /// Plans `presetPath` with `overrides` and renders its range with `Renderer` into memory.
    static func toMemory(_ presetPath: String, overrides: RenderOverrides = RenderOverrides(),
                         blockFrames: Int = 4096) throws -> MemoryRender {
        let job = try RenderJob(presetPath: presetPath, overrides: overrides)
        return try toMemory(job, blockFrames: blockFrames)
    }

    /// Renders `golden`'s window with the `mixrender` executable, in a process of its own, to a WAV (in the
    /// preset's sample format: 16-bit unless it says otherwise), and decodes it.
    static func inFreshProcess(_ golden: GoldenCase) throws -> PCMAudio {
        let folder = try TemporaryFolder()
        let output = folder.path("\(golden.name).wav")
        var preset = golden.presetPath
        if let voice = golden.voice {
            // The same preset with its voice replaced, beside the output (a spoken preset names no files of its own).
            let data = try Data(contentsOf: URL(fileURLWithPath: preset))
            guard var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  var voiceSettings = object["voice"] as? [String: Any],
                  var speech = voiceSettings["speech"] as? [String: Any] else {
                throw GoldenRenderError(message: "\(golden.preset) has no voice.speech to replace")
            }
            speech["voice"] = voice
            voiceSettings["speech"] = speech
            object["voice"] = voiceSettings
            preset = folder.path("\(golden.name).json")
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: preset))
        }
        var arguments = [preset, "-o", output, "--quiet"]
        if let start = golden.start { arguments += ["--start", "\(start)"] }
        if let end = golden.end { arguments += ["--end", "\(end)"] }
        if let rate = golden.sampleRate { arguments += ["--sample-rate", "\(rate)"] }
        let result = try CLI.run(arguments)
        guard result.status == 0 else { throw GoldenRenderError(message: "mixrender failed for \(golden.name): \(result.stderr)") }
        return try PCMAudio.decode(path: output)
    }

    struct GoldenRenderError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    static func toMemory(_ job: RenderJob, range: Range<Int64>? = nil, blockFrames: Int = 4096) throws -> MemoryRender {
        let (capture, summary) = try renderToMemory(job, range: range, blockFrames: blockFrames)
        return MemoryRender(audio: capture.audio, summary: summary, job: job)
    }
}
