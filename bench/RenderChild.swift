import Foundation
import MixDSP
import MixEngine
import MixIO

/// One night-mix render in a process of its own (`bench --render-child ...`), so that its peak RSS is
/// its own and no heap state carries over from one run to the next. Prints a `RenderChild.Result` as JSON.
enum RenderChild {
    enum Output: String, CaseIterable, Codable {
        case ogg, wav, null
        var title: String {
            switch self {
            case .ogg: return "Ogg Vorbis q4"
            case .wav: return "WAV 16-bit"
            case .null: return "null encoder"
            }
        }
    }

    struct Request {
        var output: Output
        var folder: String
        var seconds: Double
        var isQuick: Bool

        var arguments: [String] {
            ["--render-child", output.rawValue, folder, String(seconds), isQuick ? "quick" : "full"]
        }

        init(output: Output, folder: String, seconds: Double, isQuick: Bool) {
            self.output = output; self.folder = folder; self.seconds = seconds; self.isQuick = isQuick
        }

        /// Parses what follows `--render-child`.
        init?(_ arguments: [String]) {
            guard arguments.count == 4, let output = Output(rawValue: arguments[0]), let seconds = Double(arguments[2]) else { return nil }
            self.init(output: output, folder: arguments[1], seconds: seconds, isQuick: arguments[3] == "quick")
        }
    }

    struct Result: Codable {
        var wall: Double
        var prepare: Double
        var sources: Double
        var mix: Double
        var encode: Double
        var write: Double
        /// Blocks counted for allocations (all but the first).
        var blocks: Int
        var renderAllocations: Int
        var encoderAllocations: Int
        var maxRenderAllocationsInABlock: Int
        /// VmHWM at the end of the render, and VmRSS just before it.
        var peakMiB: Double
        var startMiB: Double
        var mixPeakDb: Double
        var maxGainReductionDb: Double
        var limitedSeconds: Double
    }

    /// In the child: renders and prints the result.
    static func run(_ request: Request) throws {
        let mix = NightMix.existing(in: request.folder, isQuick: request.isQuick)
        let plan = try mix.plan(seconds: request.seconds)
        let encoder: AudioEncoder
        switch request.output {
        case .ogg:
            encoder = try SoundFileWriter(path: "\(request.folder)/night-\(CurrentProcess.id).ogg", settings: OutputSettings(
                format: .oggVorbis, sampleRate: plan.sampleRate, channelCount: plan.channelCount, vorbisQuality: 0.4))
        case .wav:
            encoder = try SoundFileWriter(path: "\(request.folder)/night-\(CurrentProcess.id).wav", settings: OutputSettings(
                format: .wav, sampleRate: plan.sampleRate, channelCount: plan.channelCount, sampleFormat: .pcm16))
        case .null:
            encoder = NullEncoder()
        }
        AllocationCounter.watchCurrentThread()
        let probe = AllocationProbe()
        let startMiB = ProcessMemory.currentMiB
        let renderer = Renderer(plan: plan)
        let summary = try renderer.render(to: encoder, progress: { _ in probe.tick() })
        let t = summary.timings
        let result = Result(wall: t.wall, prepare: t.prepare, sources: t.sources, mix: t.mix, encode: t.encode, write: t.write,
                            blocks: max(0, probe.calls - 1), renderAllocations: probe.renderAllocations,
                            encoderAllocations: probe.otherAllocations, maxRenderAllocationsInABlock: probe.maxInABlock,
                            peakMiB: ProcessMemory.peakMiB, startMiB: startMiB, mixPeakDb: summary.mixPeakDb,
                            maxGainReductionDb: summary.maxGainReductionDb, limitedSeconds: summary.limitedSeconds)
        try? FileSystem.removeFile("\(request.folder)/night-\(CurrentProcess.id).\(request.output.rawValue)")
        print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
    }

    /// In the parent: runs one render in a child process and returns its result.
    static func spawn(_ request: Request) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executablePath())
        process.arguments = request.arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError(message: "the render child (\(request.arguments.joined(separator: " "))) failed with status \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(Result.self, from: data)
    }

    private static func executablePath() throws -> String {
        guard let path = try? FileSystem.symbolicLinkDestination(of: "/proc/self/exe"), !path.isEmpty else {
            throw BenchError(message: "cannot find the bench executable (/proc/self/exe)")
        }
        return path
    }
}

/// Takes the frames and throws them away: the pipeline without an encoder.
final class NullEncoder: AudioEncoder {
    private(set) var frames = 0
    func write(interleaved: UnsafePointer<Float>, frames: Int) throws { self.frames += frames }
    func finish() throws {}
}

/// Counts allocations between progress calls (one per block written). Allocates nothing itself.
final class AllocationProbe {
    private(set) var calls = 0
    private var firstRender = 0, firstOther = 0, lastRender = 0, lastOther = 0
    private(set) var maxInABlock = 0

    func tick() {
        let r = AllocationCounter.watched, o = AllocationCounter.others
        if calls == 0 { firstRender = r; firstOther = o } else { maxInABlock = max(maxInABlock, r - lastRender) }
        lastRender = r; lastOther = o
        calls += 1
    }

    var renderAllocations: Int { lastRender - firstRender }
    var otherAllocations: Int { lastOther - firstOther }
}
