// _r_debug is the dynamic loader's C global; it is read once, before the bench starts any thread.
@preconcurrency import Glibc

// Counts heap allocations for real, without a C target or linker flags: at start-up, `install()` walks
// every loaded shared object (the loader's `_r_debug` list), finds its GOT slots for malloc, calloc, realloc,
// posix_memalign, aligned_alloc and memalign (R_X86_64_JUMP_SLOT / GLOB_DAT relocations) and points
// them at counting wrappers that forward to glibc's own entry points (__libc_malloc, ...). Every
// allocation made through a library (the Swift runtime, Foundation, libsndfile, libvorbis) is counted.
// (Defining `malloc` in the executable does not work here: Swift gives public symbols protected
// visibility and gold then leaves them out of the dynamic symbol table.)
//
// Allocations on the watched thread (the render loop) are counted exactly; those on every other thread
// go to a second counter without atomics (outside start-up only the encoder thread allocates).

@_silgen_name("__libc_malloc") private func libcMalloc(_ size: Int) -> UnsafeMutableRawPointer?
@_silgen_name("__libc_calloc") private func libcCalloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer?
@_silgen_name("__libc_realloc") private func libcRealloc(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer?
@_silgen_name("__libc_memalign") private func libcMemalign(_ alignment: Int, _ size: Int) -> UnsafeMutableRawPointer?

nonisolated(unsafe) private var watchedThread: pthread_t = 0
nonisolated(unsafe) private var watchedCount: Int = 0
nonisolated(unsafe) private var otherCount: Int = 0
nonisolated(unsafe) private var patchedSlots: Int = 0

@inline(__always) private func countOne() {
    if pthread_self() == watchedThread { watchedCount &+= 1 } else { otherCount &+= 1 }
}

private let countingMalloc: @convention(c) (Int) -> UnsafeMutableRawPointer? = { size in
    countOne(); return libcMalloc(size)
}
private let countingCalloc: @convention(c) (Int, Int) -> UnsafeMutableRawPointer? = { n, size in
    countOne(); return libcCalloc(n, size)
}
private let countingRealloc: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { p, size in
    countOne(); return libcRealloc(p, size)
}
private let countingMemalign: @convention(c) (Int, Int) -> UnsafeMutableRawPointer? = { alignment, size in
    countOne(); return libcMemalign(alignment, size)
}
private let countingPosixMemalign: @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int, Int) -> Int32 = { result, alignment, size in
    countOne()
    guard alignment >= MemoryLayout<UnsafeRawPointer>.size, alignment & (alignment - 1) == 0 else { return EINVAL }
    guard let p = libcMemalign(alignment, size) else { return ENOMEM }
    result?.pointee = p
    return 0
}

/// Heap allocations counted since `install()`.
enum AllocationCounter {
    /// Patches the allocator slots of every loaded library; returns how many slots now count.
    @discardableResult
    static func install() -> Int {
        if patchedSlots > 0 { return patchedSlots }
        let replacements: [(String, UInt)] = [
            ("malloc", unsafeBitCast(countingMalloc, to: UInt.self)),
            ("calloc", unsafeBitCast(countingCalloc, to: UInt.self)),
            ("realloc", unsafeBitCast(countingRealloc, to: UInt.self)),
            ("memalign", unsafeBitCast(countingMemalign, to: UInt.self)),
            ("aligned_alloc", unsafeBitCast(countingMemalign, to: UInt.self)),
            ("posix_memalign", unsafeBitCast(countingPosixMemalign, to: UInt.self)),
        ]
        var context = PatchContext(replacements: replacements)
        // The loader's list of loaded objects (the GNU-only dl_iterate_phdr is not imported).
        var object = _r_debug.r_map
        while let current = object {
            context.patch(base: UInt(current.pointee.l_addr),
                          name: current.pointee.l_name.map { String(cString: $0) } ?? "",
                          dynamic: current.pointee.l_ld)
            object = current.pointee.l_next
        }
        patchedSlots = context.patched
        return patchedSlots
    }

    /// Makes the calling thread the one whose allocations `watched` counts.
    static func watchCurrentThread() { watchedThread = pthread_self() }
    /// Allocations made on the watched thread.
    static var watched: Int { watchedCount }
    /// Allocations made on every other thread.
    static var others: Int { otherCount }
    /// True if allocations are being counted (checked by allocating through the Swift runtime).
    static var isActive: Bool {
        let before = watchedCount &+ otherCount
        let p = UnsafeMutableRawPointer.allocate(byteCount: 24, alignment: 8)
        p.deallocate()
        return watchedCount &+ otherCount != before
    }
}

private struct PatchContext {
    var replacements: [(String, UInt)]
    var patched = 0

    /// Rewrites the GOT slots of one loaded object whose relocations name an allocator.
    mutating func patch(base: UInt, name: String, dynamic: UnsafeMutablePointer<Elf64_Dyn>?) {
        if name.contains("ld-linux") || name.contains("linux-vdso") { return }   // the loader keeps its own
        guard let dynamic else { return }
        var entry = UnsafePointer(dynamic)
        var symbols: UInt = 0, strings: UInt = 0, pltRelocations: UInt = 0, pltSize: UInt = 0
        var relocations: UInt = 0, relocationsSize: UInt = 0
        // glibc relocates the address entries of the dynamic section in place; the vDSO and some
        // objects keep them as offsets: add the base to anything below it.
        func address(_ value: UInt64) -> UInt { UInt(value) < base ? base + UInt(value) : UInt(value) }
        while entry.pointee.d_tag != Int64(DT_NULL) {
            let value = entry.pointee.d_un.d_val
            switch entry.pointee.d_tag {
            case Int64(DT_SYMTAB): symbols = address(value)
            case Int64(DT_STRTAB): strings = address(value)
            case Int64(DT_JMPREL): pltRelocations = address(value)
            case Int64(DT_PLTRELSZ): pltSize = UInt(value)
            case Int64(DT_RELA): relocations = address(value)
            case Int64(DT_RELASZ): relocationsSize = UInt(value)
            default: break
            }
            entry += 1
        }
        guard symbols != 0, strings != 0 else { return }
        for (table, size) in [(pltRelocations, pltSize), (relocations, relocationsSize)] where table != 0 {
            let count = Int(size) / MemoryLayout<Elf64_Rela>.stride
            let rela = UnsafePointer<Elf64_Rela>(bitPattern: table)!
            for r in 0..<count {
                let kind = UInt32(truncatingIfNeeded: rela[r].r_info)
                guard kind == UInt32(R_X86_64_JUMP_SLOT) || kind == UInt32(R_X86_64_GLOB_DAT) else { continue }
                let symbol = UnsafePointer<Elf64_Sym>(bitPattern: symbols)! + Int(rela[r].r_info >> 32)
                guard let cName = UnsafePointer<CChar>(bitPattern: strings + UInt(symbol.pointee.st_name)) else { continue }
                let symbolName = String(cString: cName)
                guard let replacement = replacements.first(where: { $0.0 == symbolName })?.1 else { continue }
                let slot = base + UInt(rela[r].r_offset)
                let page = slot & ~UInt(4095)
                // The slot may be in the read-only RELRO segment: make its page writable and leave it so
                // (with lazy binding the same page holds slots the loader still has to fill in).
                guard mprotect(UnsafeMutableRawPointer(bitPattern: page), 4096, PROT_READ | PROT_WRITE) == 0 else { continue }
                UnsafeMutablePointer<UInt>(bitPattern: slot)!.pointee = replacement
                patched += 1
            }
        }
    }
}
