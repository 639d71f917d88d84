import CEspeakNG

/// Text to speech with espeak-ng's C library (libespeak-ng), into memory: only ever called inside the
/// speech helper process (`SpeechHelperServer`, `mixrender speech-helper espeak`), never in a rendering one.
///
/// espeak-ng keeps its state in process-wide globals and is not thread-safe, so every call holds one lock.
/// Its output is not repeatable within a process (its wave generator's flutter index and other state run on
/// from one synthesis into the next), and it is unsafe with untrusted SSML (`<audio src>` reaches
/// `system()`; some texts crash it): so the helper says one text and exits, in a fresh process each time,
/// and only SSML that `SSMLSubset` accepts reaches it.
///
/// The library is opened the first time a process needs it (`CEspeakNG`'s `cespeak_load`), not linked: a render
/// never maps it or the audio output libraries it brings. Every call goes through `espeak`, the functions looked
/// up then.
///
/// Its voice data is found where espeak-ng looks (`ESPEAK_DATA_PATH`, then its installed path); if
/// `ESPEAK_DATA_PATH` is set it must hold the data (espeak-ng itself would silently fall back). Missing data
/// is an error naming the Debian package. `synthesize` allocates the samples.
public enum EspeakEngine {
    /// The Debian package that holds espeak-ng's voices.
    public static let dataPackage = "espeak-ng-data"

    /// Initialises espeak-ng now (the helper does so before it limits itself: espeak-ng 1.51 opens its audio
    /// library's connection at start, which writes to shared memory).
    public static func prepare() throws {
        try engine.withLock { state in _ = try state.start() }
    }

    /// espeak-ng's version (`espeak_Info`, a constant string: no synthesis, no state), or nil when its library
    /// cannot be loaded.
    public static func version() -> String? {
        guard case .success(let library) = loaded else { return nil }
        return library.espeak_Info(nil).map { String(cString: $0) } ?? "unknown"
    }

    /// Speaks `text` with the voice and its settings. With `ssml`, SSML markup is honoured (`<break time="2s"/>`,
    /// `<prosody rate="slow">`); otherwise `<` and `&` are read as they are.
    public static func synthesize(_ text: String, voice: String, wordsPerMinute: Int, pitch: Int, volume: Int, ssml: Bool) throws -> SynthesizedSpeech {
        guard !text.utf8.contains(0) else { throw failure("the text contains a NUL character") }
        guard text.contains(where: { !$0.isWhitespace }) else { throw failure("the text is empty") }
        return try engine.withLock { state in
            let rate = try state.start()
            try select(voice)
            try set(espeakRATE, wordsPerMinute, "rate")
            try set(espeakPITCH, pitch, "pitch")
            try set(espeakVOLUME, volume, "volume")
            collected.removeAll(keepingCapacity: true)
            // `[[ ]]` holds phonemes (espeak-ng's names) where a lexicon gives a word's (`IPA.espeak`).
            let flags = UInt32(espeakCHARS_UTF8) | (ssml ? UInt32(espeakSSML) : 0) | (text.contains("[[") ? UInt32(espeakPHONEMES) : 0)
            let status = text.withCString { espeak.espeak_Synth($0, text.utf8.count + 1, 0, POS_CHARACTER, 0, flags, nil, nil) }
            guard status == EE_OK else { throw failure("espeak_Synth failed (\(status.rawValue))", function: "espeak_Synth") }
            guard espeak.espeak_Synchronize() == EE_OK else { throw failure("espeak_Synchronize failed", function: "espeak_Synchronize") }
            defer { collected.removeAll() }
            guard collected.contains(where: { $0 != 0 }) else { throw failure("the text gives no sound") }
            return SynthesizedSpeech(samples: collected, sampleRate: rate)
        }
    }

    // MARK: - espeak-ng

    /// libespeak-ng's functions, or why they could not be loaded; looked up the first time any thread asks (a
    /// `static let` is initialised once, thread-safely).
    private static let loaded: Result<CEspeakLibrary, AudioIOError> = {
        var message = [CChar](repeating: 0, count: 512)
        guard let library = cespeak_load(&message, message.count) else {
            return .failure(failure("espeak-ng's library could not be loaded (\(String(cString: message))); install Debian's libespeak-ng1 package",
                                    function: "dlopen"))
        }
        return .success(library.pointee)
    }()

    /// espeak-ng's functions. Only after `State.start()` succeeded, which loads them: every way into espeak-ng
    /// starts with it.
    private static var espeak: CEspeakLibrary {
        guard case .success(let library) = loaded else { preconditionFailure("EspeakEngine's State.start() is called before any espeak-ng call") }
        return library
    }

    /// Whether espeak-ng is set up, and its rate; guarded by `engine`.
    struct State {
        var sampleRate: Int?
        /// Initialises espeak-ng once; returns its sample rate.
        mutating func start() throws -> Int {
            if let sampleRate { return sampleRate }
            let library = try loaded.get()   // loads it; `espeak` serves every later call
            let override = LibC.getenv("ESPEAK_DATA_PATH")
            if let override, !override.isEmpty {
                // espeak-ng would fall back to its installed data without a word; a path given on purpose must hold it.
                guard isFolder(override + "/espeak-ng-data") || isFolder(override) && isFile(override + "/phontab") else {
                    throw failure("espeak-ng's voice data was not found in ESPEAK_DATA_PATH ('\(override)'); install Debian's \(dataPackage) package or fix the variable")
                }
            }
            library.espeak_ng_InitializePath(override)
            var context: espeak_ng_ERROR_CONTEXT?
            let status = library.espeak_ng_Initialize(&context)
            library.espeak_ng_ClearErrorContext(&context)
            guard status == ENS_OK else {
                throw failure("espeak-ng's voice data was not found or could not be read (\(message(status))); install Debian's \(dataPackage) package",
                              function: "espeak_ng_Initialize")
            }
            let output = library.espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
            guard output == ENS_OK else { throw failure(message(output), function: "espeak_ng_InitializeOutput") }
            library.espeak_SetSynthCallback(collect)
            let rate = Int(library.espeak_ng_GetSampleRate())
            guard rate > 0 else { throw failure("espeak-ng reports no sample rate", function: "espeak_ng_GetSampleRate") }
            sampleRate = rate
            return rate
        }
    }

    private static let engine = Locked(State())

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
        let parts = voice.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
        let language = parts[0].lowercased(), variant = parts.count > 1 ? "+" + parts[1] : ""
        // espeak-ng takes an unknown variant without a word (and speaks without it): refuse it.
        if parts.count > 1, !listVoices(variants: true).contains(where: { $0.identifier.split(separator: "/").last.map(String.init) == String(parts[1]) }) {
            throw unknownVoice(voice)
        }
        if espeak.espeak_SetVoiceByName(voice) == EE_OK { return }
        let match = listVoices().first { $0.languages.contains { $0.lowercased() == language } }
            ?? listVoices().first { $0.identifier.split(separator: "/").last?.lowercased() == language || $0.name.lowercased() == language }
        guard let match, espeak.espeak_SetVoiceByName(match.identifier + variant) == EE_OK else { throw unknownVoice(voice) }
    }

    private static func unknownVoice(_ voice: String) -> AudioIOError {
        let known = listVoices()
        let preferred = ["en-us", "en-gb", "de", "fr", "es", "it", "pt", "nl", "ru", "zh"]
        let languages = Set(known.flatMap(\.languages))
        let examples = preferred.filter(languages.contains) + languages.sorted().filter { !preferred.contains($0) }.prefix(2)
        return failure("espeak-ng has no such voice; voices include " + examples.prefix(10).joined(separator: ", ")
                       + " (mixrender voices lists all \(known.count))", operation: "use the voice '\(voice)'")
    }

    private static func set(_ parameter: espeak_PARAMETER, _ value: Int, _ name: String) throws {
        guard espeak.espeak_SetParameter(parameter, Int32(value), 0) == EE_OK else {
            throw failure("espeak-ng refused \(name) \(value)", function: "espeak_SetParameter")
        }
    }

    /// One entry of espeak-ng's voice list.
    struct Entry {
        let name: String
        /// Its file (`gmw/en-US`, `!v/f3` for a variant).
        let identifier: String
        let languages: [String]
        /// espeak-ng's gender: 1 male, 2 female, 0 not said.
        let gender: Int
    }

    /// espeak-ng's voices (`espeak_ListVoices(nil)`), or its variants (`languages = "variant"`).
    static func listVoices(variants: Bool = false) -> [Entry] {
        var spec = espeak_VOICE()
        let list: UnsafeMutablePointer<UnsafePointer<espeak_VOICE>?>? = variants
            ? "variant".withCString { language in
                spec.languages = language
                return espeak.espeak_ListVoices(&spec)
            }
            : espeak.espeak_ListVoices(nil)
        guard let list else { return [] }
        var voices: [Entry] = []
        var i = 0
        while let entry = list[i] {
            let voice = entry.pointee
            voices.append(Entry(name: voice.name.map { String(cString: $0) } ?? "",
                                identifier: voice.identifier.map { String(cString: $0) } ?? "",
                                languages: languages(voice.languages), gender: Int(voice.gender)))
            i += 1
        }
        return voices
    }

    /// Every voice espeak-ng has, as `mixrender voices` lists them (`espeak:<language>`), and the names of its
    /// variants (`f3`, `klatt`), which follow a voice after a `+`.
    public static func catalogue() throws -> (voices: [SpeechVoice], variants: [String]) {
        try engine.withLock { state in
            _ = try state.start()
            let voices = listVoices().map { entry in
                SpeechVoice(id: "espeak:" + (entry.languages.first ?? entry.identifier.split(separator: "/").last.map(String.init) ?? entry.name),
                            engine: "espeak", name: entry.name, languages: entry.languages,
                            gender: entry.gender == 1 ? "male" : entry.gender == 2 ? "female" : "",
                            origin: "espeak-ng \(dataPackage) (Debian, GPL-3.0)")
            }
            let variants = listVoices(variants: true).compactMap { $0.identifier.split(separator: "/").last.map(String.init) }
            return (voices, Array(Set(variants)).sorted())
        }
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
        espeak.espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        return String(cString: buffer)
    }

    private static func failure(_ reason: String, function: String = "", operation: String = "synthesise speech") -> AudioIOError {
        AudioIOError(path: "", function: function, reason: reason, operation: operation)
    }

    private static func isFolder(_ path: String) -> Bool { FileSystem.identity(of: path)?.kind == .folder }
    private static func isFile(_ path: String) -> Bool { FileSystem.identity(of: path)?.kind == .regular }
}
