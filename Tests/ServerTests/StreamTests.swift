import DSPTestSupport
import Foundation
import MixIO
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// Listening while it renders (issue 56): a render asked for with `stream` is also written as HLS, served while it
/// runs (a growing EVENT playlist) and after (VOD); the segments' audio is the delivered `.m4a`'s. A render not asked
/// for with it writes none (an AAC encoder is not free) and has no stream link.
@Suite(.serialized) struct StreamTests {
    @Test func aRenderCanBeFollowedAsHLSWhileItRendersAndItsSegmentsAreTheFilesAudio() async throws {
        let server = try ServerProcess.start()
        defer { server.stop() }
        // Ten minutes of noise: long enough to be caught rendering in a debug build.
        let preset: [String: Any] = ["duration": "10m", "output": ["sampleRate": 44100],
                                     "tracks": [["generator": ["type": "brown", "seed": 11], "gainDb": -12]]]
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": preset, "format": "m4a", "stream": true])
        let id = try #require(submitted.object["id"] as? String)
        let links = try #require(submitted.object["links"] as? [String: Any])
        #expect(links["stream"] as? String == "/v1/renders/\(id)/stream/index.m3u8")
        #expect(submitted.object["streamURL"] is String)

        // The first segment is served before the render ends, from a growing EVENT playlist.
        var live: String?
        let deadline = Date() + 120
        while Date() < deadline {
            let playlist = try await server.request("GET", "/v1/renders/\(id)/stream/index.m3u8")
            if playlist.status == 200, String(decoding: playlist.body, as: UTF8.self).contains("seg00000.m4s") {
                // A status call that gives no state (a server starved by the suites beside it) is asked again.
                guard let state = try await server.request("GET", "/v1/renders/\(id)").object["state"] as? String else {
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                if state == "rendering" { live = String(decoding: playlist.body, as: UTF8.self) }
                #expect(playlist.header("Content-Type") == "application/vnd.apple.mpegurl")
                #expect(playlist.header("Cache-Control") == "no-cache" || state != "rendering")
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let stateAfter = try await server.request("GET", "/v1/renders/\(id)").object["state"] as? String ?? "none"
        let growing = try #require(live, "no segment was served while the render ran (state now \(stateAfter))")
        #expect(growing.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && !growing.contains("#EXT-X-ENDLIST"))
        let first = try await server.request("GET", "/v1/renders/\(id)/stream/seg00000.m4s")
        #expect(first.status == 200 && first.header("Content-Type") == "audio/mp4")
        #expect(first.header("Cache-Control")?.contains("immutable") == true)

        #expect(try await server.waitForRender(id).object["state"] as? String == "succeeded")
        let playlist = String(decoding: try await server.request("GET", "/v1/renders/\(id)/stream/index.m3u8").body, as: UTF8.self)
        #expect(playlist.contains("#EXT-X-PLAYLIST-TYPE:VOD") && playlist.hasSuffix("#EXT-X-ENDLIST\n"), "\(playlist.suffix(200))")
        let segments = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }.map(String.init)
        #expect(segments.count >= 295 && segments.count <= 305, "\(segments.count) segments of about 2 s for 10 minutes")
        // Segment durations add up to the render's length (within two AAC blocks: the encoder's priming and its last,
        // padded block, and each EXTINF rounded to the microsecond).
        let lines = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
        let durations: [Double] = lines.compactMap { line in Double(line.dropFirst(8).split(separator: ",")[0]) }
        let total: Double = durations.reduce(0, +)
        let block: Double = 2 * 1024.0 / 44100 + 0.001
        #expect(abs(total - 600) < block, "\(total) s")

        // The stream's audio is the file's: the init segment and the media segments joined decode to its samples.
        let folder = try TemporaryFolder()
        var joined = try await server.request("GET", "/v1/renders/\(id)/stream/init.mp4").body
        for segment in segments { joined.append(try await server.request("GET", "/v1/renders/\(id)/stream/\(segment)").body) }
        let streamPath = folder.path("stream.mp4"), filePath = folder.path("audio.m4a")
        try joined.write(to: URL(fileURLWithPath: streamPath))
        try await server.request("GET", "/v1/renders/\(id)/audio").body.write(to: URL(fileURLWithPath: filePath))
        let stream = try readAll(try AudioFile.open(path: streamPath))
        let file = try readAll(try AudioFile.open(path: filePath))
        // The file's edit list drops the encoder's 1024 frames of priming; the stream's may not: find the offset.
        let offset = try #require([0, 1024 * 2].first { offset in
            stream.count >= offset + 2000 && (0..<2000).allSatisfy { stream[offset + $0] == file[$0] }
        }, "the stream's samples do not line up with the file's")
        let compared = min(stream.count - offset, file.count)
        #expect(compared >= file.count - 2 * 2048, "\(stream.count) stream samples against \(file.count)")
        var differing = 0
        for i in 0..<compared where stream[offset + i] != file[i] { differing += 1 }
        #expect(differing == 0, "\(differing) of \(compared) samples differ")

        // The signed URL plays without a token (a player given it by the app's back end), segments beside it.
        let signed = try #require(try await server.request("GET", "/v1/renders/\(id)").object["streamURL"] as? String)
        #expect(signed.hasPrefix("/v1/streams/\(id)/") && signed.hasSuffix("/index.m3u8"))
        let open = try await server.request("GET", signed, token: "")
        #expect(open.status == 200 && String(decoding: open.body, as: UTF8.self) == playlist)
        let beside = String(signed.dropLast("index.m3u8".count)) + "seg00001.m4s"
        #expect(try await server.request("GET", beside, token: "").body == server.request("GET", "/v1/renders/\(id)/stream/seg00001.m4s").body)
        var parts = signed.split(separator: "/").map(String.init)
        parts[4] = String(parts[4].reversed())   // the signature
        #expect(try await server.request("GET", "/" + parts.joined(separator: "/"), token: "").status == 404)
        parts = signed.split(separator: "/").map(String.init)
        parts[3] = String((Int(parts[3]) ?? 0) + 3600)   // a later expiry than was signed
        #expect(try await server.request("GET", "/" + parts.joined(separator: "/"), token: "").status == 404)
        #expect(try await server.request("GET", "/v1/renders/\(id)/stream/index.m3u8", token: "").status == 401)

        // What a stream does not have is a 404 naming what it has.
        let bad = try await server.request("GET", "/v1/renders/\(id)/stream/../../tokens")
        #expect(bad.status == 404 || bad.status == 400)
        let other = try await server.request("GET", "/v1/renders/\(id)/stream/seg99999.m4s")
        #expect(other.status == 404)
        let name = try await server.request("GET", "/v1/renders/\(id)/stream/audio.m4a")
        #expect(name.status == 404 || name.status == 400)

        // The same render without `stream` is another job (the stream is part of the id), with no stream.
        let plain = try await server.request("POST", "/v1/renders", json: ["preset": preset, "format": "m4a"])
        let plainID = try #require(plain.object["id"] as? String)
        #expect(plainID != id)
        #expect((plain.object["links"] as? [String: Any])?["stream"] == nil)
        #expect(plain.object["streamURL"] == nil)
        let none = try await server.request("GET", "/v1/renders/\(plainID)/stream/index.m3u8")
        #expect(none.status == 404)
        #expect(String(decoding: none.body, as: UTF8.self).contains("did not ask for one"))
    }
}
