import Foundation
import Glibc
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `bench --only serve`: the render server under load, on loopback only. A real `mixrender serve` (a fresh state
/// folder) gets `clients` concurrent clients submitting `presets` distinct presets (each preset by several clients)
/// and polling each render until it ends. Measured: status calls' latency (p50, p99) while the renders saturate the
/// cores; that every job rendered once (the server's `mixrender_renders_total`); that every download equals the
/// CLI's render of the same preset byte for byte; and renders per minute beside `mixrender batch` of the same jobs
/// with the same `--jobs`, in the same run. Time to first audio (submit to the first HLS segment served, for a render
/// asked for with `stream`): a mix and a session on the idle server, and a mix submitted as a second run of the load
/// (other seeds, not timed for throughput) starts. The
/// session's is set beside its speech synthesis, timed by the CLI rendering the same session in the same run.
struct ServeLoadBench {
    var isQuick: Bool
    var mixrender: String
    var progress: Progress

    var clients: Int { isQuick ? 20 : 200 }
    var presets: Int { isQuick ? 4 : 20 }
    var seconds: Int { isQuick ? 5 : 60 }
    var jobs: Int { ProcessInfo.processInfo.activeProcessorCount }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// CPU seconds (user and system) of process `pid` so far, from /proc/PID/stat (its 14th and 15th fields, in clock
    /// ticks); 0 when it cannot be read.
    static func cpuSeconds(pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds of this process (`RUSAGE_SELF`), or of its children waited for (`RUSAGE_CHILDREN`).
    static func cpuSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    func preset(_ k: Int) -> String {
        let colour = ["pink", "brown", "white"][k % 3]
        return #"{"duration": \#(seconds), "output": {"sampleRate": 44100}, "tracks": [{"generator": {"type": "\#(colour)", "seed": \#(k + 1)}, "gainDb": -12}, {"generator": {"type": "brown", "seed": \#(k + 100)}, "gainDb": -18, "pan": 0.3}]}"#
    }

    /// A mix long enough that its render outlasts its first segment many times (the stream's first audio, not the end).
    var streamedMix: String {
        #"{"duration": "\#(isQuick ? 2 : 10)m", "output": {"sampleRate": 48000}, "tracks": [{"generator": {"type": "pink", "seed": 77}, "gainDb": -14}, {"generator": {"type": "brown", "seed": 78}, "gainDb": -16, "pan": -0.2}]}"#
    }

    /// A short session with the neural voice over a brown-noise bed (the docs' first session); `nonce` makes its text
    /// new, so nothing is said from a cache.
    func streamedSession(_ nonce: Int) -> String {
        #"{"name": "bench session", "voice": {"ducking": {"depthDb": -10}}, "tracks": [{"name": "bed", "generator": {"type": "brown", "seed": \#(nonce)}, "gainDb": -8, "fadeIn": "3s"}], "sections": [{"name": "Settle", "segments": [{"text": "Let your shoulders drop, number \#(nonce).", "gapBefore": "2s", "pauseAfter": "4s"}, {"text": "Breathe slowly, and let the sound carry you.", "pauseAfter": "6s"}]}, {"name": "Rest", "length": "\#(isQuick ? 40 : 90)s", "segments": [{"text": "Rest here for a while.", "pauseAfter": "10s"}]}], "ending": {"type": "sleep", "hold": "5s", "fadeOut": "10s"}}"#
    }

    func run() async throws -> (Section, [Target]) {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mixrender-serve-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // The server, its token and port from what it prints.
        let server = Process()
        server.executableURL = URL(fileURLWithPath: mixrender)
        server.arguments = ["serve", "--port", "0", "--state", folder.appendingPathComponent("state").path, "--jobs", String(jobs),
                            "--jobs-per-token", "1000"]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try server.run()
        defer { if server.isRunning { server.terminate(); server.waitUntilExit() } }
        var token = "", port = 0, text = ""
        let handle = output.fileHandleForReading
        while port == 0 {
            let chunk = handle.availableData
            guard !chunk.isEmpty else { throw Failure(description: "mixrender serve exited before listening") }
            text += String(decoding: chunk, as: UTF8.self)
            for line in text.split(separator: "\n") {
                if line.hasPrefix("token: ") { token = String(line.dropFirst(7)) }
                if let r = line.range(of: "listening on http://127.0.0.1:") { port = Int(line[r.upperBound...].prefix { $0.isNumber }) ?? 0 }
            }
        }
        let base = "http://127.0.0.1:\(port)"
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = clients
        configuration.timeoutIntervalForRequest = 600
        let session = URLSession(configuration: configuration)

        let serverToken = token
        let call: @Sendable (String, String, Data?) async throws -> (Int, Data) = { method, path, body in
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.setValue("Bearer \(serverToken)", forHTTPHeaderField: "Authorization")
            if let body { request.httpBody = body; request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        }

        // How many renders the server has done (its `mixrender_renders_total`).
        let renders: @Sendable () async throws -> Int = {
            let (_, data) = try await call("GET", "/metrics", nil)
            return String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("mixrender_renders_total ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }

        // Time to first audio: submit (with `stream`) to the first segment served, polled every 20 ms.
        let firstAudio: @Sendable (String) async throws -> (seconds: Double, id: String) = { preset in
            let t0 = Date()
            let (status, data) = try await call("POST", "/v1/renders", Data(#"{"format": "m4a", "stream": true, "preset": \#(preset)}"#.utf8))
            guard status == 202 || status == 200,
                  let id = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String else {
                throw Failure(description: "a streamed submit answered \(status): \(String(decoding: data, as: UTF8.self))")
            }
            while Date().timeIntervalSince(t0) < 600 {
                let (status, _) = try await call("GET", "/v1/renders/\(id)/stream/seg00000.m4s", nil)
                if status == 200 { return (Date().timeIntervalSince(t0), id) }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw Failure(description: "render \(id): no segment served within 600 s")
        }
        progress.say("serve: time to first audio on the idle server (a mix, a session)")
        // Each render until it ends, so that none runs on into the load test.
        let finished: @Sendable (String) async throws -> Void = { id in
            while true {
                let (_, data) = try await call("GET", "/v1/renders/\(id)", nil)
                let state = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["state"] as? String
                if state == "succeeded" { return }
                guard state == "queued" || state == "rendering" else { throw Failure(description: "render \(id) \(state ?? "?")") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let (idleMix, mixID) = try await firstAudio(streamedMix)
        try await finished(mixID)
        let (idleSession, sessionID) = try await firstAudio(streamedSession(1))
        try await finished(sessionID)
        let rendersBefore = try await renders()

        // Every client submits its request and polls it until it succeeds; status calls are timed. A seed offset makes
        // other presets (new renders) of the same shape.
        let requests = { (seedOffset: Int) in
            (0..<clients).map { Data(#"{"format": "flac", "preset": \#(preset($0 % presets + seedOffset))}"#.utf8) }
        }
        let load: @Sendable ([Data]) async throws -> (ids: Set<String>, latencies: [Double]) = { bodies in
            try await withThrowingTaskGroup(of: (id: String, latencies: [Double]).self) { group in
                for body in bodies {
                    group.addTask {
                        let (status, data) = try await call("POST", "/v1/renders", body)
                        guard status == 202 || status == 200,
                              let id = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String else {
                            throw Failure(description: "submit answered \(status): \(String(decoding: data, as: UTF8.self))")
                        }
                        var latencies: [Double] = []
                        while true {
                            let t0 = Date()
                            let (status, data) = try await call("GET", "/v1/renders/\(id)", nil)
                            latencies.append(Date().timeIntervalSince(t0))
                            let state = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["state"] as? String
                            guard status == 200, let state else { throw Failure(description: "status answered \(status)") }
                            if state == "succeeded" { return (id, latencies) }
                            if state != "queued", state != "rendering" { throw Failure(description: "render \(id) \(state)") }
                            try await Task.sleep(for: .milliseconds(200))
                        }
                    }
                }
                var ids: Set<String> = [], latencies: [Double] = []
                for try await result in group { ids.insert(result.id); latencies += result.latencies }
                return (ids, latencies)
            }
        }

        // The throughput: the load alone, timed against batch below.
        progress.say("serve: \(clients) clients, \(presets) presets of \(seconds) s, --jobs \(jobs)")
        let started = Date()
        let serverCPUBefore = Self.cpuSeconds(pid: server.processIdentifier), clientCPUBefore = Self.cpuSeconds(RUSAGE_SELF)
        let outcome = try await load(requests(0))
        let serverSeconds = Date().timeIntervalSince(started)
        let serverCPU = Self.cpuSeconds(pid: server.processIdentifier) - serverCPUBefore
        let clientCPU = Self.cpuSeconds(RUSAGE_SELF) - clientCPUBefore
        guard outcome.ids.count == presets else { throw Failure(description: "\(outcome.ids.count) distinct ids for \(presets) presets") }
        // The load test's renders: the server's count.
        let rendered = try await renders() - rendersBefore

        // Time to first audio under the load: the same load again with other seeds (new renders), and a minute's mix
        // asked for with `stream` as it starts (its first segment is what counts, not its length). Not in the
        // throughput's time: the stream's AAC encoders are work batch does not do.
        progress.say("serve: time to first audio under the same load")
        let loadedPreset = streamedMix.replacingOccurrences(of: "\"seed\": 77", with: "\"seed\": 79")
            .replacingOccurrences(of: "\"duration\": \"\(isQuick ? 2 : 10)m\"", with: "\"duration\": \"1m\"")
        let mixUnderLoad = Task { try await Task.sleep(for: .milliseconds(300)); return try await firstAudio(loadedPreset) }
        _ = try await load(requests(1000))
        let (loadedMix, loadedID) = try await mixUnderLoad.value
        try await finished(loadedID)

        // The same jobs with `mixrender batch --jobs N`, timed; its files are what the downloads must equal.
        var lines: [String] = []
        for k in 0..<presets {
            let file = folder.appendingPathComponent("p\(k).json")
            try Data(preset(k).utf8).write(to: file)
            lines.append(#"{"preset": "p\#(k).json", "output": "out/p\#(k).flac"}"#)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("jobs.jsonl"))
        let batch = Process()
        batch.executableURL = URL(fileURLWithPath: mixrender)
        batch.arguments = ["batch", folder.appendingPathComponent("jobs.jsonl").path, "--jobs", String(jobs), "--quiet"]
        batch.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        let batchStart = Date(), childrenCPUBefore = Self.cpuSeconds(RUSAGE_CHILDREN)
        try batch.run()
        batch.waitUntilExit()
        let batchSeconds = Date().timeIntervalSince(batchStart)
        let batchCPU = Self.cpuSeconds(RUSAGE_CHILDREN) - childrenCPUBefore
        guard batch.terminationStatus == 0 else { throw Failure(description: "mixrender batch failed (\(batch.terminationStatus))") }

        // The session's speech synthesis alone, as the CLI reports it rendering the same session (new text: nothing cached).
        let sessionFile = folder.appendingPathComponent("session.json")
        try Data(streamedSession(2).utf8).write(to: sessionFile)
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: mixrender)
        let reportFile = folder.appendingPathComponent("session.report.json")
        cli.arguments = [sessionFile.path, "-o", folder.appendingPathComponent("session.m4a").path, "--quiet", "--report", reportFile.path]
        let cliOutput = Pipe()
        cli.standardOutput = cliOutput
        cli.standardError = cliOutput
        try cli.run()
        let cliText = String(decoding: cliOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cli.waitUntilExit()
        // The report's `timings.synthesise.wallSeconds` (docs/report.md).
        let report = (try? Data(contentsOf: reportFile)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let synthesis = ((report?["timings"] as? [String: Any])?["synthesise"] as? [String: Any])?["wallSeconds"] as? Double
        guard cli.terminationStatus == 0, let synthesis else {
            throw Failure(description: "the CLI's session render failed or reported no synthesis time: \(cliText.suffix(300))")
        }

        var identical = 0
        for k in 0..<presets {
            let body = Data(#"{"format": "flac", "preset": \#(preset(k))}"#.utf8)
            let (_, data) = try await call("POST", "/v1/renders", body)
            guard let id = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String else { continue }
            let (status, audio) = try await call("GET", "/v1/renders/\(id)/audio", nil)
            let cli = try Data(contentsOf: folder.appendingPathComponent("out/p\(k).flac"))
            if status == 200, audio == cli { identical += 1 }
        }
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()

        let sorted = outcome.latencies.sorted()
        func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        var section = Section(id: "serve", title: "Render server under load (loopback, \(clients) clients, \(presets) presets of \(seconds) s, FLAC, --jobs \(jobs))",
                              labels: ["what"], columns: [Column(key: "value", title: "value", format: .ratio)])
        section.add(["status call p50 (ms)"], ["value": Spread([percentile(0.5) * 1000])])
        section.add(["status call p99 (ms)"], ["value": Spread([percentile(0.99) * 1000])])
        section.add(["status calls"], ["value": Spread([Double(sorted.count)])])
        section.add(["renders (server's count; distinct jobs \(presets))"], ["value": Spread([Double(rendered)])])
        section.add(["downloads equal to the CLI's render"], ["value": Spread([Double(identical)])])
        section.add(["server renders per minute"], ["value": Spread([Double(presets) / serverSeconds * 60])])
        section.add(["batch renders per minute"], ["value": Spread([Double(presets) / batchSeconds * 60])])
        section.add(["server CPU during the load (s)"], ["value": Spread([serverCPU])])
        section.add(["  the load's clients' CPU, this process (s)"], ["value": Spread([clientCPU])])
        section.add(["batch CPU (s)"], ["value": Spread([batchCPU])])
        section.add(["time to first audio, mix, idle (s)"], ["value": Spread([idleMix])])
        section.add(["time to first audio, mix, under the same load again (s)"], ["value": Spread([loadedMix])])
        section.add(["time to first audio, session, idle (s)"], ["value": Spread([idleSession])])
        section.add(["  its speech synthesis, by the CLI (s)"], ["value": Spread([synthesis])])
        section.notes.append("Server: first submit to last render seen succeeded by its client (polling every 200 ms); batch: mixrender batch of the same \(presets) jobs with --jobs \(jobs), in the same run. The mix under load is measured in a second run of the load (other seeds), so its stream's encoders are not in the throughput's time. CPU: the server's from /proc, the clients' (URLSession, this process) from getrusage, batch's from its wait: on a machine with no cores to spare the clients' CPU is taken from the server's renders.")
        section.notes.append("Time to first audio: submit (with stream: true, m4a) to the first HLS segment served, polled every 20 ms; the mix is \(isQuick ? 2 : 10) minutes of two noise tracks, the session the docs' first session with new text (the server's first speech starts its voice's helper). Goals: a mix in 2 s; a session in its synthesis plus 2 s.")
        guard rendered == presets, identical == presets else {
            throw Failure(description: "rendered \(rendered) times and \(identical) downloads equal the CLI's, for \(presets) presets")
        }
        let ratio = batchSeconds / serverSeconds
        let target = Target(name: "serve: renders per minute against batch", definition: "server renders/min ÷ batch renders/min, same jobs, same --jobs",
                            value: Figure(Spread([ratio]), .ratio), threshold: 0.8, comparison: "atLeast", isMet: ratio >= 0.8,
                            status: isQuick ? "indicative" : (ratio >= 0.8 ? "met" : "missed"),
                            note: "every job rendered once; every download equal to the CLI's file")
        let status = { (met: Bool) in isQuick ? "indicative" : (met ? "met" : "missed") }
        let mixTarget = Target(name: "serve: time to first audio, a mix (idle server)", definition: "submit with stream: true to the first HLS segment served, seconds",
                               value: Figure(Spread([idleMix]), .seconds), threshold: 2, comparison: "below", isMet: idleMix < 2,
                               status: status(idleMix < 2), note: "under the load test's \(clients) clients: \(fixed(loadedMix, 2)) s")
        let sessionBeyond = idleSession - synthesis
        let sessionTarget = Target(name: "serve: time to first audio, a session, beyond its speech synthesis (idle server)",
                                   definition: "time to first audio minus the session's synthesis time (the CLI's, same session, new text), seconds",
                                   value: Figure(Spread([sessionBeyond]), .seconds), threshold: 2, comparison: "below", isMet: sessionBeyond < 2,
                                   status: status(sessionBeyond < 2), note: "time to first audio \(fixed(idleSession, 2)) s; synthesis \(fixed(synthesis, 2)) s")
        return (section, [target, mixTarget, sessionTarget])
    }
}
