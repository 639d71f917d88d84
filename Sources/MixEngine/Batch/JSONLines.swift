import MixIO

/// A JSON Lines file (one JSON value per line), as batches read job lists and results files.
/// Stateless.
enum JSONLines {
    /// The file's lines that hold more than spaces, tabs and a carriage return, with their numbers from 1, each
    /// without that surrounding space. The file must be a regular one of at most `maximumBytes`
    /// (`FileSystem.readDocument`): a device or a FIFO is refused, never read or waited on.
    static func read(path: String, maximumBytes: Int) throws -> [(number: Int, bytes: ArraySlice<UInt8>)] {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        var lines: [(number: Int, bytes: ArraySlice<UInt8>)] = []
        for (k, line) in try FileSystem.readDocument(path: path, maximumBytes: maximumBytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            guard let first = line.firstIndex(where: { !isSpace($0) }), let last = line.lastIndex(where: { !isSpace($0) }) else { continue }
            lines.append((k + 1, line[first...last]))
        }
        return lines
    }
}
