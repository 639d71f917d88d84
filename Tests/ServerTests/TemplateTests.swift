import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// Templates over HTTP (issue 56): published once and never changed, filled with a user's variables (hostile ones
/// refused or spoken as text), and a token limited to templates that renders nothing else.
@Suite(.serialized) struct TemplateTests {
    /// A short session whose greeting speaks the user's name and goal.
    static func template(version: Int = 1, greeting: String = "Hello {{firstName}}.") -> [String: Any] {
        ["template": "calm", "version": version,
         "variables": [
            "firstName": ["type": "text", "minLength": 1, "maxLength": 40, "characters": "name"],
            "goal": ["type": "text", "maxLength": 200, "default": "I rest."],
            "background": ["type": "choice", "values": ["brown", "pink"], "default": "pink"],
            "level": ["type": "number", "minimum": -30, "maximum": -6, "default": -18],
         ],
         "preset": [
            "output": ["sampleRate": 22050],
            "voice": ["speech": ["voice": "espeak:en-us"]],
            "tracks": [["name": "bed", "generator": ["type": "{{background}}", "seed": 5], "gainDb": "{{level}}"]],
            "sections": [["name": "Greeting for {{firstName}}", "segments": [
                ["text": greeting, "pauseAfter": "1s"], ["text": "{{goal}}", "pauseAfter": "1s"]]]],
         ]]
    }

    /// Every `text` member's string in a JSON document.
    static func texts(in value: Any) -> [String] {
        if let object = value as? [String: Any] {
            return (object["text"] as? String).map { [$0] } ?? [] + object.values.flatMap { texts(in: $0) }
        }
        if let array = value as? [Any] { return array.flatMap { texts(in: $0) } }
        return []
    }

    @Test func aTemplateIsPublishedOnceAndNeverChanges() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        let created = try await server.request("PUT", "/v1/templates/calm/versions/1", json: Self.template())
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        #expect(Set(created.object["variables"] as? [String] ?? []) == ["firstName", "goal", "background", "level"])
        #expect(try await server.request("PUT", "/v1/templates/calm/versions/1", json: Self.template()).status == 200)
        let changed = try await server.request("PUT", "/v1/templates/calm/versions/1", json: Self.template(greeting: "Hi {{firstName}}."))
        #expect(changed.status == 409 && (changed.object["detail"] as? String)?.contains("publish it as version 2") == true)
        #expect(try await server.request("PUT", "/v1/templates/calm/versions/2", json: Self.template(version: 2, greeting: "Hi {{firstName}}.")).status == 201)
        let mismatch = try await server.request("PUT", "/v1/templates/other/versions/1", json: Self.template())
        #expect(mismatch.status == 422 && mismatch.object["jsonPath"] as? String == "template")
        var misplaced = Self.template(version: 3)
        misplaced["preset"] = ["tracks": [["file": "{{firstName}}.ogg"]], "sections": [["segments": [["text": "{{goal}} {{background}} {{level}}"]]]]]
        let refused = try await server.request("PUT", "/v1/templates/calm/versions/3", json: misplaced)
        #expect(refused.status == 422 && refused.object["jsonPath"] as? String == "preset.tracks[0].file", "\(refused.object)")
        #expect((refused.object["detail"] as? String)?.contains("may only be spoken or shown") == true)

        let listed = try await server.request("GET", "/v1/templates")
        let templates = try #require(listed.object["templates"] as? [[String: Any]])
        #expect(templates.map { $0["name"] as? String } == ["calm"] && templates.first?["versions"] as? [Int] == [1, 2])
        let fetched = try await server.request("GET", "/v1/templates/calm/versions/1")
        #expect(fetched.status == 200 && fetched.object["template"] as? String == "calm")
        #expect(try await server.request("GET", "/v1/templates/calm/versions/9").status == 404)
    }

    @Test func variablesFillTheTemplateAndHostileOnesAreRefusedOrSpokenAsText() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        #expect(try await server.request("PUT", "/v1/templates/calm/versions/1", json: Self.template()).status == 201)
        // The key an app's users can reach renders this template and nothing else.
        let made = try CLI.run(["serve", "--new-token", "app-users", "--templates-only", "calm", "--state", server.state.path])
        let limited = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(limited.hasPrefix("mxr_"))
        try await Task.sleep(for: .seconds(1.5))   // the server reads the tokens file again when it changes

        func render(_ variables: [String: Any], token: String? = nil) async throws -> ServerProcess.Reply {
            try await server.request("POST", "/v1/renders", json: ["template": ["name": "calm", "version": 1], "variables": variables,
                                                                  "format": "wav"], token: token)
        }
        let markup = #"<break time="30s"/> & <audio src="x"/>"#
        let first = try await render(["firstName": "Ann", "goal": markup], token: limited)
        #expect(first.status == 202, "\(String(decoding: first.body, as: UTF8.self))")
        let id = try #require(first.object["id"] as? String)
        // Two users with the same choices share one render: its id is the filled preset's.
        let same = try await render(["goal": markup, "firstName": "Ann"])
        #expect(same.object["id"] as? String == id)
        let other = try await render(["firstName": "Bea", "goal": markup])
        #expect(other.object["id"] as? String != id)

        let finished = try await server.waitForRender(id, token: limited)
        #expect(finished.object["state"] as? String == "succeeded", "\(finished.object)")
        // The result names the voice heard, with its licence and credit, for the app to show.
        let credits = try #require(finished.object["voices"] as? [[String: Any]], "\(finished.object)")
        #expect(credits.map { $0["id"] as? String } == ["espeak:en-us"] && credits.first?["quality"] as? String == "draft"
                && !(credits.first?["licence"] as? String ?? "").isEmpty && !(credits.first?["attribution"] as? String ?? "").isEmpty, "\(credits)")
        // Spoken as text: the markup is the segment's words, not a 30 s break.
        let timeline = try await server.request("GET", "/v1/renders/\(id)/timeline", token: limited)
        let text = String(decoding: timeline.body, as: UTF8.self)
        let spoken = Self.texts(in: try JSONSerialization.jsonObject(with: timeline.body))
        #expect(spoken.contains("Hello Ann.") && spoken.contains(markup), "\(text.prefix(600))")
        let duration = try #require(finished.object["durationSeconds"] as? Double)
        #expect(duration < 30, "the markup became a break: \(duration) s")

        // Hostile or wrong values are refused naming the variable.
        let cases: [([String: Any], String, String)] = [
            (["firstName": "An\u{202E}n"], "variables.firstName", "bidirectional control character"),
            (["firstName": "Ann", "goal": String(repeating: "x", count: 100_000)], "variables.goal", "at most 200"),
            (["firstName": "Ann", "goal": "two\u{0}lines"], "variables.goal", "control character"),
            (["firstName": "Ann", "background": "/etc/passwd"], "variables.background", "must be one of 'brown', 'pink'"),
            (["firstName": "Ann", "level": 0], "variables.level", "from -30 to -6"),
            (["firstName": "Ann", "nope": 1], "variables.nope", "is not a variable of template 'calm'"),
            ([:], "variables.firstName", "is required"),
        ]
        for (variables, path, words) in cases {
            let reply = try await render(variables, token: limited)
            #expect(reply.status == 422, "\(path): \(reply.status)")
            #expect(reply.object["jsonPath"] as? String == path, "\(reply.object)")
            #expect((reply.object["detail"] as? String)?.contains(words) == true, "\(reply.object)")
        }
        // A text that names a file or another variable is spoken, never opened or expanded.
        let named = try await render(["firstName": "Ann", "goal": "../../../etc/passwd {{firstName}}"], token: limited)
        #expect(named.status == 202)
        let namedID = try #require(named.object["id"] as? String)
        #expect(try await server.waitForRender(namedID, token: limited).object["state"] as? String == "succeeded")

        // The limited token does nothing but render its templates.
        let preset = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.shortPreset(seed: 9)], token: limited)
        #expect(preset.status == 403 && (preset.object["detail"] as? String)?.contains("renders only templates") == true)
        #expect(try await server.request("PUT", "/v1/templates/calm/versions/2", json: Self.template(version: 2), token: limited).status == 403)
        let sound = try await server.request("PUT", "/v1/sounds/" + String(repeating: "a", count: 64), body: Data([1, 2, 3]), token: limited,
                                             headers: ["Content-Type": "application/octet-stream"])
        #expect(sound.status == 403)
        #expect(try await server.request("POST", "/v1/validate", json: ["preset": RenderServiceTests.shortPreset(seed: 9)], token: limited).status == 403)
        let validated = try await server.request("POST", "/v1/validate", json: ["template": ["name": "calm", "version": 1], "variables": ["firstName": "Ann"]],
                                                 token: limited)
        #expect(validated.status == 200 && validated.object["valid"] as? Bool == true, "\(validated.object)")
        // Both forms at once, and variables without a template, are refused.
        let both = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.shortPreset(seed: 9),
                                                                       "template": ["name": "calm", "version": 1]])
        #expect(both.status == 422 && both.object["jsonPath"] as? String == "template")
        let loose = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.shortPreset(seed: 9), "variables": ["a": 1]])
        #expect(loose.status == 422 && loose.object["jsonPath"] as? String == "variables")
        #expect(try await server.request("POST", "/v1/renders", json: ["template": ["name": "absent", "version": 1]]).status == 404)
    }
}
