import Foundation
import MixIO

/// What a writer that stopped (a server killed mid-render or mid-upload) leaves in a store's folder: entries under a
/// temporary prefix (`.partial-`, `.deleting-`, `.upload-`) that no one will finish. The result store and the sound
/// library sweep them at start and on a timer, with one routine.
enum StaleEntries {
    /// Removes each entry of `folder` named `prefix…` whose newest change (its own, and for a folder that of
    /// everything under it) is more than `age` seconds before `now`, or at any age when `age` is nil (a deletion that
    /// stopped halfway: nothing writes there). Links are removed, never followed. Returns how many are gone.
    @discardableResult
    static func sweep(in folder: String, prefix: String, olderThan age: TimeInterval?, now: Date) -> Int {
        guard let names = try? FileSystem.folderEntries(folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            let path = folder + "/" + name
            if let age, now.timeIntervalSince(newestChange(at: path)) <= age { continue }
            if FileSystem.removeTree(path) { removed += 1 }
        }
        return removed
    }

    /// The latest modification time of `path` and of everything under it.
    static func newestChange(at path: String) -> Date {
        var newest = FileSystem.entry(at: path)?.modified ?? .min
        FileSystem.walk(path) { _, entry in newest = max(newest, entry.modified) }
        return Date(timeIntervalSince1970: TimeInterval(newest) / 1e9)
    }
}
