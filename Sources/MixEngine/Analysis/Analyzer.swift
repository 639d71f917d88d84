import Foundation
import MixDSP
import MixIO

/// The analysis phase, between load and plan: gathers what a final `Preset` needs found out
/// (`AnalysisRequests.of`: its session's speech, each kind's `analysisRequests`), makes it concurrently, and
/// hands the `Analysis` to the planner, which then reads nothing. Files are probed first (on every core, with
/// `Parallel.map`); then texts, recordings and decodes run together, the texts one after another in each lane's
/// `SpeechSynthesizer` (a neural voice's helper takes one text at a time), each recording and decode on a core
/// of its own, the texts shared out among lanes (`speechLanes`, one per core) when there are enough of them to pay for a
/// helper's start-up. Syntheses come from the `--cache-dir` store when there (and go into it when made); what is
/// measured (utterances, recordings) is kept in the `PreparedMaterial`'s `analyses` (`AnalysisCache`), so a second
/// render or a batch says and measures nothing again.
///
/// A request that fails does not stop the others: its reason is kept in the `Analysis`, and the planner throws
/// it where planning meets it, naming the JSON path as before. `analyse` itself throws only
/// `CancellationError`, when `isCancelled` says so at a request's boundary (before each request starts).
///
/// A value of its settings (`Sendable`); `analyse` allocates the analysis (the speech, the decoded audio) and
/// may be called from several threads at once (each call has its own synthesizer).
public struct Analyzer: Sendable {
    /// Where syntheses are kept between processes (`--cache-dir`); nil: said in every process.
    public var store: MaterialStore?
    /// What the render's material is kept in between renders in one process: utterances go into its `analyses`
    /// (and the job's measurements into its `measurements`); nil: nothing is kept.
    public var material: PreparedMaterial?
    /// Asked before each request starts; true stops the analysis with `CancellationError`.
    public var isCancelled: @Sendable () -> Bool
    /// How many helpers may say the texts at once (each text is a pure function of its request, so how they are shared
    /// out changes no sample): by default one per core. A batch running several jobs at once gives each its share.
    public var speechLanes = Analyzer.defaultSpeechLanes
    public static var defaultSpeechLanes: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
    /// Whether a text said before in this process is taken from the process's own memory (`SpeechSynthesizer.usesCache`):
    /// false says every text again (the bench's synthesis figures).
    public var reusesSpeechInProcess = true
    /// The characters of text that pay for one more helper: a helper's start-up (the English voice's about 1 s, the
    /// Japanese voice's about 5 s) against what saying them takes (English: 500 characters are about 30 s of speech,
    /// 2 s of the English voice's work; Japanese: about 90 s of speech, a minute of the Japanese voice's).
    static let charactersPerLane = 500

    /// `store` defaults to `material`'s.
    public init(material: PreparedMaterial? = nil, store: MaterialStore? = nil,
                isCancelled: @escaping @Sendable () -> Bool = { false }) {
        self.material = material
        self.store = store ?? material?.store
        self.isCancelled = isCancelled
    }

    private var cache: AnalysisCache? { material?.analyses }

    /// Everything `preset` needs analysed, made.
    public func analyse(_ preset: Preset) throws -> Analysis {
        try analyse(AnalysisRequests.of(preset))
    }

    func analyse(_ requests: AnalysisRequests) throws -> Analysis {
        var analysis = Analysis()
        analysis.speechRequests = requests.speechRequests
        let format = requests.format
        // 1. Every file probed: what recordings and decodes are depends on it.
        let probes = Parallel.map(requests.files.count) { k -> Result<AudioFileInfo, Analysis.Failure>? in
            if isCancelled() { return nil }
            return Result { try AudioFileInfo.read(path: requests.files[k]) }.mapError { Analysis.Failure(message: "\($0)") }
        }
        try checkCancellation()
        for (path, probe) in zip(requests.files, probes) { analysis.files[path] = probe! }

        // 2. The texts (one job, in order), the recordings and the decodes whose files could be read.
        func info(_ path: String) -> AudioFileInfo? {
            guard case .success(let info)? = analysis.files[path], info.frameCount > 0 else { return nil }
            return info
        }
        let recordings = requests.recordings.compactMap { request in info(request.path).map { (request, $0) } }
        let decodes = requests.decodes.compactMap { request -> (DecodeRequest, AudioFileInfo)? in
            guard let info = info(request.key.path),
                  StreamingSource.outputLength(inputFrames: info.frameCount, inputRate: info.sampleRate,
                                               outputRate: format.sampleRate) <= request.longestFrames else { return nil }
            return (request, info)
        }
        let lanes = Self.lanes(of: requests.texts.elements, most: speechLanes)
        let jobs = lanes.count + recordings.count + decodes.count
        let firstRecording = lanes.count, firstDecode = firstRecording + recordings.count
        let results = Parallel.map(jobs) { k -> Made in
            if k < firstRecording { return .speech(say(lanes[k], format: format)) }
            if isCancelled() { return .cancelled }
            if k < firstDecode {
                let (request, info) = recordings[k - firstRecording]
                return .recording(request, measure(recording: request, info: info, format: format))
            }
            let (request, info) = decodes[k - firstDecode]
            return .decoded(request.key, Result {
                let (audio, length) = try LoopMaterial.load(decoder: AudioFile.open(path: info.path), outputRate: format.sampleRate,
                                                            outputChannels: format.channelCount, isCircular: request.key.isCircular,
                                                            makeConverter: format.makeConverter)
                return PreparedAudio(audio: audio, length: length)
            }.mapError { Analysis.Failure(message: "\($0)") })
        }
        try checkCancellation()
        for result in results {
            switch result {
            case .speech(let said):
                guard let said else { throw CancellationError() }
                var laneSeconds = 0.0
                for text in said {
                    analysis.speech[text.request] = text.entry
                    guard text.wasMade else { continue }
                    analysis.made.texts += 1
                    analysis.synthesis.speechSeconds += text.speechSeconds
                    laneSeconds += text.wallSeconds
                }
                // The lanes run side by side: the synthesis took as long as the longest.
                analysis.synthesis.wallSeconds = max(analysis.synthesis.wallSeconds, laneSeconds)
            case .recording(let request, let (entry, wasMade)):
                analysis.recordings[request] = entry
                if wasMade { analysis.made.recordings += 1 }
            case .decoded(let key, let entry):
                analysis.decoded[key] = entry
                analysis.made.decodes += 1
            case .cancelled:
                throw CancellationError()
            }
        }
        return analysis
    }

    /// What one job of the second step made.
    private enum Made {
        /// Each text said; nil when cancelled between texts.
        case speech([Said]?)
        case recording(RecordingRequest, (Result<Utterance, Analysis.Failure>, Bool))
        case decoded(DecodeRequest.Key, Result<PreparedAudio, Analysis.Failure>)
        case cancelled
    }

    /// One text: its entry, whether this analysis made it (rather than found it in the cache), the seconds of
    /// speech it holds and the wall-clock seconds saying it took.
    private struct Said {
        var request: SpeechRequest
        var entry: Result<Analysis.Spoken, Analysis.Failure>
        var wasMade = true
        var speechSeconds = 0.0
        var wallSeconds = 0.0
    }

    private func checkCancellation() throws {
        if isCancelled() { throw CancellationError() }
    }

    /// The texts shared out among at most `most` lanes, each said one after another by a synthesizer of its own: one lane
    /// per `charactersPerLane` characters, the longest texts first, each to the lane with the fewest characters so
    /// far; a lane keeps its texts in their order. No lane for no text.
    static func lanes(of texts: [SpeechRequest], most: Int) -> [[SpeechRequest]] {
        guard !texts.isEmpty else { return [] }
        let characters = texts.map { $0.text.utf8.count }
        let count = max(1, min(most, texts.count, characters.reduce(0, +) / charactersPerLane))
        guard count > 1 else { return [texts] }
        var totals = [Int](repeating: 0, count: count)
        var lane = [Int](repeating: 0, count: texts.count)
        for k in texts.indices.sorted(by: { characters[$0] != characters[$1] ? characters[$0] > characters[$1] : $0 < $1 }) {
            let emptiest = totals.indices.min { totals[$0] != totals[$1] ? totals[$0] < totals[$1] : $0 < $1 }!
            lane[k] = emptiest
            totals[emptiest] += characters[k]
        }
        return (0..<count).map { l in texts.indices.filter { lane[$0] == l }.map { texts[$0] } }
    }

    /// Each text said (from the cache, the store, or a helper process) and measured, one after another.
    private func say(_ texts: [SpeechRequest], format: RenderFormat) -> [Said]? {
        let synthesizer = SpeechSynthesizer()
        synthesizer.usesCache = reusesSpeechInProcess
        var said: [Said] = []
        for request in texts {
            if isCancelled() { return nil }
            let key = AnalysisCache.Key.speech(request, sampleRate: format.sampleRate, channelCount: format.channelCount)
            if let known = cache?.utterance(for: key) {
                said.append(Said(request: request, entry: .success(Analysis.Spoken(utterance: known, warnings: [])), wasMade: false))
                continue
            }
            var warnings: [String] = []
            let started = ContinuousClock.now
            do {
                let speech: SynthesizedSpeech
                if let stored = storedSpeech(request, warnings: &warnings) {
                    speech = stored
                } else {
                    speech = try synthesizer.synthesize(request.text, settings: request.settings, ssml: request.ssml)
                    keep(speech, for: request, warnings: &warnings)
                }
                let utterance = Utterance(spoken: speech, caption: request.text, voice: request.settings.voice, format: format)
                cache?.keep(utterance, for: key)
                said.append(Said(request: request, entry: .success(Analysis.Spoken(utterance: utterance, warnings: warnings)),
                                 speechSeconds: Double(speech.samples.count) / Double(speech.sampleRate),
                                 wallSeconds: (ContinuousClock.now - started).seconds))
            } catch {
                said.append(Said(request: request, entry: .failure(Analysis.Failure(message: "\(error)"))))
            }
        }
        return said
    }

    /// The recording `request` names measured (or found measured in the cache); whether this call measured it.
    private func measure(recording request: RecordingRequest, info: AudioFileInfo, format: RenderFormat) -> (Result<Utterance, Analysis.Failure>, Bool) {
        let key = AnalysisCache.Key.recording(path: request.path, origin: MaterialKey.origin(of: info), transcript: request.transcript,
                                              sampleRate: format.sampleRate, channelCount: format.channelCount)
        if let known = cache?.utterance(for: key) { return (.success(known), false) }
        do {
            let utterance = try Utterance(recording: request.path, info: info, format: format, transcript: request.transcript)
            cache?.keep(utterance.streamed, for: key)   // its frames stay with this analysis alone
            return (.success(utterance), true)
        } catch {
            return (.failure(Analysis.Failure(message: "\(error)")), true)
        }
    }

    // MARK: - Syntheses kept in the `--cache-dir` store

    /// The longest synthesis a store entry may claim: the helpers' own cap (`SpeechHelperLimits.maxSamples`).
    static let longestStoredSpeechSeconds = 20 * 60

    /// What a synthesis depends on, as a store's key: a pure function of the engine (its exact version), the voice,
    /// every setting, the seed and the text; nil when the engine cannot say what it is (then nothing is stored).
    static func storeDescription(_ request: SpeechRequest) -> String? {
        let s = request.settings, engine = s.voiceID.speechEngine
        guard let identity = engine.identity() else { return nil }
        let n = { (x: Double?) in x.map { "\($0)" } ?? "default" }
        return "speech; mixrender \(MixrenderVersion.string); \(identity); \(engine.sampleRate) Hz; voice \(s.voice); "
            + "wpm \(s.wordsPerMinute); pitch \(s.pitch); volume \(s.volume); speed \(n(s.speed)); sentence pause \(n(s.sentencePauseSeconds)); "
            + "paragraph pause \(n(s.paragraphPauseSeconds)); seed \(s.seed); ssml \(request.ssml); text sha256 \(ContentHash.of(request.text))"
            + (s.lexicon.isEmpty ? "" : "; lexicon sha256 \(ContentHash.of(s.lexicon.identity))")
            + (s.wordTimes ? "; word times" : "")
    }

    /// The synthesis kept in the store for `request`, or nil (no store, no entry, or a damaged one, which is
    /// removed with a warning and said again).
    func storedSpeech(_ request: SpeechRequest, warnings: inout [String]) -> SynthesizedSpeech? {
        guard let store, let description = Self.storeDescription(request) else { return nil }
        let rate = request.settings.voiceID.speechEngine.sampleRate
        do {
            guard let kept = try store.audio(for: description, channelCount: 1, frames: 1...(Self.longestStoredSpeechSeconds * rate)) else { return nil }
            // Written from 16-bit samples (x / 32768, exact in a Float): anything else is not a synthesis.
            let channel = kept.audio.channel(0)
            var samples = [Int16](repeating: 0, count: kept.length)
            for i in 0..<kept.length {
                let x = channel[i] * 32768
                guard x == x.rounded(), x >= -32768, x <= 32767 else {
                    warnings.append("\(store.path(for: description)): a kept synthesis holds samples no synthesis makes; said again")
                    return nil
                }
                samples[i] = Int16(x)
            }
            // What an engine that gives sentences says of them (its sentences, the words it guessed, its words' places)
            // is kept beside its samples; without it the entry is said again.
            guard request.settings.voiceID.speechEngine.givesSentences else { return SynthesizedSpeech(samples: samples, sampleRate: rate) }
            guard let details = try store.measurement(for: Self.detailsKey(description), maximumBytes: Self.detailsBytes,
                                                      read: { try Self.details($0, within: samples.count) }) else { return nil }
            return SynthesizedSpeech(samples: samples, sampleRate: rate, sentences: details.sentences, guessed: details.guessed, words: details.words)
        } catch {
            warnings.append("\(error); said again")
            return nil
        }
    }

    /// The most a kept synthesis's details may take (`MaterialStore.measurement(for:maximumBytes:read:)`): the words
    /// of 20 minutes of speech, with room to spare. Details that do not fit are not kept, nor is their synthesis.
    static let detailsBytes = 1 << 20

    /// The key of a kept synthesis's details (its sentences, guessed words and words): the SHA-256 of its description's.
    static func detailsKey(_ description: String) -> String { ContentHash.of(description + "; details") }

    /// A kept synthesis's details, as `keep` writes them: `{"sentences": [[first, end], ...], "guessed": ["Aoife"],
    /// "words": [[first, end, "Relax"], ...]}`, every span in order within `count` samples; a `Refusal` for anything else.
    static func details(_ value: JSONValue, within count: Int) throws -> (sentences: [Range<Int>], guessed: [String], words: [SpokenWord]) {
        guard case .object = value, let sentences = value["sentences"], let guessed = value["guessed"], let words = value["words"] else {
            throw MaterialStore.Refusal("holds no synthesis's details")
        }
        return (try Self.sentences(sentences, within: count), try guessedWords(guessed), try Self.words(words, within: count))
    }

    /// Guessed words as kept (`["Aoife", ...]`: at most 100 words of at most 64 characters); a `Refusal` for anything else.
    static func guessedWords(_ value: JSONValue) throws -> [String] {
        guard case .array(let items) = value, items.count <= 100 else { throw MaterialStore.Refusal("holds no guessed words") }
        return try items.map {
            guard case .string(let word) = $0, !word.isEmpty, word.count <= 64, !word.contains(where: \.isWhitespace) else {
                throw MaterialStore.Refusal("holds a guessed word that is not one")
            }
            return word
        }
    }

    /// Sentences as kept (`[[first, end], ...]`, in order, within `count` samples); a `Refusal` for anything else.
    static func sentences(_ value: JSONValue, within count: Int) throws -> [Range<Int>] {
        guard case .array(let spans) = value else { throw MaterialStore.Refusal("holds no sentences") }
        var sentences: [Range<Int>] = [], end = 0
        for span in spans {
            guard case .array(let pair) = span, pair.count == 2, case .number(let a) = pair[0], case .number(let b) = pair[1],
                  a == a.rounded(), b == b.rounded(), a >= Double(end), a <= b, b <= Double(count) else {
                throw MaterialStore.Refusal("holds sentences that are not in order within the synthesis")
            }
            sentences.append(Int(a)..<Int(b))
            end = Int(b)
        }
        return sentences
    }

    /// Words as kept (`[[first, end, "word"], ...]`, in order, within `count` samples, each a word of at most 64
    /// characters); a `Refusal` for anything else.
    static func words(_ value: JSONValue, within count: Int) throws -> [SpokenWord] {
        guard case .array(let items) = value else { throw MaterialStore.Refusal("holds no words") }
        var words: [SpokenWord] = [], end = 0
        for item in items {
            guard case .array(let triple) = item, triple.count == 3, case .number(let a) = triple[0], case .number(let b) = triple[1],
                  case .string(let text) = triple[2], a == a.rounded(), b == b.rounded(), a >= Double(end), a <= b, b <= Double(count),
                  !text.isEmpty, text.count <= 64, !text.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw MaterialStore.Refusal("holds words that are not in order within the synthesis")
            }
            words.append(SpokenWord(text: text, span: Int(a)..<Int(b)))
            end = Int(b)
        }
        return words
    }

    /// Keeps `speech` in the store for `request`, when there is a store (a failure to keep it is a warning).
    func keep(_ speech: SynthesizedSpeech, for request: SpeechRequest, warnings: inout [String]) {
        guard let store, let description = Self.storeDescription(request),
              speech.sampleRate == request.settings.voiceID.speechEngine.sampleRate else { return }
        let block = AudioBlock(channelCount: 1, capacity: speech.samples.count)
        let channel = block.channel(0)
        for (i, sample) in speech.samples.enumerated() { channel[i] = Float(sample) / 32768 }
        do {
            // The details first: a synthesis found in the store always has them. Details too large for a measurement
            // (`detailsBytes`) are not kept, nor is their synthesis: it is said again in the next process.
            if request.settings.voiceID.speechEngine.givesSentences {
                let details: JSONValue = .object([
                    "sentences": .array(speech.sentences.map { .array([.integer($0.lowerBound), .integer($0.upperBound)]) }),
                    "guessed": .array(speech.guessed.map { .string($0) }),
                    "words": .array(speech.words.map { .array([.integer($0.span.lowerBound), .integer($0.span.upperBound), .string($0.text)]) }),
                ])
                guard details.document(.compact).utf8.count < Self.detailsBytes - 4096 else { return }
                try store.storeMeasurement(details, for: Self.detailsKey(description), what: "a synthesis's sentences, guessed words and words",
                                           maximumBytes: Self.detailsBytes)
            }
            try store.store(PreparedAudio(audio: block, length: speech.samples.count), for: description)
        } catch {
            warnings.append("cannot keep a synthesis in the cache folder: \(error)")
        }
    }
}
