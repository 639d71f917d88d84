import Glibc

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
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    private static func status(_ key: String) -> Double {
        guard let file = fopen("/proc/self/status", "r") else { return .nan }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(cString: line)
            if text.hasPrefix(key) {
                let kib = text.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) } ?? .nan
                return kib / 1024
            }
        }
        return .nan
    }
}
