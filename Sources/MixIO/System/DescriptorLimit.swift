import Glibc

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), which bounds how many connections a server can
/// hold besides its files.
public enum DescriptorLimit {
    /// Raises the soft limit to the hard one, as Go's runtime and nginx's `worker_rlimit_nofile` do (systemd gives a
    /// service 1,024 soft against 524,288 hard), and returns the soft limit now in force; nil when it cannot be read.
    /// An infinite limit is reported as `Int.max`.
    @discardableResult
    public static func raiseToHard() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)   // RLIM_INFINITY is all ones
    }
}
