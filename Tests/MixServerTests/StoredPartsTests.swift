import Foundation
@testable import MixServer
import Testing

/// What status calls read of a job's stored JSON, parsed once a job (`StoredParts`): the stream flag by the job's id (it
/// is part of the id), the result by its text (a job rendered again is read again).
@Suite struct StoredPartsTests {
    static func record(id: String, request: String, result: String? = nil) -> JobRecord {
        JobRecord(id: id, state: result == nil ? .queued : .succeeded, format: "flac", name: "n", request: request,
                  durationSeconds: 1, createdAt: Date(timeIntervalSince1970: 0), attempts: 0, result: result)
    }

    static func result(bytes: Int) -> String {
        #"{"file": "audio.flac", "bytes": \#(bytes), "sha256": "00", "contentType": "audio/flac", "chapters": [], "warnings": []}"#
    }

    @Test func eachJobIsReadOnceAndAgainWhenItsResultChanges() {
        let parts = StoredParts(capacity: 2)
        #expect(parts.streams(Self.record(id: "a", request: #"{"stream": true, "preset": {}}"#)))
        #expect(!parts.streams(Self.record(id: "b", request: #"{"preset": {}}"#)))
        // Kept by id: the flag is part of the id, so the same id never asks otherwise.
        #expect(parts.streams(Self.record(id: "a", request: #"{"preset": {}}"#)))
        #expect(parts.result(Self.record(id: "a", request: "{}", result: Self.result(bytes: 10)))?.bytes == 10)
        #expect(parts.result(Self.record(id: "a", request: "{}", result: Self.result(bytes: 20)))?.bytes == 20)
        #expect(parts.result(Self.record(id: "a", request: "{}", result: "not JSON")) == nil)
        #expect(parts.result(Self.record(id: "b", request: "{}")) == nil)
        // Past its capacity it starts again, and reads again.
        #expect(!parts.streams(Self.record(id: "c", request: #"{"preset": {}}"#)))
        #expect(!parts.streams(Self.record(id: "a", request: #"{"preset": {}}"#)))
    }
}
