import MixIO  // CPUClock

/// The calling thread's CPU time cut into consecutive laps: each `lap()` reads the thread's CPU clock once and
/// returns the CPU seconds since the read before, so no time falls between two laps or is counted twice. The render
/// loop's one way to time its stages: the clock is a system call, so a block's stages share reads (the mix's end is
/// the chain's start) rather than reading it around each. Made and used on one thread.
struct ThreadCPULaps {
    private var last = CPUClock.thread

    /// CPU seconds this thread spent since the last read (or since `init`).
    mutating func lap() -> Double {
        let now = CPUClock.thread
        defer { last = now }
        return now - last
    }

    /// Starts the next lap now, leaving the time since the last read uncounted (spent on other threads' behalf).
    mutating func skip() { last = CPUClock.thread }
}
