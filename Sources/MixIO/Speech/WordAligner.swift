/// Where each word of a recording's English transcript is spoken in it: forced alignment by PocketSphinx 5.1.1
/// (BSD-2-Clause; its US English acoustic model and CMU dictionary are inside its wheel, which
/// `scripts/install-speech.sh` installs with the neural voices) in a helper process (`neural_helper.py --engine align`,
/// the protocol documented there). The recording is fed as it is decoded, in chunks, so memory does not grow with its
/// length; the aligner places the words it knows (most names and numbers written in figures it does not, and leaves
/// them out), to its 10 ms frames. English only, and only at 16 kHz or more (its model is wideband).
///
/// One helper per aligner, started on first use and kept for the next recording. A class (it owns the helper); not
/// thread-safe: one recording at a time.
public final class WordAligner {
    /// The lowest sample rate the aligner's model takes.
    public static let lowestSampleRate = 16_000
    /// The pinned requirement whose presence in the installed requirements says the aligner is installed.
    static let requirement = "pocketsphinx=="

    private let limits: SpeechHelperLimits
    private var helper: SpeechHelperProcess?
    private var sampleRate = 0
    private var chunk: [UInt8] = []

    public init(limits: SpeechHelperLimits = .standard) { self.limits = limits }

    deinit { helper?.finish() }

    /// The virtual environment the aligner is installed in, or nil.
    static func environment() -> String? {
        guard let venv = SpeechHelperLocation.neuralEnvironmentFolder(),
              let stamp = try? FileSystem.readDocument(path: venv + "/.mixrender-requirements", maximumBytes: 1 << 20),
              String(decoding: stamp, as: UTF8.self).split(separator: "\n").contains(where: { $0.hasPrefix(requirement) }) else { return nil }
        return venv
    }

    /// Whether the aligner is installed (`scripts/install-speech.sh`).
    public static var isInstalled: Bool { environment() != nil }

    /// What a message asking for the aligner says to do.
    public static let installHint = "the word aligner (pocketsphinx 5.1.1) is not installed: run scripts/install-speech.sh in mixrender's folder"

    /// Begins aligning `transcript` with a recording at `sampleRate`, whose samples `add` then feeds.
    public func begin(transcript: String, sampleRate: Int) throws {
        guard sampleRate >= Self.lowestSampleRate else {
            throw SpeechSynthesizer.failure("a recording at \(sampleRate) Hz cannot be aligned with its transcript: the aligner needs \(Self.lowestSampleRate) Hz or more")
        }
        guard !transcript.utf8.contains(0) else { throw SpeechSynthesizer.failure("the transcript contains a NUL character") }
        let helper = try self.helper ?? start()
        self.helper = helper
        self.sampleRate = sampleRate
        do {
            try helper.send(["align": transcript, "sampleRate": sampleRate])
        } catch {
            drop()
            throw error
        }
    }

    /// The recording's next mono samples (-1...1; louder ones are clipped).
    public func add(_ mono: UnsafeBufferPointer<Float>) throws {
        guard let helper, !mono.isEmpty else { return }
        chunk.removeAll(keepingCapacity: true)
        Self.appendCount(UInt32(mono.count), to: &chunk)
        for x in mono {
            let v = Int16(max(-32768, min(32767, (x * 32767).rounded())))
            chunk.append(UInt8(truncatingIfNeeded: v))
            chunk.append(UInt8(truncatingIfNeeded: v >> 8))
        }
        do {
            try chunk.withUnsafeBytes { try helper.send(bytes: $0) }
        } catch {
            drop()
            throw error
        }
    }

    /// Ends the recording and returns its words, in order, in its samples; empty when the aligner could not follow
    /// the transcript through the recording (it is not what the recording says).
    public func finish() throws -> [SpokenWord] {
        guard let helper else { return [] }
        do {
            var end: [UInt8] = []
            Self.appendCount(0, to: &end)
            try end.withUnsafeBytes { try helper.send(bytes: $0) }
            let header = try helper.readHeader(until: .now + .milliseconds(Int(limits.timeoutSeconds * 1000)))
            guard header["ok"] as? Bool == true else {
                throw SpeechSynthesizer.failure(header["error"] as? String ?? "the aligner refused the recording without a reason")
            }
            guard header["sampleRate"] as? Int == sampleRate, let words = SpokenWord.parse(header["words"], within: Int.max) else {
                helper.kill()
                throw helper.failure("it answered words that are not the protocol")
            }
            return words
        } catch {
            drop()
            throw error
        }
    }

    private static func appendCount(_ count: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
    }

    /// Forgets a helper that failed (it is never asked again; the next recording starts another).
    private func drop() {
        helper?.finish()
        helper = nil
    }

    private func start() throws -> SpeechHelperProcess {
        guard let venv = Self.environment() else { throw SpeechSynthesizer.failure(Self.installHint) }
        return try SpeechHelperProcess.neural(venv: venv, engine: "align", limits: limits, name: "the word aligner's helper")
    }
}
