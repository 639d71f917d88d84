import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What the server says about a request that does not fit its OpenAPI document, where the generated code alone
/// would be silent or vague: a method a path does not take, a number that does not fit, a null member, a name too
/// long; and what a render is called when the request does not name it.
@Suite(.serialized) struct RequestShapeTests {
    static var preset: [String: Any] { ["name": "Short one", "duration": "1s", "output": ["sampleRate": 22050],
                                        "tracks": [["generator": ["type": "pink", "seed": 3], "gainDb": -12]]] }

    /// `POST /v1/validate` with `text` as the body, as JSON.
    static func validate(_ server: ServerProcess, _ text: String) async throws -> ServerProcess.Reply {
        try await server.request("POST", "/v1/validate", body: Data(text.utf8), headers: ["Content-Type": "application/json"])
    }

    @Test func aMethodAPathDoesNotTakeIsAnswered405WithAllow() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let health = try await server.request("PUT", "/healthz", body: Data())
        #expect(health.status == 405)
        #expect(health.header("Allow") == "GET")
        #expect(health.header("Content-Type") == "application/problem+json")
        let render = try await server.request("PATCH", "/v1/renders/\(String(repeating: "a", count: 64))", body: Data())
        #expect(render.status == 405)
        #expect(render.header("Allow")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.sorted() == ["DELETE", "GET"])
        let audio = try await server.request("DELETE", "/v1/renders/abc/audio")
        #expect(audio.status == 405)
        #expect(audio.header("Allow")?.contains("HEAD") == true)
        #expect(try await server.request("GET", "/v1/nothing").status == 404, "an unknown path is still 404")
    }

    @Test func aBodyThatDoesNotFitNamesWhereAndWhy() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let preset = String(decoding: try JSONSerialization.data(withJSONObject: Self.preset), as: UTF8.self)
        let cases: [(body: String, path: String?, words: String)] = [
            (#"{"preset": \#(preset), "settings": {"quality": 0.5, "sampleRate": 44100.5}}"#, "settings.sampleRate", "whole number"),
            (#"{"preset": \#(preset), "settings": {"bitrateKbps": 1e30}}"#, "settings.bitrateKbps", "64 bits"),
            (#"{"preset": \#(preset), "settings": {"sampleRate": "fast"}}"#, "settings.sampleRate", "string"),
            (#"{"preset": \#(preset), "webhook": null}"#, "webhook", "null"),
            (#"{"format": "mp3", "preset": null}"#, "preset", "null"),
            (#"{"preset": \#(preset), "overrides": {"loudness": null}}"#, "overrides.loudness", "null"),
            (#"{"preset": \#(preset), "colour": "blue"}"#, "colour", "not a member"),
            (#"{"preset": \#(preset), "name": "\#(String(repeating: "n", count: 201))"}"#, "name", "at most 200"),
            (#"{"preset": {"duration": "1s""#, nil, "line 1"),
            // I-JSON: a key twice is refused, wherever it is, rather than one of the two taken silently.
            (#"{"preset": \#(preset), "format": "wav", "format": "flac"}"#, "format", "appears twice"),
            (#"{"preset": {"duration": "1s", "tracks": [{"generator": {"type": "pink"}, "gainDb": -9, "gainDb": 0}]}}"#,
             "preset.tracks[0].gainDb", "appears twice"),
        ]
        for (body, path, words) in cases {
            let reply = try await Self.validate(server, body)
            let problem = reply.object
            #expect(reply.status == 400, "\(body.prefix(80)): \(String(decoding: reply.body, as: UTF8.self))")
            #expect(problem["jsonPath"] as? String == path, "\(problem)")
            #expect((problem["detail"] as? String)?.contains(words) == true, "\(problem)")
        }
        // Null inside the preset is the preset's to judge (422 at its path), not the request's shape.
        let inPreset = try await Self.validate(server, #"{"preset": {"duration": "1s", "tracks": null}}"#)
        #expect(inPreset.status == 200)
        #expect(((inPreset.object["error"] as? [String: Any])?["jsonPath"] as? String)?.hasPrefix("preset") == true,
                "\(String(decoding: inPreset.body, as: UTF8.self))")
        // Neither a preset nor a template: the document allows it (either may be given), the server's rule does not.
        let neither = try await Self.validate(server, #"{"format": "wav"}"#)
        let error = neither.object["error"] as? [String: Any]
        #expect(neither.status == 200 && error?["jsonPath"] as? String == "preset" && error?["status"] as? Int == 422, "\(neither.object)")
    }

    /// A URL where a sound's name goes is told how sounds are named, not given a path-scrubbed riddle.
    @Test func aSoundNamedByURLIsToldHowSoundsAreNamed() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let reply = try await Self.validate(server, #"{"preset": {"duration": "1s", "tracks": [{"file": "https://example.com/rain.ogg"}]}}"#)
        let error = try #require(reply.object["error"] as? [String: Any], "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(error["jsonPath"] as? String == "preset.tracks[0].file", "\(error)")
        let reason = error["reason"] as? String ?? ""
        #expect(reason.contains("'FOLDER/path'") && reason.contains("'sha256:<hex>'") && reason.contains("not by URL"), "\(reason)")
    }

    @Test func aRenderIsCalledAfterItsPresetUnlessTheRequestNamesIt() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let unnamed = try await server.request("POST", "/v1/renders", json: ["preset": Self.preset, "format": "wav"])
        #expect(unnamed.object["name"] as? String == "Short one", "\(unnamed.object)")
        let id = try #require(unnamed.object["id"] as? String)
        #expect(try await server.waitForRender(id).object["state"] as? String == "succeeded")
        let audio = try await server.request("HEAD", "/v1/renders/\(id)/audio")
        #expect(audio.header("Content-Disposition") == "attachment; filename=\"Short-one.wav\"")

        let named = try await server.request("POST", "/v1/renders", json: ["preset": Self.preset, "format": "ogg", "name": "Mine"])
        #expect(named.object["name"] as? String == "Mine", "\(named.object)")
    }
}
