import MixIO

/// What analyses measured, kept between renders in one process: each text said and measured, each recording
/// measured (`Utterance`), keyed by what decides them (the request, or the recording's origin, with the output
/// rate and channels). A `PreparedMaterial` holds one (`analyses`), so a measuring pass, the real render, a
/// second render of the same preset and a batch's jobs say and measure each thing once.
///
/// A final class over a `Locked` dictionary; allocates its entries (utterances share their samples).
/// `Sendable`: every access is under the lock, and the utterances it holds are values.
public final class AnalysisCache: Sendable {
    /// What decides an utterance. A value (`Sendable`, `Hashable`).
    enum Key: Hashable, Sendable {
        case speech(SpeechRequest, sampleRate: Int, channelCount: Int)
        /// A recording by its path (what it plays and shows) and its origin (`MaterialKey.origin(of:)`: which file
        /// on disk and what its header says, so a file rewritten between renders is measured again).
        case recording(path: String, origin: String, transcript: String?, sampleRate: Int, channelCount: Int)
    }

    private let utterances = Locked<[Key: Utterance]>([:])

    public init() {}

    func utterance(for key: Key) -> Utterance? { utterances.withLock { $0[key] } }

    func keep(_ utterance: Utterance, for key: Key) { utterances.withLock { $0[key] = utterance } }

    /// How many utterances it holds.
    public var count: Int { utterances.withLock { $0.count } }

    /// Forgets everything.
    public func removeAll() { utterances.withLock { $0.removeAll() } }
}
