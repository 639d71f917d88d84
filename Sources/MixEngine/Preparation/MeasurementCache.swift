import MixIO

/// What measuring renders found, kept between renders in one process by what decides it: a track's loudness
/// and a render's normalisation, each under its measurement key (`LoudnessMeasuring.measurementKey`: the render
/// key's text of what was measured, and which measurement). A `PreparedMaterial` holds one (`measurements`), so a
/// second render of the same plan, or a batch's jobs that share a plan, measure nothing again.
///
/// **Between processes.** With a `MaterialStore` (the `--cache-dir` folder), a measurement is also kept there, under
/// its stored key (the same text with each source file named by its content's SHA-256 instead of its place on disk,
/// so a second machine sharing the folder finds it), and read from there by a process that has not measured it:
/// a window of the render, another format, another machine. What is read is checked (`MaterialStore.measurement`,
/// then the measurement's own `read(stored:)` and the caller's `check`); a bad entry is removed, named in one line
/// in `damagedEntries`, and measured again.
///
/// A final class over a `Locked` dictionary of `Sendable` values; allocates its entries. `Sendable`: every access
/// is under the lock. A measurement is made outside the lock: two renders asking at once may both measure, and
/// the same value is kept.
public final class MeasurementCache: Sendable {
    /// Where a measurement a render did not make came from.
    public enum Place: String, Sendable {
        /// An earlier render in this process (a batch's job, or the same job rendered again).
        case process
        /// The `--cache-dir` folder: another process made it.
        case cacheFolder
    }

    private struct State {
        var values: [String: any Sendable] = [:]
        /// Source files' content digests, by their origin (`MaterialKey.origin(of:)`): each file hashed once.
        var digests: [String: String] = [:]
        var measured = 0
        var reused = 0
        var fromStore = 0
        var damagedEntries: [String] = []
        var storeProblems: [String] = []
    }
    private let state = Locked(State())
    /// Where measurements are kept between processes; nil: only in this object.
    public let store: MaterialStore?

    public init(store: MaterialStore? = nil) { self.store = store }

    /// The value kept under `key`, or `measure()`'s, kept (a failure is not kept: it is thrown each time), and
    /// where a value not measured now came from (nil: `measure` ran). With a store, a value not kept here is looked
    /// for there under `storedKey()` (nil: not kept there; called at most once) and, found and checked (`check`
    /// returns why it refuses one), kept here; one measured is written there. `what` describes it for a person.
    func value<T: StoredMeasurement>(_ key: String, what: String, storedKey: () -> String?, check: (T) -> String? = { _ in nil },
                                     measure: () throws -> T) rethrows -> (value: T, reusedFrom: Place?) {
        if let known = state.withLock({ s -> T? in
            guard let value = s.values[key] as? T else { return nil }
            s.reused += 1
            return value
        }) { return (known, .process) }
        let stored = store == nil ? nil : storedKey()
        if let store, let stored {
            do {
                let found = try store.measurement(for: stored) { value -> T in
                    let read = try T(stored: value)
                    if let reason = check(read) { throw MaterialStore.Refusal(reason) }
                    return read
                }
                if let found {
                    state.withLock { $0.values[key] = found; $0.fromStore += 1 }
                    return (found, .cacheFolder)
                }
            } catch let damaged as MaterialStore.DamagedEntry {
                note(\.damagedEntries, "\(damaged), measured again (\(what))")
            } catch {
                note(\.storeProblems, "\(what): not read from the cache folder: \(error)")
            }
        }
        let value = try measure()
        state.withLock { $0.values[key] = value; $0.measured += 1 }
        if let store, let stored {
            do { try store.storeMeasurement(value.storedValue, for: stored, what: what) } catch {
                note(\.storeProblems, "\(what): not kept in the cache folder: \(error)")
            }
        }
        return (value, nil)
    }

    private func note(_ list: WritableKeyPath<State, [String]>, _ line: String) {
        state.withLock { if !$0[keyPath: list].contains(line) { $0[keyPath: list].append(line) } }
    }

    /// The content digests (SHA-256, hex) of `files` by path, each file hashed once per object (by its origin:
    /// which file on disk, its size and modification time); nil when one cannot be read.
    func digests(of files: [String: AudioFileInfo]) -> [String: String]? {
        var result: [String: String] = [:]
        for (path, info) in files {
            let origin = MaterialKey.origin(of: info)
            if let known = state.withLock({ $0.digests[origin] }) { result[path] = known; continue }
            guard let sha = try? ContentHash.file(path: info.path).sha256 else { return nil }
            state.withLock { $0.digests[origin] = sha }
            result[path] = sha
        }
        return result
    }

    /// How many measurements were made, how many were found made before in this object, and how many were read
    /// from the store.
    public var measured: Int { state.withLock { $0.measured } }
    public var reused: Int { state.withLock { $0.reused } }
    public var fromStore: Int { state.withLock { $0.fromStore } }

    /// The store's measurements that failed their checks, one line each (the file, what was wrong, what was
    /// measured again instead).
    public var damagedEntries: [String] { state.withLock { $0.damagedEntries } }
    /// Why the store could not be read or written, one line each (the render goes on without it).
    public var storeProblems: [String] { state.withLock { $0.storeProblems } }
}

/// A measurement the cache folder keeps: written as a JSON value (`storedValue`), and read back from one, checked
/// (`init(stored:)` throws a `MaterialStore.Refusal` saying what is wrong: a missing or mistyped member, a number
/// that is not finite where it must be, or out of range).
protocol StoredMeasurement: Sendable {
    var storedValue: JSONValue { get }
    init(stored: JSONValue) throws
}

/// The loudness in LUFS of a measured range whose measure a render reads back: finite numbers in
/// `StoredNumbers.loudness`; a silent range's -infinity is written as null, and read back as -infinity.
extension Double: StoredMeasurement {
    var storedValue: JSONValue { .object(["loudnessLUFS": isFinite ? .number(self) : .null]) }

    init(stored: JSONValue) throws {
        guard case .object = stored, let member = stored["loudnessLUFS"] else { throw MaterialStore.Refusal("holds no loudness") }
        if member == .null { self = -.infinity; return }
        self = try StoredNumbers.number(member, "loudnessLUFS", in: StoredNumbers.loudness)
    }
}

/// Reading a stored measurement's numbers: each a JSON number, finite, within a range.
enum StoredNumbers {
    /// Any loudness a meter gives for audio a render can hold, in LUFS (or LU of a difference).
    static let loudness = -200.0...50.0

    static func number(_ value: JSONValue?, _ name: String, in range: ClosedRange<Double>) throws -> Double {
        guard case .number(let x)? = value else { throw MaterialStore.Refusal("holds no number for \(name)") }
        guard x.isFinite, range.contains(x) else {
            throw MaterialStore.Refusal("says \(name) \(JSONValue.format(x)), outside \(JSONValue.format(range.lowerBound))...\(JSONValue.format(range.upperBound))")
        }
        return x
    }

    static func integer(_ value: JSONValue?, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        let x = try number(value, name, in: Double(range.lowerBound)...Double(range.upperBound))
        guard x == x.rounded() else { throw MaterialStore.Refusal("says \(name) \(JSONValue.format(x)), not a whole number") }
        return Int(x)
    }
}
