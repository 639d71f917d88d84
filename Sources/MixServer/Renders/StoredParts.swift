import Foundation
import MixIO

/// What a status call reads out of a job's stored JSON, parsed once per job and kept: whether its request asked for a
/// stream (part of its id, so it never changes for that id) and its result (kept with the text it was read from, so a
/// job rendered again is read again). A status call under load otherwise decoded both every time (a JSON decode of
/// the whole request, preset and all, for one flag).
///
/// Layout: a dictionary by job id under a `Locked` (a pthread mutex), emptied when it holds `capacity` jobs (the jobs
/// clients follow now are the ones asked about again). `Sendable`.
final class StoredParts: Sendable {
    private struct Entry {
        var streams: Bool
        var resultText: String?
        var result: StoredResult?
    }

    private let entries = Locked<[String: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 4096) { self.capacity = capacity }

    /// Whether `record`'s request asked for a stream (`RenderSpec.streams`).
    func streams(_ record: JobRecord) -> Bool {
        if let known = entries.withLock({ $0[record.id]?.streams }) { return known }
        let streams = RenderSpec.streams(storedRequest: record.request)
        keep(record.id) { $0?.streams = streams } make: { Entry(streams: streams) }
        return streams
    }

    /// `record`'s result, decoded (nil when it has none, or it cannot be read).
    func result(_ record: JobRecord) -> StoredResult? {
        guard let text = record.result else { return nil }
        if let known = entries.withLock({ entry -> StoredResult?? in
            guard let entry = entry[record.id], entry.resultText == text else { return nil }
            return .some(entry.result)
        }) { return known }
        let result = try? JSONDecoder().decode(StoredResult.self, from: Data(text.utf8))
        let streams = streams(record)
        keep(record.id) { entry in
            entry?.resultText = text
            entry?.result = result
        } make: { Entry(streams: streams, resultText: text, result: result) }
        return result
    }

    private func keep(_ id: String, change: (inout Entry?) -> Void, make: () -> Entry) {
        entries.withLock { entries in
            if entries[id] == nil {
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[id] = make()
            } else {
                change(&entries[id])
            }
        }
    }
}
