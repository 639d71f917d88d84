import Foundation  // JSONSerialization
import Glibc

/// The espeak-ng helper's side of the protocol (`mixrender speech-helper espeak`): the only code that calls
/// espeak-ng. It sets its own limits (address space, CPU time, no file written, no core dump, no child
/// process), answers one request and exits, so every text is said by a fresh espeak-ng (its state leaks from
/// one text into the next) and a crash takes nothing else with it. SSML is checked against `SSMLSubset` here
/// too, so `<audio>` could not reach espeak-ng even if a caller forgot to check it.
public enum SpeechHelperServer {
    /// Runs the helper on standard input and output; returns the exit status. `arguments`: `--list` (the
    /// voices and variants as one JSON line) or nothing (one request), then `--cpu-seconds N --memory-mb N`.
    public static func runEspeak(arguments: [String]) -> Int32 {
        var options: [String: String] = [:]
        var list = false
        var i = 0
        while i < arguments.count {
            if arguments[i] == "--list" { list = true; i += 1; continue }
            if i + 1 < arguments.count { options[arguments[i]] = arguments[i + 1] }
            i += 2
        }
        do { try EspeakEngine.prepare() } catch { reply(error); return 1 }
        limit(cpuSeconds: Int(options["--cpu-seconds"] ?? "") ?? 60, memoryBytes: (Int(options["--memory-mb"] ?? "") ?? 1024) << 20)
        if list {
            do {
                let (voices, variants) = try EspeakEngine.catalogue()
                let encoded = try JSONEncoder().encode(voices)
                let json = "{\"ok\":true,\"voices\":\(String(decoding: encoded, as: UTF8.self)),\"variants\":"
                    + String(decoding: try JSONSerialization.data(withJSONObject: variants), as: UTF8.self) + "}\n"
                write(Array(json.utf8))
            } catch {
                reply(error)
            }
            return 0
        }
        guard let line = readLine(limit: 1 << 20),
              let request = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
              let text = request["text"] as? String, let voice = request["voice"] as? String else {
            reply(error: "expected one request line")
            return 1
        }
        let ssml = request["ssml"] as? Bool ?? false
        if ssml {
            do { _ = try SSMLSubset(text) } catch { reply(error); return 1 }
        }
        do {
            let speech = try EspeakEngine.synthesize(text, voice: voice, wordsPerMinute: request["rate"] as? Int ?? 150,
                                                     pitch: request["pitch"] as? Int ?? 50, volume: request["volume"] as? Int ?? 100,
                                                     ssml: ssml)
            let header = "{\"ok\":true,\"sampleRate\":\(speech.sampleRate),\"count\":\(speech.samples.count)}\n"
            write(Array(header.utf8))
            speech.samples.map { $0.littleEndian }.withUnsafeBytes { write(Array($0)) }
            return 0
        } catch {
            reply(error)
            return 1
        }
    }

    /// `setrlimit` on this process: CPU seconds, address space, no file grows past 0 bytes, no core, no child.
    /// A mixrender built with the Thread Sanitizer (`scripts/tsan.sh`) keeps its address space unlimited: the
    /// sanitizer's shadow memory is reserved as terabytes of address space, and it dies (exit 66) on the first map
    /// under a limit. Every other limit holds; a build without the sanitizer always takes all of them.
    static func limit(cpuSeconds: Int, memoryBytes: Int) {
        func set(_ resource: __rlimit_resource, _ value: Int) {
            let resource = __rlimit_resource_t(resource.rawValue)
            var limit = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
            _ = setrlimit(resource, &limit)
        }
        set(RLIMIT_CPU, cpuSeconds)
        if !LibC.runsUnderThreadSanitizer { set(RLIMIT_AS, memoryBytes) }
        set(RLIMIT_FSIZE, 0)
        set(RLIMIT_CORE, 0)
        set(__RLIMIT_NPROC, 0)
    }

    private static func reply(_ error: Error) {
        reply(error: (error as? AudioIOError)?.reason ?? "\(error)")
    }

    private static func reply(error: String) {
        let message = error.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard let json = try? JSONSerialization.data(withJSONObject: ["ok": false, "error": message]) else { return }
        write(Array(json) + [0x0A])
    }

    private static func readLine(limit: Int) -> [UInt8]? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count <= limit {
            let n = Glibc.read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return nil }
            if byte == 0x0A { return line }
            line.append(byte)
        }
        return nil
    }

    private static func write(_ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            done += n
        }
    }
}
