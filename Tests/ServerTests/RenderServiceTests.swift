import Crypto
import DSPTestSupport
import Foundation
import MixIO
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// The render service end to end: a real `mixrender serve` on a loopback port, called over HTTP (URLSession).
@Suite(.serialized) struct RenderServiceTests {
    /// Two seconds of seeded pink noise at 22.05 kHz with two chapters: renders in well under a second.
    static func shortPreset(seed: Int = 1, seconds: Int = 2) -> [String: Any] {
        ["duration": "\(seconds)s", "output": ["sampleRate": 22050],
         "chapters": [["at": "0:00", "name": "Start"], ["at": "0:01", "name": "Later"]],
         "tracks": [["generator": ["type": "pink", "seed": seed], "gainDb": -12]]]
    }

    /// Long enough to be caught rendering (minutes of audio at a few hundred times real time).
    static func longPreset(seed: Int = 7, hours: Int = 3) -> [String: Any] {
        longPreset(seed: seed, minutes: 60 * hours)
    }

    /// Brown noise for `minutes`: long enough to be caught rendering.
    static func longPreset(seed: Int, minutes: Int) -> [String: Any] {
        ["duration": "\(minutes)m", "tracks": [["generator": ["type": "brown", "seed": seed], "gainDb": -12]]]
    }

    @Test func aRenderIsSubmittedFollowedAndDownloadedWholeOrInParts() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(), "format": "wav"])
        #expect(submitted.status == 202)
        let id = try #require(submitted.object["id"] as? String)
        #expect(id.count == 64)
        #expect(submitted.header("Location") == "/v1/renders/\(id)")
        let done = try await server.waitForRender(id)
        #expect(done.object["state"] as? String == "succeeded", "\(String(decoding: done.body, as: UTF8.self))")
        let result = try #require(done.object["result"] as? [String: Any])
        let chapters = try #require(done.object["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["name"] as? String } == ["Start", "Later"])
        #expect(chapters.last?["startSeconds"] as? Double == 1)

        // The whole file is the CLI's render of the same preset, byte for byte.
        let whole = try await server.request("GET", "/v1/renders/\(id)/audio")
        #expect(whole.status == 200)
        #expect(whole.header("Content-Type") == "audio/wav")
        #expect(whole.header("Accept-Ranges") == "bytes")
        #expect(whole.header("Content-Length") == String(whole.body.count))
        #expect(result["bytes"] as? Int == whole.body.count)
        #expect(result["sha256"] as? String == SHA256.hash(data: whole.body).map { String(format: "%02x", $0) }.joined())
        let folder = server.state.appendingPathComponent("cli")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let presetFile = folder.appendingPathComponent("short.json")
        try JSONSerialization.data(withJSONObject: Self.shortPreset()).write(to: presetFile)
        let cli = try CLI.run([presetFile.path, "-o", folder.appendingPathComponent("short.wav").path, "--quiet"])
        #expect(cli.status == 0, "\(cli.stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("short.wav")) == whole.body)
        let key = try CLI.run(["key", presetFile.path, "--format", "wav"])
        #expect(key.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == id, "the id is the CLI's file cache key")

        // Ranges: a slice, a suffix, a resumed download, one outside the file.
        let etag = try #require(whole.header("ETag"))
        let slice = try await server.request("GET", "/v1/renders/\(id)/audio", headers: ["Range": "bytes=100-199"])
        #expect(slice.status == 206)
        #expect(slice.body == whole.body[100..<200])
        #expect(slice.header("Content-Range") == "bytes 100-199/\(whole.body.count)")
        let suffix = try await server.request("GET", "/v1/renders/\(id)/audio", headers: ["Range": "bytes=-10"])
        #expect(suffix.status == 206)
        #expect(suffix.body == whole.body.suffix(10))
        let resumed = try await server.request("GET", "/v1/renders/\(id)/audio", headers: ["Range": "bytes=5000-", "If-Range": etag])
        #expect(resumed.status == 206)
        #expect(whole.body.prefix(5000) + resumed.body == whole.body)
        let stale = try await server.request("GET", "/v1/renders/\(id)/audio", headers: ["Range": "bytes=5000-", "If-Range": "\"other\""])
        #expect(stale.status == 200)
        #expect(stale.body == whole.body)
        let outside = try await server.request("GET", "/v1/renders/\(id)/audio", headers: ["Range": "bytes=\(whole.body.count + 10)-"])
        #expect(outside.status == 416)
        #expect(outside.header("Content-Range") == "bytes */\(whole.body.count)")
        let unchanged = try await server.request("GET", "/v1/renders/\(id)/audio", headers: ["If-None-Match": etag])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        let head = try await server.request("HEAD", "/v1/renders/\(id)/audio")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Length") == String(whole.body.count))
        #expect(head.header("ETag") == etag)

        // The waveform (three ways), the timeline and the report beside it.
        let waveform = try await server.request("GET", "/v1/renders/\(id)/waveform")
        #expect(waveform.status == 200)
        #expect((waveform.object["data"] as? [Int])?.isEmpty == false)
        // Compressed for a client that accepts gzip: the same document (URLSession inflates it), smaller on the wire.
        let gzipped = try await server.request("GET", "/v1/renders/\(id)/waveform", headers: ["Accept-Encoding": "gzip"])
        #expect(gzipped.status == 200 && gzipped.header("Content-Encoding") == "gzip", "\(gzipped.header("Content-Encoding") ?? "none")")
        #expect(gzipped.header("Vary") == "Accept-Encoding")
        #expect(NSDictionary(dictionary: gzipped.object).isEqual(to: waveform.object))
        let png = try await server.request("GET", "/v1/renders/\(id)/waveform?format=png")
        #expect(png.header("Content-Type") == "image/png")
        #expect(png.body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let svg = try await server.request("GET", "/v1/renders/\(id)/waveform?format=svg")
        #expect(svg.header("Content-Type")?.hasPrefix("image/svg+xml") == true)
        #expect(String(decoding: svg.body, as: UTF8.self).contains("<svg"))
        // Zoomed for a phone: at most 10 columns across, or about 4 a second; one or the other, for the JSON only.
        let full = waveform.object
        let narrow = try await server.request("GET", "/v1/renders/\(id)/waveform?width=10")
        #expect(narrow.status == 200)
        let columns = try #require(narrow.object["length"] as? Int)
        #expect(columns <= 10 && columns >= 5, "\(narrow.object)")
        #expect((narrow.object["samples_per_pixel"] as? Int).map { $0 % (full["samples_per_pixel"] as? Int ?? 1) == 0 } == true)
        #expect((narrow.object["data"] as? [Int])?.count == 2 * columns * (full["channels"] as? Int ?? 0))
        let paced = try await server.request("GET", "/v1/renders/\(id)/waveform?pointsPerSecond=4")
        #expect(paced.status == 200)
        #expect(paced.object["length"] as? Int == 8 || paced.object["length"] as? Int == 9, "\(paced.object)")   // 2 s
        for query in ["width=10&pointsPerSecond=4", "width=0", "width=10&format=png", "pointsPerSecond=-1"] {
            let refused = try await server.request("GET", "/v1/renders/\(id)/waveform?\(query)")
            #expect(refused.status == 400, "\(query): \(refused.object)")
        }
        let timeline = try await server.request("GET", "/v1/renders/\(id)/timeline")
        #expect(timeline.status == 200)
        #expect(timeline.json is [String: Any])
        let report = try await server.request("GET", "/v1/renders/\(id)/report")
        #expect(((report.object["cacheKey"] as? [String: Any])?["file"] as? String) == id)
    }

    /// Each output with its own bitrate or quality (issue 56): a smaller stream beside the download, each file's id its key.
    @Test func eachOutputMayHaveItsOwnBitrateOrQuality() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let preset = Self.shortPreset(seed: 61, seconds: 4)
        let outputs: [Any] = [["format": "mp3", "bitrateKbps": 64], ["format": "ogg", "quality": 0.1], "flac"]
        let (id, files) = try await Self.renderOutputs(outputs, plain: ["mp3", "ogg", "flac"], preset: preset, on: server)
        #expect(files.map { $0["bitrateKbps"] as? Int } == [64, nil, nil])
        #expect(files.map { $0["quality"] as? Double } == [nil, 0.1, nil])
        let mp3 = try await server.request("GET", "/v1/renders/\(id)/audio/mp3")
        #expect(abs(Double(mp3.body.count) - 4 * 8000) < 2500, "\(mp3.body.count) bytes at 64 kbit/s")
        let cases: [(Any, String, String)] = [
            (["format": "ogg", "quality": 2], "outputs[0]", "quality 2.0 is not from 0 to 1"),
            (["format": "mp3", "quality": 0.5, "bitrateKbps": 64], "outputs[0]", "not both"),
            (["format": "mp3", "bitrateKbps": 1000], "outputs[0]", "not from 6 to 512"),
            (["format": "ogg", "bitrateKbps": 64], "outputs[0]", ""),
        ]
        for (output, path, words) in cases {
            let reply = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": [output]])
            #expect(reply.status == 422 && reply.object["jsonPath"] as? String == path, "\(output): \(reply.object)")
            #expect(words.isEmpty || (reply.object["detail"] as? String)?.contains(words) == true, "\(reply.object)")
        }
    }

    /// Renders `preset` to `outputs` on `server` and answers its id and its result's outputs, having checked that the same
    /// formats without their own settings (`plain`) are another render (each output's settings are part of the id).
    static func renderOutputs(_ outputs: [Any], plain: [String], preset: [String: Any],
                              on server: ServerProcess) async throws -> (id: String, files: [[String: Any]]) {
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": outputs])
        #expect(submitted.status == 202, "\(String(decoding: submitted.body, as: UTF8.self))")
        let id = try #require(submitted.object["id"] as? String)
        let other = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": plain])
        #expect(other.object["id"] as? String != id, "each output's settings are part of the render's id")
        let done = try await server.waitForRender(id)
        #expect(done.object["state"] as? String == "succeeded", "\(String(decoding: done.body, as: UTF8.self))")
        return (id, try #require((done.object["result"] as? [String: Any])?["outputs"] as? [[String: Any]]))
    }

    /// Each output at its own rate, channels and loudness (issue 56): a 16 kHz mono WAV beside the 22.05 kHz stereo FLAC is the
    /// FLAC's mix converted (the two channels' mean through libsoxr's very-high-quality resampler), listed with its rate
    /// and channels, with an id of its own; a quieter copy holds its own loudness; what cannot be is a 422 naming the output.
    @Test func eachOutputMayHaveItsOwnRateChannelsAndLoudness() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        var preset = Self.shortPreset(seed: 62, seconds: 3)
        preset["output"] = ["sampleRate": 22050, "bitDepth": 24]
        let outputs: [Any] = ["flac", ["format": "wav", "sampleRate": 16000, "channels": 1], ["format": "mp3", "channels": 1, "bitrateKbps": 64]]
        let (id, files) = try await Self.renderOutputs(outputs, plain: ["flac", "wav", "mp3"], preset: preset, on: server)
        #expect(files.map { $0["sampleRate"] as? Int } == [22050, 16000, 22050])
        #expect(files.map { $0["channels"] as? Int } == [2, 1, 1])
        let folder = server.state.appendingPathComponent("converted")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for format in ["wav", "mp3"] {
            let served = try await server.request("GET", "/v1/renders/\(id)/audio/\(format)")
            try served.body.write(to: folder.appendingPathComponent("served.\(format)"))
        }
        let wav = try AudioFile.open(path: folder.appendingPathComponent("served.wav").path)
        #expect(wav.sampleRate == 16000 && wav.channelCount == 1 && wav.frameCount == 3 * 16000)
        let mp3 = try AudioFile.open(path: folder.appendingPathComponent("served.mp3").path)
        #expect(mp3.sampleRate == 22050 && mp3.channelCount == 1)
        // The WAV is the FLAC's mix converted here the same way.
        let served = try await server.request("GET", "/v1/renders/\(id)/audio/flac")
        try served.body.write(to: folder.appendingPathComponent("served.flac"))
        let stereo = try decodedSamples(folder.appendingPathComponent("served.flac").path)
        var mono = [Float](repeating: 0, count: stereo.count / 2)
        for i in mono.indices { mono[i] = (stereo[2 * i] + stereo[2 * i + 1]) / 2 }
        let expected = try soxrConverted(mono, from: 22050, to: 16000)
        let got = try readAll(wav)
        let compared = min(expected.count, got.count)
        #expect(compared >= 3 * 16000 - 1)
        // The FLAC holds the mix at 24 bits, the WAV was converted from it in float: within a few of the FLAC's steps.
        let worst = (0..<compared).map { abs(got[$0] - expected[$0]) }.max() ?? 1
        #expect(worst < 1e-5, "largest difference \(worst)")
        let cases: [(Any, String)] = [
            (["format": "wav", "channels": 3], "channels 3 is not 1 or 2"),
            (["format": "wav", "sampleRate": 4000], "sample rate 4000 Hz is not from 8000 to 192000"),
            (["format": "mp3", "sampleRate": 96000], "96000"),
        ]
        for (output, words) in cases {
            let reply = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": [output]])
            #expect(reply.status == 422 && reply.object["jsonPath"] as? String == "outputs[0]", "\(output): \(reply.object)")
            #expect((reply.object["detail"] as? String)?.contains(words) == true, "\(reply.object)")
        }
        // A quieter copy: the render at -14 LUFS, the second file at -23, each measured in the file.
        let loudnesses: [Any] = ["flac", ["format": "ogg", "loudness": -23]]
        let quiet = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": loudnesses, "overrides": ["loudness": -14]])
        #expect(quiet.status == 202, "\(quiet.object)")
        let quietDone = try await server.waitForRender(try #require(quiet.object["id"] as? String))
        let measured = ((quietDone.object["result"] as? [String: Any])?["outputs"] as? [[String: Any]])?.map { $0["integratedLoudness"] as? Double }
        #expect(measured?.count == 2 && abs((measured?[0] ?? 0) - -14) < 0.5 && abs((measured?[1] ?? 0) - -23) < 0.5, "\(measured ?? [])")
        for (overrides, words) in [(["loudness": -20], "louder than the render's -20.0 LUFS"), ([:], "needs the render normalised")] {
            let louder = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": [["format": "ogg", "loudness": -16]], "overrides": overrides])
            #expect(louder.status == 422 && louder.object["jsonPath"] as? String == "outputs[0]"
                    && (louder.object["detail"] as? String)?.contains(words) == true, "\(louder.object)")
        }
        let beats: [String: Any] = ["duration": "2s", "tracks": [["binaural": ["carrierHz": 200, "beatHz": 6]]]]
        let mono2 = try await server.request("POST", "/v1/renders", json: ["preset": beats, "outputs": [["format": "m4a", "channels": 1]]])
        #expect(mono2.status == 422 && (mono2.object["detail"] as? String)?.contains("binaural beats") == true, "\(mono2.object)")
    }

    /// Several outputs from one render (issue 56): four files and a waveform from one job, each file the CLI's render of
    /// that format (byte for byte: the same encoders on the same samples), each served at its own URL with its type.
    @Test func oneRenderWritesEveryOutputAsTheCLIWouldAlone() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let formats = ["m4a", "opus", "flac", "mp3"]
        // A format that cannot take the render is the request's fault, named by its place in the list.
        let refused = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 3), "outputs": formats])
        #expect(refused.status == 422 && refused.object["jsonPath"] as? String == "outputs[1]"
                && "\(refused.object["detail"] ?? "")".contains("22050 Hz"), "\(refused.object)")
        var preset = Self.shortPreset(seed: 3)
        preset["output"] = ["sampleRate": 24000]
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": formats])
        #expect(submitted.status == 202, "\(submitted.object)")
        let id = try #require(submitted.object["id"] as? String)
        let done = try await server.waitForRender(id)
        #expect(done.object["state"] as? String == "succeeded", "\(String(decoding: done.body, as: UTF8.self))")
        #expect(done.object["format"] as? String == "m4a")
        let result = try #require(done.object["result"] as? [String: Any])
        let outputs = try #require(result["outputs"] as? [[String: Any]])
        #expect(outputs.map { $0["format"] as? String } == formats)

        let folder = server.state.appendingPathComponent("cli-outputs")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let presetFile = folder.appendingPathComponent("short.json")
        try JSONSerialization.data(withJSONObject: preset).write(to: presetFile)
        var keys: [String] = []
        for (format, output) in zip(formats, outputs) {
            let url = try #require(output["url"] as? String)
            #expect(url == "/v1/renders/\(id)/audio/\(format)")
            let served = try await server.request("GET", url)
            #expect(served.status == 200)
            #expect(served.header("Content-Type") == output["contentType"] as? String)
            #expect(served.header("Content-Disposition")?.hasSuffix(".\(format)\"") == true, "\(served.header("Content-Disposition") ?? "")")
            #expect(output["bytes"] as? Int == served.body.count)
            #expect(output["sha256"] as? String == SHA256.hash(data: served.body).map { String(format: "%02x", $0) }.joined())
            let cli = try CLI.run([presetFile.path, "-o", folder.appendingPathComponent("short.\(format)").path, "--quiet"])
            #expect(cli.status == 0, "\(cli.stderr)")
            let alone = try Data(contentsOf: folder.appendingPathComponent("short.\(format)"))
            if format == "opus" {
                // An Ogg stream's serial number is random: the decoded audio is the same.
                let servedFile = folder.appendingPathComponent("served.opus")
                try served.body.write(to: servedFile)
                #expect(try decodedSamples(servedFile.path) == decodedSamples(folder.appendingPathComponent("short.opus").path))
            } else {
                #expect(alone == served.body, "\(format): \(served.body.count) bytes served, \(alone.count) from the CLI")
            }
            let key = try CLI.run(["key", presetFile.path, "--format", format])
            #expect(output["id"] as? String == key.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "\(format)'s id is its file key")
            keys.append(key.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(!keys.contains(id), "several outputs make a job of their own")
        // The first output is the render's `/audio`; a format it did not write is 404; the waveform is there.
        let first = try await server.request("GET", "/v1/renders/\(id)/audio")
        #expect(first.status == 200 && first.header("Content-Type") == "audio/mp4")
        let missing = try await server.request("GET", "/v1/renders/\(id)/audio/wav")
        #expect(missing.status == 404 && "\(missing.object["detail"] ?? "")".contains("m4a, opus, flac, mp3"), "\(missing.object)")
        let waveform = try await server.request("GET", "/v1/renders/\(id)/waveform")
        #expect(waveform.status == 200 && (waveform.object["data"] as? [Int])?.isEmpty == false)
        // The client's report lists every file by its name, never by the server's path.
        let report = try await server.request("GET", "/v1/renders/\(id)/report")
        let listed = try #require(report.object["outputs"] as? [[String: Any]])
        #expect(listed.map { $0["path"] as? String } == formats.map { "audio.\($0)" })
        // The same outputs again are the same job; in another order, another.
        let again = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": formats])
        #expect(again.object["id"] as? String == id)
        let reordered = try await server.request("POST", "/v1/renders", json: ["preset": preset, "outputs": Array(formats.reversed())])
        #expect(reordered.object["id"] as? String != id)
    }

    /// With one render at a time, an interactive request made after twenty background ones is the next to render:
    /// when it has succeeded, no background render has, and at most one has started (each takes seconds).
    @Test func anInteractiveRenderOvertakesTwentyQueuedBackgroundRenders() async throws {
        let server = try ServerProcess.start(arguments: ["--jobs", "1", "--jobs-per-token", "40"])
        defer { server.stop() }
        // The one worker is busy while the queue fills; cancelled once it is full, it frees the worker at once.
        let long = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 51, hours: 3), "format": "flac"])
        let longID = try #require(long.object["id"] as? String)
        try await waitUntilRendering(server, longID)
        var background: [String] = []
        for seed in 100..<120 {
            let queued = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: seed, minutes: 20),
                                                                               "format": "flac", "priority": "background"])
            #expect(queued.status == 202, "\(queued.object)")
            background.append(try #require(queued.object["id"] as? String))
        }
        let urgent = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 99), "format": "flac"])
        let urgentID = try #require(urgent.object["id"] as? String)
        #expect(try await server.request("DELETE", "/v1/renders/\(longID)").status == 200)
        let done = try await server.waitForRender(urgentID, seconds: 300)
        #expect(done.object["state"] as? String == "succeeded")
        var states: [String] = []
        for id in background {
            states.append(try await server.request("GET", "/v1/renders/\(id)").object["state"] as? String ?? "?")
        }
        #expect(!states.contains("succeeded") && states.filter { $0 == "rendering" }.count <= 1, "\(states)")
        #expect(states.filter { $0 == "queued" }.count >= 19, "\(states)")

        let misspelt = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 98), "priority": "urgent"])
        #expect(misspelt.status == 400)
        #expect(misspelt.object["jsonPath"] as? String == "priority", "\(misspelt.object)")
    }

    @Test func theSameRequestTwiceIsOneRender() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let body: [String: Any] = ["preset": Self.shortPreset(seed: 3), "format": "flac"]
        let first = try await server.request("POST", "/v1/renders", json: body)
        #expect(first.status == 202)
        let id = try #require(first.object["id"] as? String)
        _ = try await server.waitForRender(id)
        let second = try await server.request("POST", "/v1/renders", json: body)
        #expect(second.status == 200)
        #expect(second.object["id"] as? String == id)
        #expect(second.object["state"] as? String == "succeeded")
        // Spelt differently, the same render: key order, "2s" as 2.
        var respelt = Self.shortPreset(seed: 3)
        respelt["duration"] = 2
        let third = try await server.request("POST", "/v1/renders", json: ["format": "flac", "preset": respelt])
        #expect(third.object["id"] as? String == id)
        let metrics = try await server.request("GET", "/metrics", token: "")
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("mixrender_renders_total 1"), "\(text)")
    }

    @Test func eventsStreamProgressAndEndWithTheFinalState() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        // Five minutes of Ogg (a few seconds' work), to be caught rendering, so that the stream has more than the
        // final state. A test process starved by the suites beside it has opened the stream 15 s after submitting
        // (in a CI run): a render that ended first gives the final state alone, and then one four and one twelve
        // times as long is submitted (another seed, so another render), until one is caught.
        var text = "", blocks: [String] = []
        for (attempt, seconds) in [300, 1200, 3600].enumerated() {
            let preset = Self.shortPreset(seed: 4 + attempt, seconds: seconds)
            let submitted = try await server.request("POST", "/v1/renders", json: ["preset": preset, "format": "ogg"])
            let id = try #require(submitted.object["id"] as? String)
            let events = try await server.request("GET", "/v1/renders/\(id)/events", timeout: 600)
            #expect(events.status == 200)
            #expect(events.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            text = String(decoding: events.body, as: UTF8.self)
            blocks = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            if blocks.count >= 2 { break }
        }
        #expect(blocks.count >= 2, "\(text)")
        let last = try #require(blocks.last)
        #expect(last.contains("event: state"))
        #expect(last.contains("\"state\":\"succeeded\""), "\(last)")
    }

    @Test func aCancelStopsTheRenderAndLeavesNothing() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(), "format": "flac"])
        let id = try #require(submitted.object["id"] as? String)
        try await waitUntilRendering(server, id)
        let cancelled = try await server.request("DELETE", "/v1/renders/\(id)")
        #expect(cancelled.status == 200)
        #expect(cancelled.object["state"] as? String == "cancelled")
        // Deleted means gone for this token (HTTP's DELETE): its id and files are 404, a second DELETE too.
        #expect(try await server.request("GET", "/v1/renders/\(id)").status == 404)
        #expect(try await server.request("GET", "/v1/renders/\(id)/audio").status == 404)
        #expect(try await server.request("DELETE", "/v1/renders/\(id)").status == 404)
        // Nothing of it is left in the results folder, not even a partial one.
        try await Task.sleep(for: .seconds(1))
        let results = server.state.appendingPathComponent("results")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: results.path)) ?? []
        #expect(left.filter { !$0.hasPrefix(".") || $0.hasPrefix(".partial") }.isEmpty, "\(left)")
    }

    /// DELETE of a finished render: the deleting token gets 404 for it from then on, another token that submitted the
    /// same request keeps it, and the files go when the last token that owns it deletes it.
    @Test func aDeletedRenderIsGoneForItsTokenAndItsFilesGoWithTheLastOwner() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let made = try CLI.run(["serve", "--new-token", "other-app", "--state", server.state.path])
        let other = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await Task.sleep(for: .seconds(1.5))   // the server reads the tokens file again when it changes
        let request: [String: Any] = ["preset": Self.shortPreset(seed: 81), "format": "wav"]
        let id = try #require(try await server.request("POST", "/v1/renders", json: request).object["id"] as? String)
        #expect(try await server.request("POST", "/v1/renders", json: request, token: other).object["id"] as? String == id)
        #expect(try await server.waitForRender(id).object["state"] as? String == "succeeded")

        let deleted = try await server.request("DELETE", "/v1/renders/\(id)")
        #expect(deleted.status == 200 && deleted.object["state"] as? String == "succeeded", "\(deleted.object)")
        for path in ["/v1/renders/\(id)", "/v1/renders/\(id)/audio", "/v1/renders/\(id)/report"] {
            #expect(try await server.request("GET", path).status == 404, "\(path) after DELETE")
        }
        #expect(try await server.request("DELETE", "/v1/renders/\(id)").status == 404)
        // The other token still has it, files included.
        #expect(try await server.request("GET", "/v1/renders/\(id)/audio", token: other).status == 200)
        let results = server.state.appendingPathComponent("results")
        #expect(FileManager.default.fileExists(atPath: results.appendingPathComponent(id).path))
        // The last owner deletes it: its files go at once.
        #expect(try await server.request("DELETE", "/v1/renders/\(id)", token: other).status == 200)
        #expect(!FileManager.default.fileExists(atPath: results.appendingPathComponent(id).path), "the files outlived every owner")
        // Submitting it again renders it again.
        let again = try await server.request("POST", "/v1/renders", json: request)
        #expect(again.status == 202, "\(again.object)")
        #expect(try await server.waitForRender(id).object["state"] as? String == "succeeded")
    }

    /// `--forget-after`: a finished render is forgotten, record and files, once that time has passed.
    @Test func aFinishedRenderIsForgottenAfterItsTime() async throws {
        let server = try ServerProcess.start(arguments: ["--forget-after", "2s"])
        defer { server.stop() }
        let id = try #require(try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 82), "format": "wav"])
            .object["id"] as? String)
        #expect(try await server.waitForRender(id).object["state"] as? String == "succeeded")
        let deadline = Date() + 30
        var status = 200
        while Date() < deadline, status != 404 {
            try await Task.sleep(for: .milliseconds(250))
            status = try await server.request("GET", "/v1/renders/\(id)").status
        }
        #expect(status == 404, "still there 30 s after it finished, with --forget-after 2s")
        try await Task.sleep(for: .milliseconds(500))
        let left = (try? FileManager.default.contentsOfDirectory(atPath: server.state.appendingPathComponent("results").path)) ?? []
        #expect(!left.contains(id), "its files outlived its record")
    }

    @Test func aWrongPresetIsAnsweredWithItsJSONPath() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        var preset = Self.shortPreset()
        preset["tracks"] = [["generator": ["type": "pink"], "gainDb": 99]]
        let wrong = try await server.request("POST", "/v1/renders", json: ["preset": preset])
        #expect(wrong.status == 422)
        #expect(wrong.header("Content-Type")?.hasPrefix("application/problem+json") == true)
        #expect(wrong.object["jsonPath"] as? String == "preset.tracks[0].gainDb", "\(wrong.object)")
        #expect((wrong.object["detail"] as? String)?.hasPrefix("preset.tracks[0].gainDb: ") == true)
        let misspelt = try await server.request("POST", "/v1/renders", json: ["preset": ["duration": "2s", "trakcs": []]])
        #expect(misspelt.status == 422)
        #expect((misspelt.object["detail"] as? String)?.contains("trakcs") == true)
        let override = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(), "overrides": ["durationSeconds": -1]])
        #expect(override.status == 422)
        #expect(override.object["jsonPath"] as? String == "overrides.durationSeconds", "\(override.object)")
        let notJSON = try await server.request("POST", "/v1/renders", body: Data("{\"preset\": ".utf8), headers: ["Content-Type": "application/json"])
        #expect(notJSON.status == 400)
        let validated = try await server.request("POST", "/v1/validate", json: ["preset": preset])
        #expect(validated.status == 200)
        #expect(validated.object["valid"] as? Bool == false)
        #expect((validated.object["error"] as? [String: Any])?["jsonPath"] as? String == "preset.tracks[0].gainDb")
        let valid = try await server.request("POST", "/v1/validate", json: ["preset": Self.shortPreset()])
        #expect(valid.object["valid"] as? Bool == true)
        #expect(valid.object["durationSeconds"] as? Double == 2)
    }

    /// A session whose bed is a mix preset in an operator's folder (issue 56): the bed's own sounds are found beside
    /// it, as a preset file's are; a fault inside the bed is named at the request's `bed`, with the bed's name and its
    /// own path; a bed cannot reach outside the operator's folders.
    @Test func aSessionsBedInAnOperatorsFolderFindsItsOwnSounds() async throws {
        let scratch = try TemporaryFolder(prefix: "mixrender-serve-test")
        defer { withExtendedLifetime(scratch) {} }
        let library = scratch.url.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library.appendingPathComponent("beds/sounds"), withIntermediateDirectories: true)
        try Self.wavBytes(seconds: 1, sampleRate: 22050).write(to: library.appendingPathComponent("beds/sounds/hum.wav"))
        try Self.wavBytes(seconds: 1, sampleRate: 22050).write(to: library.appendingPathComponent("voice.wav"))
        try Data(#"{"duration": "10s", "tracks": [{"generator": {"type": "brown", "seed": 2}, "gainDb": -12}, {"file": "sounds/hum.wav", "loop": true, "gainDb": -18}]}"#.utf8)
            .write(to: library.appendingPathComponent("beds/night.json"))
        try Data(#"{"duration": "10s", "tracks": [{"generator": {"type": "pink"}}, {"file": "sounds/missing.wav"}]}"#.utf8)
            .write(to: library.appendingPathComponent("beds/broken.json"))
        try Data(#"{"duration": "10s", "tracks": [{"file": "../voice.wav"}]}"#.utf8)
            .write(to: library.appendingPathComponent("beds/escaping.json"))
        let server = try ServerProcess.start(arguments: ["--sounds", "library=\(library.path)"])
        defer { server.stop() }
        func session(bed: String) -> [String: Any] {
            ["output": ["sampleRate": 22050], "bed": bed, "voice": ["levelDb": -20],
             "sections": [["name": "One", "segments": [["file": "library/voice.wav", "gapBefore": 0.5]]]]]
        }
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": session(bed: "library/beds/night.json"), "format": "wav"])
        #expect(submitted.status == 202, "\(submitted.object)")
        let id = try #require(submitted.object["id"] as? String)
        let done = try await server.waitForRender(id)
        #expect(done.object["state"] as? String == "succeeded", "\(String(decoding: done.body, as: UTF8.self))")
        for (bed, fragment) in [("library/beds/broken.json", "in the bed 'library/beds/broken.json': tracks[1].file"),
                                ("library/beds/escaping.json", "'..'")] {
            let refused = try await server.request("POST", "/v1/renders", json: ["preset": session(bed: bed), "format": "wav"])
            #expect(refused.status == 422 && refused.object["jsonPath"] as? String == "preset.bed", "\(bed): \(refused.object)")
            let detail = refused.object["detail"] as? String ?? ""
            #expect(detail.contains(fragment) && !detail.contains(scratch.url.path), "\(bed): \(detail)")
        }
    }

    @Test func soundsAreUploadedByHashOrTakenFromTheOperatorsFoldersAndNothingElse() async throws {
        let scratch = try TemporaryFolder(prefix: "mixrender-serve-test")
        defer { withExtendedLifetime(scratch) {} }
        let folder = scratch.url
        let library = folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library.appendingPathComponent("rain"), withIntermediateDirectories: true)
        let tone = Self.wavBytes(seconds: 1, sampleRate: 22050)
        try tone.write(to: library.appendingPathComponent("rain/soft.wav"))
        try Data("secret".utf8).write(to: folder.appendingPathComponent("outside.wav"))
        try FileManager.default.createSymbolicLink(atPath: library.appendingPathComponent("escape.wav").path,
                                                   withDestinationPath: folder.appendingPathComponent("outside.wav").path)
        let server = try ServerProcess.start(arguments: ["--sounds", "library=\(library.path)"])
        defer { server.stop() }

        let listed = try await server.request("GET", "/v1/sounds")
        #expect(listed.object["sounds"] as? [String] == ["library/escape.wav", "library/rain/soft.wav"] || listed.object["sounds"] as? [String] == ["library/rain/soft.wav"])
        func render(_ file: String) async throws -> ServerProcess.Reply {
            try await server.request("POST", "/v1/renders", json: [
                "preset": ["duration": "1s", "output": ["sampleRate": 22050], "tracks": [["file": file]]], "format": "wav"])
        }
        let named = try await render("library/rain/soft.wav")
        #expect(named.status == 202, "\(named.object)")
        for hostile in ["../outside.wav", "/etc/passwd", "library/../outside.wav", "library/escape.wav", "elsewhere/rain.wav",
                        "library/rain", "library/./rain/soft.wav", "~/x.wav", "sha256:0000"] {
            let refused = try await render(hostile)
            #expect(refused.status == 422, "\(hostile): \(refused.object)")
            #expect(refused.object["jsonPath"] as? String == "preset.tracks[0].file", "\(hostile): \(refused.object)")
            let detail = refused.object["detail"] as? String ?? ""
            #expect(!detail.contains(folder.path), "the server's paths stay hidden: \(detail)")
        }

        let hash = SHA256.hash(data: tone).map { String(format: "%02x", $0) }.joined()
        let uploaded = try await server.request("PUT", "/v1/sounds/\(hash)", body: tone, headers: ["Content-Type": "application/octet-stream"])
        #expect(uploaded.status == 201, "\(uploaded.object)")
        #expect(uploaded.object["name"] as? String == "sha256:\(hash)")
        let again = try await server.request("PUT", "/v1/sounds/\(hash)", body: tone, headers: ["Content-Type": "application/octet-stream"])
        #expect(again.status == 200)
        var other = tone
        other[other.count - 1] ^= 1
        let mismatched = try await server.request("PUT", "/v1/sounds/\(hash.replacingOccurrences(of: "a", with: "b"))", body: other,
                                                  headers: ["Content-Type": "application/octet-stream"])
        #expect(mismatched.status == 422, "\(mismatched.object)")
        let byHash = try await render("sha256:\(hash)")
        #expect(byHash.status == 202 || byHash.status == 200, "\(byHash.object)")
        let id = try #require(byHash.object["id"] as? String)
        let done = try await server.waitForRender(id)
        #expect(done.object["state"] as? String == "succeeded")

        // The report a client reads names each file as a client does, never by a path of the server. (The same
        // sound by its hash and by its name is one render: the key is the content's.)
        let namedID = try #require(named.object["id"] as? String)
        #expect(namedID == id)
        let report = try await server.request("GET", "/v1/renders/\(id)/report")
        #expect(report.status == 200)
        let text = String(decoding: report.body, as: UTF8.self)
        #expect(!text.contains(server.state.path) && !text.contains(folder.path) && !text.contains("/tmp/"), "the report names no path of the server: \(text)")
        let inputs = (report.object["inputs"] as? [[String: Any]])?.compactMap { $0["path"] as? String } ?? []
        #expect(inputs == ["library/rain/soft.wav"] || inputs == ["sha256:\(hash)"], "\(text)")
        #expect((report.object["output"] as? [String: Any])?["path"] as? String == "audio.wav", "\(text)")
    }

    @Test func tokensGuardEveryCallAndEachTokenSeesOnlyItsOwnRenders() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let second = try CLI.run(["serve", "--new-token", "second-app", "--state", server.state.path])
        #expect(second.status == 0, "\(second.stderr)")
        let otherToken = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The server reads the tokens file again when it changes.
        try await Task.sleep(for: .seconds(1.5))
        let none = try await server.request("GET", "/v1/sounds", token: "")
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let wrong = try await server.request("GET", "/v1/sounds", token: "mxr_not-a-token")
        #expect(wrong.status == 401)
        let mine = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 9)])
        let id = try #require(mine.object["id"] as? String)
        let theirs = try await server.request("GET", "/v1/renders/\(id)", token: otherToken)
        #expect(theirs.status == 404)
        let theirAudio = try await server.request("GET", "/v1/renders/\(id)/audio", token: otherToken)
        #expect(theirAudio.status == 404)
        let theirCancel = try await server.request("DELETE", "/v1/renders/\(id)", token: otherToken)
        #expect(theirCancel.status == 404)
        #expect(try await server.request("GET", "/v1/renders/\(id)").status == 200)
    }

    @Test func limitsAreAnsweredWith413And422And429() async throws {
        let server = try ServerProcess.start(arguments: ["--max-body", "2K", "--jobs-per-token", "1", "--max-duration", "4h",
                                                         "--max-tracks", "2", "--jobs", "1"])
        defer { server.stop() }
        let huge = try await server.request("POST", "/v1/renders", json: ["preset": ["duration": "1s", "name": String(repeating: "x", count: 4000), "tracks": []]])
        #expect(huge.status == 413)
        let tooLong = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(hours: 5)])
        #expect(tooLong.status == 422)
        #expect(tooLong.object["jsonPath"] as? String == "preset.duration")
        let tooMany = try await server.request("POST", "/v1/renders", json: ["preset": ["duration": "1s", "tracks": Array(repeating: ["generator": ["type": "pink"]], count: 3)]])
        #expect(tooMany.status == 422)
        #expect(tooMany.object["jsonPath"] as? String == "preset.tracks")
        let first = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 1)])
        #expect(first.status == 202)
        let again = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 1)])
        #expect(again.status == 200, "the same request is never refused")
        let second = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 2)])
        #expect(second.status == 429)
        #expect(Int(second.header("Retry-After") ?? "") ?? 0 >= 1)
        if let id = first.object["id"] as? String { _ = try await server.request("DELETE", "/v1/renders/\(id)") }
    }

    @Test func theQueueLengthAndTheUploadSizeAreLimits() async throws {
        let server = try ServerProcess.start(arguments: ["--queue-length", "1", "--jobs", "1", "--max-upload", "1K"])
        defer { server.stop() }
        let rendering = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 71)])
        let renderingID = try #require(rendering.object["id"] as? String)
        try await waitUntilRendering(server, renderingID)
        let queued = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 72)])
        #expect(queued.status == 202)
        let refused = try await server.request("POST", "/v1/renders", json: ["preset": Self.longPreset(seed: 73)])
        #expect(refused.status == 429)
        #expect((refused.object["detail"] as? String)?.contains("queue") == true)
        #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
        let big = Self.wavBytes(seconds: 1, sampleRate: 8000)
        let hash = SHA256.hash(data: big).map { String(format: "%02x", $0) }.joined()
        let upload = try await server.request("PUT", "/v1/sounds/\(hash)", body: big, headers: ["Content-Type": "application/octet-stream"])
        #expect(upload.status == 413)
        #expect(try await server.request("GET", "/v1/sounds/\(hash)").status == 404, "nothing of it is kept")
        for reply in [rendering, queued] {
            if let id = reply.object["id"] as? String { _ = try await server.request("DELETE", "/v1/renders/\(id)") }
        }
    }

    @Test func aResultEvictedByTheBudgetIsRenderedAgainWhenAskedAgain() async throws {
        let server = try ServerProcess.start(arguments: ["--store-budget", "1K"])
        defer { server.stop() }
        let first = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 61), "format": "wav"])
        let firstID = try #require(first.object["id"] as? String)
        #expect(try await server.waitForRender(firstID).object["state"] as? String == "succeeded")
        let second = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 62), "format": "wav"])
        let secondID = try #require(second.object["id"] as? String)
        #expect(try await server.waitForRender(secondID).object["state"] as? String == "succeeded")
        // The second result pushed the first out (each is larger than the budget; the newest is kept while it is written).
        let gone = try await server.request("GET", "/v1/renders/\(firstID)/audio")
        #expect(gone.status == 409)
        #expect((gone.object["detail"] as? String)?.contains("submit it again") == true)
        let again = try await server.request("POST", "/v1/renders", json: ["preset": Self.shortPreset(seed: 61), "format": "wav"])
        #expect(again.status == 202)
        #expect(try await server.waitForRender(firstID).object["state"] as? String == "succeeded")
        #expect(try await server.request("GET", "/v1/renders/\(firstID)/audio").status == 200)
    }

    @Test func operationsAnswerHealthReadinessMetricsTheDocumentAndThePage() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        #expect(try await server.request("GET", "/healthz", token: "").status == 200)
        #expect(try await server.request("GET", "/readyz", token: "").status == 200)
        let metrics = try await server.request("GET", "/metrics", token: "")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("mixrender_jobs_queued"))
        let document = try await server.request("GET", "/openapi.yaml", token: "")
        #expect(String(decoding: document.body, as: UTF8.self).contains("operationId: createRender"))
        let page = try await server.request("GET", "/", token: "")
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        let schema = try await server.request("GET", "/v1/schema", token: "")
        #expect(schema.status == 200)
        #expect(schema.object["$schema"] != nil)
    }

    /// A 16-bit mono WAV file of a 440 Hz sine, made here (its header written by hand, RIFF/WAVE PCM).
    static func wavBytes(seconds: Double, sampleRate: Int) -> Data {
        let frames = Int(seconds * Double(sampleRate))
        var data = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + frames * 2); data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(1); u32(sampleRate); u32(sampleRate * 2); u16(2); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(frames * 2)
        for n in 0..<frames {
            let sample = Int16(8000 * sin(2 * Double.pi * 440 * Double(n) / Double(sampleRate)))
            withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Waits until the render is rendering with some progress.
    func waitUntilRendering(_ server: ServerProcess, _ id: String, seconds: Double = 120) async throws {
        let deadline = Date() + seconds
        while Date() < deadline {
            let reply = try await server.request("GET", "/v1/renders/\(id)")
            if reply.object["state"] as? String == "rendering",
               let fraction = (reply.object["progress"] as? [String: Any])?["fraction"] as? Double, fraction > 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerError("render \(id) did not start within \(seconds) s")
    }
}

/// `samples` (one channel) converted from `rate` to `target` by libsoxr's very-high-quality recipe, flushed to the end.
func soxrConverted(_ samples: [Float], from rate: Int, to target: Int) throws -> [Float] {
    let resampler = try SoxrResampler(channelCount: 1, inputRate: rate, outputRate: target, quality: .soxrVHQ)
    var output = [Float](repeating: 0, count: samples.count * target / rate + 4096)
    var consumed = 0, produced = 0
    try samples.withUnsafeBufferPointer { input in
        try output.withUnsafeMutableBufferPointer { out in
            while true {
                let step = try resampler.process(input: input.baseAddress! + consumed, inputFrames: input.count - consumed,
                                                 output: out.baseAddress! + produced, outputCapacity: out.count - produced, endOfInput: true)
                consumed += step.consumed
                produced += step.produced
                if step.produced == 0 { break }
            }
        }
    }
    return Array(output.prefix(produced))
}

/// The decoded samples of the audio file at `path` (the library's reader), to compare two encodings of one render.
func decodedSamples(_ path: String) throws -> [Float] {
    try readAll(try AudioFile.open(path: path))
}
