// glibc's `stderr` is a C global `var`, which Swift 6 cannot prove safe to read. It is set before `main` and never
// reassigned, and stdio locks each `FILE` itself: this file alone imports Glibc with `@preconcurrency` to say so.
@preconcurrency import Glibc

/// stdio's standard error stream.
var standardErrorStream: UnsafeMutablePointer<FILE> { stderr }
