import Foundation
import MixRender
import Testing
@testable import MixServer

/// A job stores its request as the API's generated type and reads it back with the same type and the same mapping.
@Suite struct RenderSpecTests {
    static func request(_ json: String) throws -> Components.Schemas.RenderRequest {
        try JSONDecoder().decode(Components.Schemas.RenderRequest.self, from: Data(json.utf8))
    }

    @Test func aStoredRequestReadsBackAsTheSameRender() throws {
        let given = try Self.request(#"""
            {"preset": {"name": "Night", "duration": "2s", "tracks": [{"generator": {"type": "pink", "seed": 4}, "gainDb": -6.5}]},
             "format": "flac", "settings": {"sampleRate": 44100, "quality": 0.5},
             "overrides": {"durationSeconds": 1.25, "loudness": -18, "loopable": true},
             "webhook": {"url": "https://example.com/hook"}}
            """#)
        let spec = try RenderSpec(request: given)
        #expect(spec.name == "Night")   // the preset's own name, where the request gives none
        #expect(spec.format == .flac)
        #expect(spec.overrides.sampleRate == 44100 && spec.overrides.quality == 0.5)
        #expect(spec.overrides.durationSeconds == 1.25 && spec.overrides.loudnessTarget == -18 && spec.overrides.loopable)
        // The webhook is the owner's, not the render's: it is not stored.
        #expect(!spec.storedRequest.contains("example.com"))
        let read = try RenderSpec(storedRequest: spec.storedRequest)
        #expect(read.preset == spec.preset)
        #expect(read.name == spec.name && read.format == spec.format && read.overrides == spec.overrides)
        #expect(read.storedRequest == spec.storedRequest)
    }

    /// `outputs`: several formats from one render, each once, never beside `format`; stored and read back in order.
    @Test func outputsAreSeveralFormatsEachOnce() throws {
        let preset = #"{"duration": "1s", "tracks": []}"#
        let spec = try RenderSpec(request: try Self.request(#"{"preset": \#(preset), "outputs": ["opus", "m4a", "flac"]}"#))
        #expect(spec.formats == [.opus, .m4a, .flac] && spec.format == .opus)
        #expect(try RenderSpec(storedRequest: spec.storedRequest).formats == spec.formats)
        #expect(try RenderSpec(request: try Self.request(#"{"preset": \#(preset)}"#)).formats == [.m4a])
        // What the document forbids is a 400 (schemathesis sends it to /v1/validate too, which answers a 422 as its
        // result); the rule it cannot say is a 422, after those.
        for (outputs, path, fragment, status) in [(#""outputs": []"#, "outputs", "empty", 400),
                                                  (#""outputs": ["m4a", "ogg", "m4a"]"#, "outputs[2]", "second time", 400),
                                                  (#""outputs": ["caf", "caf"], "format": "ogg""#, "outputs[1]", "second time", 400),
                                                  (#""outputs": ["m4a"], "format": "ogg""#, "outputs", "format", 422),
                                                  (#""outputs": ["m4a", "ogg", "opus", "mp3", "flac", "wav", "caf", "aiff", "m4a"]"#, "outputs", "at most 8", 400)] {
            let error = try #require(throws: ServiceError.self) { try RenderSpec(request: try Self.request(#"{"preset": \#(preset), \#(outputs)}"#)) }
            let problem = HTTPProblem(error)
            #expect(problem.status == status, "\(outputs): \(problem.status)")
            #expect(problem.jsonPath == path && "\(problem.detail)".contains(fragment), "\(outputs): \(problem.jsonPath ?? "") \(problem.detail)")
        }
    }

    /// Jobs stored before the request was the generated type (members `preset`, `name`, `format`, `settings`,
    /// `overrides`, the same names) read as they did.
    @Test func anEarlierStoredFormReads() throws {
        let stored = #"{"preset":{"duration":"1s","tracks":[]},"name":"preset","format":"wav","settings":{"bitrateKbps":128},"overrides":{"startSeconds":0.5}}"#
        let spec = try RenderSpec(storedRequest: stored)
        #expect(spec.format == .wav && spec.name == "preset")
        #expect(spec.overrides.bitrateKbps == 128 && spec.overrides.startSeconds == 0.5)
    }

    @Test func aDamagedStoredRequestIsAnInternalFaultNamingWhere() throws {
        for (stored, words) in [("not json", "JSON"), (#"{"preset":{},"format":"wma"}"#, "format"),
                                (#"{"preset":{},"overrides":{"durationSeconds":"long"}}"#, "overrides.durationSeconds"),
                                (#"{"format":"wav"}"#, "preset")] {
            let error = #expect(throws: ServiceError.self) { try RenderSpec(storedRequest: stored) }
            guard case .internalFault(let detail)? = error else { Issue.record("\(stored): \(String(describing: error))"); continue }
            #expect(detail.contains(words), "\(stored): \(detail)")
        }
    }

    @Test func aNameIsBoundedAndPlain() throws {
        let long = String(repeating: "a", count: RenderSpec.longestName + 1)
        let tooLong = #expect(throws: ServiceError.self) { try RenderSpec(request: Self.request(#"{"preset":{},"name":"\#(long)"}"#)) }
        #expect(tooLong == .malformed(jsonPath: "name", reason: "has \(RenderSpec.longestName + 1) characters; a name has at most \(RenderSpec.longestName)"))
        let control = #expect(throws: ServiceError.self) { try RenderSpec(request: Self.request(#"{"preset":{},"name":"a\u0007b"}"#)) }
        #expect(control == .invalid(jsonPath: "name", reason: "a name cannot hold control characters"))
    }
}
