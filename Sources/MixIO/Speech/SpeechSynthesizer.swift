import CEspeakNG
import Synchronization

/// How espeak-ng speaks a text: the voice (a name or a language), the speed, the pitch and the volume.
/// A value of a `String` and three `Int`s; allocates only the string. `Sendable`, safe to share.
public struct SpeechSettings: Sendable, Hashable {
    /// An espeak-ng voice name or language: `en-us`, `en-gb`, `de`, `fr`, `en-us+f3` (a variant).
    public var voice: String = "en-us"
    /// Words per minute (espeak-ng's `espeakRATE`).
    public var wordsPerMinute: Int = 150
    /// 0 to 100 (espeak-ng's `espeakPITCH`; 50 is the voice's own).
    public var pitch: Int = 50
    /// 0 to 200 (espeak-ng's `espeakVOLUME`, its amplitude; 100 is normal).
    public var volume: Int = 100

    public static let wordsPerMinuteRange = 80...450
    public static let pitchRange = 0...100
    public static let volumeRange = 0...200

    public init(voice: String = "en-us", wordsPerMinute: Int = 150, pitch: Int = 50, volume: Int = 100) {
        self.voice = voice; self.wordsPerMinute = wordsPerMinute; self.pitch = pitch; self.volume = volume
    }
}

/// Speech as espeak-ng makes it: mono 16-bit samples at its own rate (22050 Hz).
/// A value holding one array (shared, copy-on-write); allocates only that. `Sendable`, safe to share.
public struct SynthesizedSpeech: Sendable, Equatable {
    public let samples: [Int16]
    public let sampleRate: Int
    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }
}

/// One voice espeak-ng has. A value of strings; `Sendable`.
public struct SpeechVoice: Sendable, Equatable {
    /// Its name (`English_(America)`).
    public let name: String
    /// Its file (`gmw/en-US`): its last part is what `SpeechSettings.voice` names it by.
    public let identifier: String
    /// The languages it speaks, most preferred first (`en-us`).
    public let languages: [String]
}

/// Text to speech with espeak-ng's C library (libespeak-ng), into memory.
///
/// espeak-ng keeps its state in process-wide globals and is not thread-safe, so every call here holds one
/// lock: syntheses from several threads run one after another, each with all its settings set again
/// (no setting leaks from one call into the next). espeak-ng's own output is not bit-for-bit repeatable
/// within a process, though: its pitch flutter index (a function-static in its wavegen.c, which nothing
/// resets) and other wave-generator state run on from one synthesis into the next, so the same text said
/// again differs by a few samples of timing and pitch. So each text is synthesised once per process and
/// kept (keyed by the text, its SSML flag and its settings; up to `cacheLimit` samples in all, then the
/// cache starts again): within a process the same words are always the same samples, and a fresh process
/// making the same calls in the same order gives the same samples as the last one. espeak-ng is initialised
/// on first use, in synchronous mode, and its samples are collected by its callback into the buffer of the
/// call under way.
///
/// Its voice data is found where espeak-ng looks (`ESPEAK_DATA_PATH`, then its installed path); if
/// `ESPEAK_DATA_PATH` is set it must hold the data (espeak-ng itself would silently fall back). Missing data
/// is an error naming the Debian package. `synthesize` allocates the samples.
public enum SpeechSynthesizer {
    /// The Debian package that holds espeak-ng's voices.
    public static let dataPackage = "espeak-ng-data"

    /// Speaks `text` with `settings`. With `ssml`, SSML markup is honoured (`<break time="2s"/>`,
    /// `<prosody rate="slow">`); otherwise `<` and `&` are read as they are.
    public static func synthesize(_ text: String, settings: SpeechSettings, ssml: Bool) throws -> SynthesizedSpeech {
        guard !text.utf8.contains(0) else { throw failure("the text contains a NUL character") }
        guard text.contains(where: { !$0.isWhitespace }) else { throw failure("the text is empty") }
        return try engine.withLock { state in
            let rate = try state.start()
            let key = Request(text: text, ssml: ssml, settings: settings)
            if let known = state.spoken[key] { return known }
            try select(settings.voice)
            try set(espeakRATE, settings.wordsPerMinute, "rate")
            try set(espeakPITCH, settings.pitch, "pitch")
            try set(espeakVOLUME, settings.volume, "volume")
            collected.removeAll(keepingCapacity: true)
            let flags = UInt32(espeakCHARS_UTF8) | (ssml ? UInt32(espeakSSML) : 0)
            let status = text.withCString { espeak_Synth($0, text.utf8.count + 1, 0, POS_CHARACTER, 0, flags, nil, nil) }
            guard status == EE_OK else { throw failure("espeak_Synth failed (\(status.rawValue))", function: "espeak_Synth") }
            guard espeak_Synchronize() == EE_OK else { throw failure("espeak_Synchronize failed", function: "espeak_Synchronize") }
            defer { collected.removeAll() }
            guard collected.contains(where: { $0 != 0 }) else { throw failure("the text gives no sound") }
            let speech = SynthesizedSpeech(samples: collected, sampleRate: rate)
            state.keep(speech, for: key)
            return speech
        }
    }

    /// The most samples kept for repeating texts: 64 M (128 MB, about 50 minutes of speech).
    public static let cacheLimit = 64 << 20

    /// What makes a synthesis: the text, whether it is SSML, and the settings. A value.
    struct Request: Hashable {
        let text: String
        let ssml: Bool
        let settings: SpeechSettings
    }

    /// Every voice espeak-ng has.
    public static func voices() throws -> [SpeechVoice] {
        try engine.withLock { state in
            _ = try state.start()
            return listVoices()
        }
    }

    /// Throws the unknown-voice error if espeak-ng has no voice called `voice` (a name, a language or a
    /// file's name, with an optional `+variant`), without synthesising anything.
    public static func check(voice: String) throws {
        try engine.withLock { state in
            _ = try state.start()
            try select(voice)
        }
    }

    // MARK: - espeak-ng

    /// Whether espeak-ng is set up, and its rate; guarded by `engine`.
    struct State {
        var sampleRate: Int?
        /// Every text said so far in this process, and how many samples they hold.
        var spoken: [Request: SynthesizedSpeech] = [:]
        var keptSamples = 0

        mutating func keep(_ speech: SynthesizedSpeech, for request: Request) {
            if keptSamples + speech.samples.count > SpeechSynthesizer.cacheLimit { spoken.removeAll(); keptSamples = 0 }
            spoken[request] = speech
            keptSamples += speech.samples.count
        }

        /// Initialises espeak-ng once; returns its sample rate.
        mutating func start() throws -> Int {
            if let sampleRate { return sampleRate }
            let override = LibC.getenv("ESPEAK_DATA_PATH")
            if let override, !override.isEmpty {
                // espeak-ng would fall back to its installed data without a word; a path given on purpose must hold it.
                guard isFolder(override + "/espeak-ng-data") || isFolder(override) && isFile(override + "/phontab") else {
                    throw failure("espeak-ng's voice data was not found in ESPEAK_DATA_PATH ('\(override)'); install Debian's \(dataPackage) package or fix the variable")
                }
            }
            espeak_ng_InitializePath(override)
            var context: espeak_ng_ERROR_CONTEXT?
            let status = espeak_ng_Initialize(&context)
            espeak_ng_ClearErrorContext(&context)
            guard status == ENS_OK else {
                throw failure("espeak-ng's voice data was not found or could not be read (\(message(status))); install Debian's \(dataPackage) package",
                              function: "espeak_ng_Initialize")
            }
            let output = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
            guard output == ENS_OK else { throw failure(message(output), function: "espeak_ng_InitializeOutput") }
            espeak_SetSynthCallback(collect)
            let rate = Int(espeak_ng_GetSampleRate())
            guard rate > 0 else { throw failure("espeak-ng reports no sample rate", function: "espeak_ng_GetSampleRate") }
            sampleRate = rate
            return rate
        }
    }

    private static let engine = Mutex(State())

    /// The samples of the synthesis under way (only touched with `engine` held).
    nonisolated(unsafe) private static var collected: [Int16] = []

    /// espeak-ng's synth callback: appends the samples it is given; 0 asks it to go on.
    private static let collect: @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) -> Int32 = { wave, count, _ in
        if let wave, count > 0 { collected.append(contentsOf: UnsafeBufferPointer(start: wave, count: Int(count))) }
        return 0
    }

    /// Selects `voice`, or throws the unknown-voice error listing a few that exist. espeak-ng finds a voice by
    /// its name or file (`en-us`, `gmw/en`); a language it lists (`en-gb`) is looked up among its voices here,
    /// and a `+variant` (`en-gb+f3`) is kept.
    private static func select(_ voice: String) throws {
        guard !voice.utf8.contains(0), voice.contains(where: { !$0.isWhitespace }) else { throw unknownVoice(voice) }
        if espeak_SetVoiceByName(voice) == EE_OK { return }
        let parts = voice.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
        let language = parts[0].lowercased(), variant = parts.count > 1 ? "+" + parts[1] : ""
        let match = listVoices().first { $0.languages.contains { $0.lowercased() == language } }
            ?? listVoices().first { $0.identifier.split(separator: "/").last?.lowercased() == language || $0.name.lowercased() == language }
        guard let match, espeak_SetVoiceByName(match.identifier + variant) == EE_OK else { throw unknownVoice(voice) }
    }

    private static func unknownVoice(_ voice: String) -> AudioIOError {
        let known = listVoices()
        let preferred = ["en-us", "en-gb", "de", "fr", "es", "it", "pt", "nl", "ru", "zh"]
        let languages = Set(known.flatMap(\.languages))
        let examples = preferred.filter(languages.contains) + languages.sorted().filter { !preferred.contains($0) }.prefix(2)
        return failure("espeak-ng has no such voice; voices include " + examples.prefix(10).joined(separator: ", ")
                       + " (espeak-ng --voices lists all \(known.count))", operation: "use the voice '\(voice)'")
    }

    private static func set(_ parameter: espeak_PARAMETER, _ value: Int, _ name: String) throws {
        guard espeak_SetParameter(parameter, Int32(value), 0) == EE_OK else {
            throw failure("espeak-ng refused \(name) \(value)", function: "espeak_SetParameter")
        }
    }

    private static func listVoices() -> [SpeechVoice] {
        guard let list = espeak_ListVoices(nil) else { return [] }
        var voices: [SpeechVoice] = []
        var i = 0
        while let entry = list[i] {
            let voice = entry.pointee
            voices.append(SpeechVoice(name: voice.name.map { String(cString: $0) } ?? "",
                                      identifier: voice.identifier.map { String(cString: $0) } ?? "",
                                      languages: languages(voice.languages)))
            i += 1
        }
        return voices
    }

    /// espeak-ng's language list: (priority byte, name, NUL)* then NUL.
    private static func languages(_ list: UnsafePointer<CChar>?) -> [String] {
        guard var p = list else { return [] }
        var names: [String] = []
        while p.pointee != 0 {
            p += 1                                   // the priority byte
            let name = String(cString: p)
            names.append(name)
            p += name.utf8.count + 1
        }
        return names
    }

    private static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        return String(cString: buffer)
    }

    private static func failure(_ reason: String, function: String = "", operation: String = "synthesise speech") -> AudioIOError {
        AudioIOError(path: "", function: function, reason: reason, operation: operation)
    }

    private static func isFolder(_ path: String) -> Bool { FileSystem.identity(of: path)?.kind == .folder }
    private static func isFile(_ path: String) -> Bool { FileSystem.identity(of: path)?.kind == .regular }
}
