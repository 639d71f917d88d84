import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import DSPTestSupport
import TestSupport
import Testing

/// A server whose disk fills or turns read-only, on small tmpfs file systems mounted for the test (CI runs as root,
/// which may mount): it says so as a server fault a client retries (`503` with `Retry-After`, never the `400` or
/// `429` it answered before), `/readyz` is not ready while it lasts and ready again after, no answer names a
/// server path, and a render that fills its results disk fails saying why, without the path.
@Suite(.serialized) struct StorageFaultTests {
    /// The state folder on one small disk, which fills; the results and uploads on another, which turns read-only (a
    /// file system with a file open for writing, as SQLite keeps its database, cannot be remounted read-only).
    @Test func aFullOrReadOnlyDiskIsAServerFaultThatPasses() async throws {
        let stateDisk = try Tmpfs(megabytes: 48), filesDisk = try Tmpfs(megabytes: 48)
        let files = filesDisk.folder.url
        let server = try ServerProcess.start(state: stateDisk.folder, arguments: [
            "--min-free-space", "8M", "--results", files.appendingPathComponent("results").path,
            "--uploads", files.appendingPathComponent("sounds").path])
        defer { server.stop() }
        let mounts = [stateDisk.folder.url.path, files.path]

        #expect(try await server.request("GET", "/readyz", token: "").status == 200)
        let tone = RenderServiceTests.wavBytes(seconds: 1, sampleRate: 22050)
        let hash = SHA256.hash(data: tone).map { String(format: "%02x", $0) }.joined()

        // Full: a file takes all but 2 MiB of the state folder's disk.
        let filler = stateDisk.folder.url.appendingPathComponent("filler")
        try stateDisk.fill(filler, leavingBytes: 2 << 20)
        try await Self.expectRefused(server, words: "the state folder's disk is full", mounts: mounts, tone: tone, hash: hash)

        // Freed: taken again, with no restart.
        try FileManager.default.removeItem(at: filler)
        #expect(try await server.request("GET", "/readyz", token: "").status == 200)
        let after = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.shortPreset(seed: 42), "format": "wav"])
        let id = try #require(after.object["id"] as? String, "\(after.status) \(after.object)")
        #expect(after.status == 202)
        #expect(try await server.waitForRender(id).object["state"] as? String == "succeeded")
        let stored = try await server.request("PUT", "/v1/sounds/\(hash)", body: tone, headers: ["Content-Type": "application/octet-stream"])
        #expect(stored.status == 201, "\(stored.object)")

        // Read-only: the results and uploads.
        try filesDisk.remount(readOnly: true)
        try await Self.expectRefused(server, words: "the results folder is on a read-only file system", mounts: mounts, tone: tone,
                                     hash: String(hash.reversed()))
        try filesDisk.remount(readOnly: false)
        #expect(try await server.request("GET", "/readyz", token: "").status == 200)
        // What was stored before is still served.
        #expect(try await server.request("GET", "/v1/renders/\(id)/audio").status == 200)
    }

    /// While a disk cannot store: `/readyz` not ready saying why, a new render and an upload answered 503 with
    /// `Retry-After` and the same words, and no answer names a server path.
    static func expectRefused(_ server: ServerProcess, words: String, mounts: [String], tone: Data, hash: String) async throws {
        let ready = try await server.request("GET", "/readyz", token: "")
        let readyText = String(decoding: ready.body, as: UTF8.self)
        #expect(ready.status == 503 && readyText.contains(words), "\(ready.status) \(readyText)")
        let render = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.shortPreset(seed: 43), "format": "wav"])
        let renderDetail = render.object["detail"] as? String ?? ""
        #expect(render.status == 503 && render.header("Retry-After") != nil, "\(render.status) \(render.object)")
        #expect(renderDetail.contains("cannot store") && renderDetail.contains(words), "\(renderDetail)")
        let upload = try await server.request("PUT", "/v1/sounds/\(hash)", body: tone, headers: ["Content-Type": "application/octet-stream"])
        #expect(upload.status == 503 && upload.header("Retry-After") != nil, "\(upload.status) \(upload.object)")
        for answer in [readyText, String(decoding: render.body, as: UTF8.self), String(decoding: upload.body, as: UTF8.self)] {
            #expect(!mounts.contains { answer.contains($0) }, "a server path in an answer: \(answer)")
        }
    }

    /// A render larger than its results folder's disk fails saying the disk is full, naming no server path; the
    /// server goes on.
    @Test func aRenderThatFillsItsResultsDiskFailsWithoutNamingIt() async throws {
        let results = try Tmpfs(megabytes: 24)
        let server = try ServerProcess.start(arguments: ["--results", results.folder.url.path, "--min-free-space", "1M"])
        defer { server.stop() }
        // Three hours of brown noise as FLAC: about a gigabyte.
        let submitted = try await server.request("POST", "/v1/renders", json: ["preset": RenderServiceTests.longPreset(seed: 44, hours: 3), "format": "flac"])
        let id = try #require(submitted.object["id"] as? String, "\(submitted.object)")
        let done = try await server.waitForRender(id, seconds: 300)
        #expect(done.object["state"] as? String == "failed", "\(done.object)")
        let detail = (done.object["error"] as? [String: Any])?["detail"] as? String ?? ""
        #expect(detail.hasPrefix("the server could not write the result: ") && detail.contains("no space left") && !detail.contains(results.folder.url.path), "\(detail)")
        #expect(try await server.request("GET", "/healthz", token: "").status == 200)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: results.folder.url.path)) ?? []
        #expect(left.isEmpty, "the failed render's partial files are removed: \(left)")
    }
}

/// A tmpfs of `megabytes` mounted on a new temporary folder for as long as this value lives (unmounted lazily at the
/// end, so a server still holding a file cannot keep it). Mounting needs root, as CI has.
final class Tmpfs {
    let folder: TemporaryFolder

    init(megabytes: Int) throws {
        folder = try TemporaryFolder(prefix: "mixrender-tmpfs-test")
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", folder.url.path],
                     why: "mounting a tmpfs needs root (CI runs as root)")
    }

    func remount(readOnly: Bool) throws {
        try Self.run("/bin/mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", folder.url.path], why: "remount")
    }

    /// Writes `url` until the file system has about `leavingBytes` left.
    func fill(_ url: URL, leavingBytes: Int64) throws {
        var status = statvfs()
        guard statvfs(folder.url.path, &status) == 0 else { throw ServerError("statvfs \(folder.url.path): errno \(errno)") }
        let available = Int64(status.f_bavail) * Int64(status.f_frsize)
        let chunk = Data(count: 1 << 20)
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var written: Int64 = 0
        while written + Int64(chunk.count) <= available - leavingBytes {
            try handle.write(contentsOf: chunk)
            written += Int64(chunk.count)
        }
        try handle.synchronize()
    }

    deinit {
        _ = try? Self.run("/bin/umount", ["-l", folder.url.path], why: "unmount")
    }

    private static func run(_ program: String, _ arguments: [String], why: String) throws {
        let result = try CLI.run(arguments, program: URL(fileURLWithPath: program))
        guard result.status == 0 else {
            throw ServerError("\(program) \(arguments.joined(separator: " ")): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)) (\(why))")
        }
    }
}
