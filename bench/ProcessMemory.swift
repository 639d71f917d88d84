import MixIO

/// Resident memory of this process, from /proc/self/status.
enum ProcessMemory {
    /// VmHWM, the peak resident set size, in MiB.
    static var peakMiB: Double { status("VmHWM:") }
    /// VmRSS, the current resident set size, in MiB.
    static var currentMiB: Double { status("VmRSS:") }

    /// Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs, Linux >= 4.0),
    /// so the next `peakMiB` is the peak of what runs in between. Returns false if it cannot.
    @discardableResult
    static func resetPeak() -> Bool {
        (try? FileSystem.writeFile(path: "/proc/self/clear_refs", bytes: [UInt8(ascii: "5")], mustExist: true)) != nil
    }

    /// VmHWM of another process, in MiB; 0 when it cannot be read (the process has exited, or not yet exec'd
    /// into a program of its own).
    static func peakMiB(ofProcess pid: Int32) -> Double {
        let value = status("VmHWM:", path: "/proc/\(pid)/status")
        return value.isNaN ? 0 : value
    }

    private static func status(_ key: String, path: String = "/proc/self/status") -> Double {
        guard let bytes = try? FileSystem.readDocument(path: path, maximumBytes: 1 << 20) else { return .nan }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(key) {
            let kib = line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) } ?? .nan
            return kib / 1024
        }
        return .nan
    }
}
