import Foundation
import Glibc  // fputs, exit
import MixIO

/// Runs the chosen sections in order and prints the report.
enum BenchMain {
    static func main(_ arguments: [String]) {
        if arguments.first == "speech-helper", arguments.dropFirst().first == "espeak" {
            exit(SpeechHelperServer.runEspeak(arguments: Array(arguments.dropFirst(2))))
        }
        SpeechHelperLocation.servesSpeechHelper()
        if arguments.first == "--render-child" {
            AllocationCounter.install()
            guard let request = RenderChild.Request(Array(arguments.dropFirst())) else { fputs("bench: bad --render-child arguments\n", standardErrorStream); exit(2) }
            do { try RenderChild.run(request) } catch { fputs("bench: render child: \(error)\n", standardErrorStream); exit(1) }
            return
        }
        let options: BenchOptions
        do { options = try BenchOptions.parse(arguments) } catch let error as UsageError {
            if let message = error.message { fputs("bench: \(message)\n\(BenchOptions.usage)\n", standardErrorStream); exit(2) }
            print(BenchOptions.usage); exit(0)
        } catch { fatalError("\(error)") }

        AllocationCounter.install()
        // The night mix's resampler reaches the render children through the environment (NightMix.preset).
        if let resampler = options.resampler { setenv(NightMix.resamplerVariable, resampler.rawValue, 1) }
        let runs = options.runs ?? (options.isQuick ? 3 : 7)
        var report = BenchReport(date: today(), mode: options.isQuick ? "quick" : "full", machine: .current(),
                                 build: buildDescription())
        let progress = Progress(isEnabled: !options.isJSON || Terminal.isTerminal(Terminal.standardError))
        // The mixrender the whole-command sections run: --mixrender, or the one built beside the bench.
        let mixrender = options.mixrender
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mixrender").path
        do {
            for section in options.sections.sorted() {
                progress.say("running \(section.rawValue) ...")
                switch section {
                case .mix:
                    let timing = Timing(runs: runs, runSeconds: options.isQuick ? 0.01 : 0.05)
                    let (result, ratio) = MixBench(timing: timing, isQuick: options.isQuick).run()
                    report.sections.append(result)
                    if let ratio { report.targets.append(Targets.mixing(ratio, isQuick: options.isQuick)) }
                case .kernels:
                    let timing = Timing(runs: runs, runSeconds: options.isQuick ? 0.005 : 0.03)
                    report.sections.append(contentsOf: KernelBench(timing: timing).run())
                case .generators:
                    report.sections.append(GeneratorBench(timing: Timing(runs: runs, runSeconds: options.isQuick ? 0.01 : 0.1)).run())
                case .resampler:
                    report.sections.append(try ResamplerBench(runs: runs, isQuick: options.isQuick).run())
                case .transparency:
                    report.sections.append(try TransparencyBench().run())
                case .preparation:
                    report.sections.append(try PreparationBench(runs: options.runs ?? (options.isQuick ? 1 : 3), isQuick: options.isQuick,
                                                                progress: progress).run())
                case .vorbis:
                    report.sections.append(try VorbisDecodeBench(runs: options.runs ?? (options.isQuick ? 1 : 3), isQuick: options.isQuick).run())
                case .pipeline:
                    let bench = PipelineBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 2 : 3),
                                              seconds: options.nightSeconds ?? (options.isQuick ? 60 : 1800), progress: progress)
                    let (sections, target) = try bench.run()
                    report.sections.append(contentsOf: sections)
                    if let target { report.targets.append(target) }
                case .shared:
                    let bench = SharedPreparationBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 2 : 3),
                                                       seconds: options.nightSeconds ?? (options.isQuick ? 60 : 300), progress: progress)
                    let (section, target) = try bench.run()
                    report.sections.append(section)
                    report.targets.append(target)
                case .loudness:
                    let bench = LoudnessBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 3),
                                              seconds: options.nightSeconds ?? (options.isQuick ? 60 : 3600), progress: progress)
                    let (section, target) = try bench.run()
                    report.sections.append(section)
                    report.targets.append(target)
                case .encoders:
                    report.sections.append(try EncoderBench(runs: options.runs ?? 1, isQuick: options.isQuick).run())
                case .realism:
                    report.sections.append(try RealismBench(isQuick: options.isQuick, files: options.files,
                                                            recordings: options.recordings).run())
                case .window:
                    let (section, target) = try WindowBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 5),
                                                            mixrender: mixrender, progress: progress).run()
                    report.sections.append(section)
                    report.targets.append(target)
                case .waveform:
                    let (section, target) = try WaveformBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 3),
                                                              mixrender: mixrender, progress: progress).run()
                    report.sections.append(section)
                    report.targets.append(target)
                case .memory:
                    let (section, target) = try MemoryBench(isQuick: options.isQuick, mixrender: mixrender, progress: progress).run()
                    report.sections.append(section)
                    report.targets.append(target)
                case .loopmemory:
                    let (section, targets) = try LoopMemoryBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 5),
                                                                 mixrender: mixrender, progress: progress).run()
                    report.sections.append(section)
                    report.targets.append(contentsOf: targets)
                case .threads:
                    let duration = options.nightSeconds.map { "\(Int($0))s" } ?? (options.isQuick ? "3m" : "1h")
                    let (section, target) = try ThreadsBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 3),
                                                             duration: duration, mixrender: mixrender, progress: progress).run()
                    report.sections.append(section)
                    report.targets.append(target)
                case .outputs:
                    let duration = options.nightSeconds.map { "\(Int($0))s" } ?? (options.isQuick ? "1m" : "20m")
                    let (section, targets) = try OutputsBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 3),
                                                              duration: duration, mixrender: mixrender, progress: progress).run()
                    report.sections.append(section)
                    report.targets.append(contentsOf: targets)
                case .cache:
                    report.sections.append(try CacheEntryBench(runs: options.runs ?? (options.isQuick ? 3 : 5), isQuick: options.isQuick).run())
                case .serve:
                    let bench = ServeLoadBench(isQuick: options.isQuick, mixrender: mixrender, progress: progress)
                    let outcome = Locked<Result<(Section, [Target]), Error>?>(nil)
                    let done = DispatchSemaphore(value: 0)
                    Task {
                        let result: Result<(Section, [Target]), Error>
                        do { result = .success(try await bench.run()) } catch { result = .failure(error) }
                        outcome.withLock { $0 = result }
                        done.signal()
                    }
                    done.wait()
                    let (section, targets) = try outcome.withLock { $0 }!.get()
                    report.sections.append(section)
                    report.targets.append(contentsOf: targets)
                case .session:
                    let bench = SessionBench(isQuick: options.isQuick, runs: options.runs ?? (options.isQuick ? 1 : 3),
                                             seconds: options.isQuick ? 1200 : 1800, progress: progress)
                    let (section, target) = try bench.run()
                    report.sections.append(section)
                    report.targets.append(target)
                }
            }
        } catch {
            fputs("bench: \(error)\n", standardErrorStream)
            exit(1)
        }
        report.machine.loadAverageAtEnd = MachineInfo.loadAverage()
        report.settleUnmeasuredTargets()
        do {
            if let path = options.jsonOutput {
                try Data((try report.json() + "\n").utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            }
            print(options.isJSON ? try report.json() : report.table(), terminator: options.isJSON ? "\n" : "")
        } catch {
            fputs("bench: the report: \(error)\n", standardErrorStream)
            exit(1)
        }
    }

    static func today() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: Date())
    }

    static func buildDescription() -> String {
        var s = "release"
        #if DEBUG
        s = "DEBUG (numbers meaningless: use -c release)"
        #endif
        #if compiler(>=6.3)
        s += ", Swift >= 6.3"
        #endif
        s += ", generic x86-64 target (SSE2; no -target-cpu), allocation counter "
        s += AllocationCounter.isActive ? "active" : "INACTIVE"
        return s
    }
}

/// Progress messages on standard error.
final class Progress: Sendable {
    let isEnabled: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    init(isEnabled: Bool) { self.isEnabled = isEnabled; start = clock.now }
    func say(_ message: String) {
        guard isEnabled else { return }
        fputs("[\(fixed((clock.now - start).seconds, 1)) s] \(message)\n", standardErrorStream)
    }
}
