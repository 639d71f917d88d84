// glibc's `stdout` is a C global `var`, which Swift 6 cannot prove safe to read. It is set before `main` and never
// reassigned (mixrender never calls `freopen` on it), and stdio locks each `FILE` itself, so reading the pointer
// from any thread is safe: this file alone imports Glibc with `@preconcurrency` to say so.
@preconcurrency import Glibc

/// stdio's standard output stream.
var standardOutputStream: UnsafeMutablePointer<FILE> { stdout }
