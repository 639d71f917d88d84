import Foundation
import Testing
import MixIO
@testable import MixServer

@Suite struct ResultStoreTests {
    /// Writes a result `id` of `bytes` bytes (two files, one in a sub-folder), last used at `used`.
    private func put(_ store: ResultStore, _ id: String, bytes: Int, used: Date) throws {
        let partial = try store.makePartial()
        try write(String(repeating: "a", count: bytes - bytes / 4), to: partial + "/audio.m4a")
        try write(String(repeating: "b", count: bytes / 4), to: partial + "/extra/report.json")
        #expect(try store.commit(partial, as: id, now: used))
    }

    private func date(_ seconds: TimeInterval) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + seconds) }

    @Test func commitPutsAWholeResultInPlace() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            let partial = try store.makePartial()
            #expect(partial.hasPrefix(store.folder + "/.partial-"))
            #expect(store.path(of: "r1") == nil)
            try write("audio", to: partial + "/audio.m4a")
            #expect(store.path(of: "r1") == nil)
            #expect(try store.commit(partial, as: "r1"))
            #expect(store.path(of: "r1") == store.folder + "/r1")
            #expect(entries(store.folder) == ["r1"])
            #expect(try String(contentsOfFile: store.folder + "/r1/audio.m4a", encoding: .utf8) == "audio")
            // The same result finished again elsewhere: the one in place stays, the new one goes.
            let again = try store.makePartial()
            try write("other", to: again + "/audio.m4a")
            #expect(try store.commit(again, as: "r1") == false)
            #expect(entries(store.folder) == ["r1"])
            #expect(try String(contentsOfFile: store.folder + "/r1/audio.m4a", encoding: .utf8) == "audio")
        }
    }

    @Test func refusesBadIDsAndForeignFolders() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            let partial = try store.makePartial()
            for id in ["", "..", "a/b", ".partial-x", "a b", String(repeating: "a", count: 129)] {
                #expect(throws: ResultStoreError.self) { try store.commit(partial, as: id) }
                #expect(store.path(of: id) == nil)
            }
            try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
            #expect(throws: ResultStoreError.self) { try store.commit(folder + "/elsewhere", as: "x") }
            #expect(throws: ResultStoreError.self) { try store.commit(store.folder + "/.partial-x/../../elsewhere", as: "x") }
            #expect(FileSystem.entry(at: folder + "/elsewhere")?.kind == .folder)
            #expect(throws: ResultStoreError.self) { try store.touch("missing") }
        }
    }

    @Test func budgetDeletesLeastRecentlyUsedFirst() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            try put(store, "a", bytes: 1000, used: date(0))
            try put(store, "b", bytes: 1000, used: date(10))
            try put(store, "c", bytes: 1000, used: date(20))
            try put(store, "d", bytes: 1000, used: date(30))
            #expect(store.results().map(\.bytes).reduce(0, +) == 4000)
            // Using "a" makes it the newest.
            try store.touch("a", now: date(40))
            #expect(store.enforceBudget(bytes: 4000, keeping: []) == [])
            #expect(store.enforceBudget(bytes: 2500, keeping: []) == ["b", "c"])
            #expect(entries(store.folder) == ["a", "d"])
            #expect(store.results().map(\.bytes).reduce(0, +) == 2000)
        }
    }

    @Test func budgetNeverDeletesWhatIsKept() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            try put(store, "a", bytes: 1000, used: date(0))
            try put(store, "b", bytes: 1000, used: date(10))
            try put(store, "c", bytes: 1000, used: date(20))
            #expect(store.enforceBudget(bytes: 1500, keeping: ["a"]) == ["b", "c"])
            #expect(entries(store.folder) == ["a"])
            // Over budget with only kept results: they stay.
            #expect(store.enforceBudget(bytes: 0, keeping: ["a"]) == [])
            #expect(entries(store.folder) == ["a"])
            #expect(store.enforceBudget(bytes: 0, keeping: []) == ["a"])
            #expect(entries(store.folder).isEmpty)
        }
    }

    @Test func budgetIgnoresPartials() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            try put(store, "a", bytes: 1000, used: date(0))
            let partial = try store.makePartial()
            try write(String(repeating: "x", count: 5000), to: partial + "/audio.m4a")
            #expect(store.enforceBudget(bytes: 1000, keeping: []) == [])
            #expect(FileSystem.entry(at: partial)?.kind == .folder)
        }
    }

    @Test func sweepDeletesOnlyStalePartials() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            try put(store, "a", bytes: 100, used: date(0))
            let now = Date()
            let stale = try store.makePartial()
            try write("old", to: stale + "/sub/audio.m4a")
            for path in [stale, stale + "/sub", stale + "/sub/audio.m4a"] {
                try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-7200)], ofItemAtPath: path)
            }
            // A long render: its folder is old, but a file in it is being written now.
            let writing = try store.makePartial()
            try write("growing", to: writing + "/audio.m4a")
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-7200)], ofItemAtPath: writing)
            let fresh = try store.makePartial()
            try FileManager.default.createDirectory(atPath: store.folder + "/.deleting-x/y", withIntermediateDirectories: true)
            #expect(store.sweepPartials(now: now) == 2)
            #expect(entries(store.folder) == [String(writing.split(separator: "/").last!), String(fresh.split(separator: "/").last!), "a"].sorted())
        }
    }

    @Test func discardAndDelete() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            let partial = try store.makePartial()
            try write("x", to: partial + "/audio.m4a")
            store.discard(partial)
            #expect(entries(store.folder).isEmpty)
            try put(store, "a", bytes: 100, used: date(0))
            #expect(store.delete("a"))
            #expect(!store.delete("a"))
            #expect(entries(store.folder).isEmpty)
        }
    }

    @Test func touchSetsTheLastUse() async throws {
        try await withTemporaryFolder { folder in
            let store = try ResultStore(folder: folder + "/results")
            try put(store, "a", bytes: 100, used: date(5))
            #expect(store.results().first?.lastUsed == date(5))
            try store.touch("a", now: date(99.5))
            #expect(store.results().first?.lastUsed == date(99.5))
        }
    }
}
