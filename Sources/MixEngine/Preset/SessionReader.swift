import MixDSP
import MixIO

/// Reading the parts of a preset that voices use: `voice`, `bed`, `sections` and `ending` (see
/// docs/sessions.md). Same conventions as the rest of the reader: every problem names its JSON path.
extension PresetReader {
    enum SessionKeys {
        static var voice: [String] { NarrationSpec.settings.keys ?? [] }
        static var speech: [String] { SpeechSettings.keys }
        static var ducking: [String] { DuckingSpec.settings.keys ?? [] }
        static let section = ["name", "stretch", "length", "segments", "pacing", "shortestPause", "longestPause"]
        static let segmentSources = ["text", "ssml", "file"]
        static let segment = segmentSources + ["speech", "transcript", "gapBefore", "pauseAfter", "at", "gainDb"]
        static let ending = ["type", "hold", "fadeOut", "rise", "riseDb", "chime"]
    }

    /// The longest transcript a recording may have (a request line to the aligner is at most 1 MiB).
    static let longestTranscriptBytes = 512 << 10

    // MARK: - Voice

    /// `voice`, read from its declaration (`NarrationSpec.settings`).
    func voice(_ cursor: JSONCursor) throws -> NarrationSpec { try NarrationSpec.settings.read(cursor, reader: self) }

    // MARK: - Bed

    /// `"bed": "night.json"` or `{"preset": "night.json", "gainDb": -6}`: the tracks of a mix preset, its
    /// paths resolved against its own folder, each turned up or down by `gainDb`.
    func bedTracks(_ cursor: JSONCursor) throws -> [TrackSpec] {
        var pathCursor = cursor, gainDb = 0.0
        if case .object = cursor.value {
            let object = try cursor.object(allowing: ["preset", "gainDb"])
            pathCursor = try object.required("preset", hint: "the path of a mix preset")
            if let gain = object["gainDb"] { gainDb = try gain.number(in: -60...24) }
        }
        let path = try self.path(pathCursor)
        // A bed that leads back to a preset on the way here would be read for ever: name the loop.
        let chain = bedChain + [cursor.file]
        if let location = FileSystem.location(of: path), chain.contains(where: { FileSystem.location(of: $0) == location }) {
            throw pathCursor.error("the beds form a loop: \((chain + [path]).joined(separator: " -> "))")
        }
        let mix: Preset
        do {
            // Named through a resolver (a server's sounds), the bed's own names are taken from its folder there.
            mix = try PresetLoader.load(path: path, bedChain: chain, sources: try sources.map { $0.inside(try pathCursor.nonEmptyString()) })
        } catch EngineError.preset(let error) where error.file == path && error.jsonPath.isEmpty {
            throw pathCursor.error(error.message.replacingOccurrences(of: "cannot read preset", with: "cannot read the bed '\(path)'"))
        }
        guard mix.session == nil else {
            throw pathCursor.error("'\(path)' is a session (it has 'sections'); a bed is a mix")
        }
        files.files += mix.files
        return mix.tracks.map { track in
            var track = track
            track.gainDb += gainDb
            return track
        }
    }

    // MARK: - Sections

    func session(_ cursor: JSONCursor, ending: JSONCursor?, voice: NarrationSpec) throws -> SessionSpec {
        let elements = try cursor.array()
        guard !elements.isEmpty else { throw cursor.error("a session needs at least one section") }
        guard elements.count <= 999 else { throw cursor.error("\(elements.count) sections are more than 999, the most chapter marks can number") }
        var sections: [SectionSpec] = []
        var lengths = 0.0
        for element in elements {
            let section = try self.section(element, voice: voice)
            // The sections' lengths alone must fit the longest render (the voice can only add to them).
            lengths += section.minimumSeconds
            if lengths > TimeParser.maximumSeconds, let length = try element.object(allowing: SessionKeys.section)["length"] {
                let t = TimeParser.string(fromSeconds:)
                throw length.error("the sections' lengths add up to \(t(lengths)) here, longer than \(t(TimeParser.maximumSeconds)), the longest time mixrender takes")
            }
            if sections.contains(where: { $0.name == section.name }) {
                throw element.error("there is already a section named \(JSONValue.quote(section.name)); section names must differ")
            }
            sections.append(section)
        }
        return SessionSpec(sections: sections, ending: try ending.map(self.ending))
    }

    func section(_ cursor: JSONCursor, voice: NarrationSpec) throws -> SectionSpec {
        let object = try cursor.object(allowing: SessionKeys.section)
        let name = try object.required("name", hint: "e.g. \"Induction\"").nonEmptyString()
        var section = SectionSpec(name: name, segments: [])
        if let stretch = object["stretch"] { section.stretch = try stretch.bool() }
        if let length = object["length"] { section.minimumSeconds = try length.time(allowingZero: false) }
        if let segments = object["segments"] {
            section.segments = try segments.array().map { try segment($0, voice: voice) }
        }
        guard !section.segments.isEmpty || section.minimumSeconds > 0 else {
            throw cursor.error("a section needs 'segments' to speak or a 'length' to last")
        }
        for key in ["pacing", "shortestPause", "longestPause"] where object.has(key) && !section.stretch {
            throw object[key]!.error("'\(key)' says how a stretching section spreads its added time; this section has no \"stretch\": true")
        }
        if let pacing = object["pacing"] {
            if case .array = pacing.value {
                let weights = try pacing.array().map { try $0.number(in: 0...1_000_000) }
                guard weights.count == section.segments.count else {
                    throw pacing.error("\(weights.count) weights for \(section.segments.count) segments; give one per segment (the pause after it)")
                }
                guard weights.contains(where: { $0 > 0 }) else { throw pacing.error("at least one weight must be above 0") }
                section.pacing = .weights(weights)
            } else {
                section.pacing = try pacing.choice("pacing", [("even", SectionPacing.even), ("end", .end)])
            }
        }
        if let time = object["shortestPause"] { section.shortestPauseSeconds = try time.time(allowingZero: true) }
        if let time = object["longestPause"] {
            section.longestPauseSeconds = try time.time(allowingZero: false)
            if section.longestPauseSeconds! < section.shortestPauseSeconds {
                throw time.error("the longest pause is shorter than the shortest (\(TimeParser.string(fromSeconds: section.shortestPauseSeconds)))")
            }
        }
        return section
    }

    func segment(_ cursor: JSONCursor, voice: NarrationSpec) throws -> SegmentSpec {
        let object = try cursor.object(allowing: SessionKeys.segment)
        let given = SessionKeys.segmentSources.filter(object.has)
        guard given.count == 1, let key = given.first, let source = object[key] else {
            if given.isEmpty {
                throw cursor.error("a segment needs one of 'text' (spoken aloud), 'ssml' (the same, with SSML markup) or 'file' (a recording)")
            }
            throw cursor.error("a segment has exactly one of 'text', 'ssml' or 'file'; found " + given.map { "'\($0)'" }.joined(separator: " and "))
        }
        let settings = try object["speech"].map { try speech($0, defaults: voice.speech) } ?? voice.speech
        var segment: SegmentSpec
        switch key {
        case "file":
            if object.has("speech") { throw object["speech"]!.error("'speech' sets how text is spoken; this segment plays a recording") }
            segment = SegmentSpec(source: .file(path: try path(source)))
            if let transcript = object["transcript"] {
                let text = try transcript.nonEmptyString()
                guard !text.utf8.contains(0) else { throw transcript.error("a transcript cannot contain a NUL character (\\u0000)") }
                guard text.utf8.count <= Self.longestTranscriptBytes else {
                    throw transcript.error("a transcript of \(text.utf8.count) bytes is longer than the \(Self.longestTranscriptBytes) allowed")
                }
                segment.transcript = text
            }
        default:
            if let transcript = object["transcript"] {
                throw transcript.error("'transcript' gives a recording's words; this segment's words are its '\(key)'")
            }
            let text = try source.nonEmptyString()
            guard !text.utf8.contains(0) else { throw source.error("text cannot contain a NUL character (\\u0000)") }
            if key == "ssml" { try checkSSML(text, at: source) }
            segment = SegmentSpec(source: .text(text, ssml: key == "ssml", settings: settings))
        }
        if let gap = object["gapBefore"] { segment.gapBefore = try gap.time(allowingZero: true) }
        if let pause = object["pauseAfter"] { segment.pauseAfter = try pause.time(allowingZero: true) }
        if let at = object["at"] {
            segment.atSeconds = try at.time(allowingZero: true)
            if let gap = object["gapBefore"] { throw gap.error("a segment placed 'at' a time has no gap before it; give one or the other") }
        }
        if let gain = object["gainDb"] { segment.gainDb = try gain.number(in: -40...40) }
        return segment
    }

    /// `"Deepener"`, or `["Induction", "Deepener"]` (from the first's start to the last's end).
    static func sectionSpan(_ cursor: JSONCursor) throws -> SectionSpan {
        if case .string = cursor.value {
            let name = try cursor.nonEmptyString()
            return SectionSpan(first: name, last: name)
        }
        let names = try cursor.array()
        guard (1...2).contains(names.count) else {
            throw cursor.error("expected a section's name or [first, last], got an array of \(names.count)")
        }
        return SectionSpan(first: try names[0].nonEmptyString(), last: try names[names.count - 1].nonEmptyString())
    }

    // MARK: - Ending

    func ending(_ cursor: JSONCursor) throws -> EndingSpec {
        let object = try cursor.object(allowing: SessionKeys.ending)
        let type = try object.required("type", hint: "\"sleep\" or \"wake\"").choice("ending", ["sleep": 0, "wake": 1])
        let (own, other) = type == 0 ? (["hold", "fadeOut"], ["rise", "riseDb", "chime"]) : (["rise", "riseDb", "chime"], ["hold", "fadeOut"])
        for key in other where object.has(key) {
            throw object[key]!.error("'\(key)' belongs to the \(type == 0 ? "wake" : "sleep") ending; a \(type == 0 ? "sleep" : "wake") ending takes " + own.map { "'\($0)'" }.joined(separator: ", "))
        }
        if type == 0 {
            let hold = try object["hold"]?.time(allowingZero: true) ?? 0
            let fade = try object.required("fadeOut", hint: "how long everything fades out after the last words, e.g. \"5m\"")
            return .sleep(holdSeconds: hold, fade: try fade.fade())
        }
        let rise = try object["rise"]?.time(allowingZero: true) ?? 10
        let riseDb = try object["riseDb"]?.number(in: 0...24) ?? 6
        var chime: SourceSpec? = kinds.sound(word: "bell", kind: "chime")
        if let cursor = object["chime"] { chime = try kinds.sound(cursor, kind: "chime", allowingNone: true) }
        return .wake(riseSeconds: rise, riseDb: riseDb, chime: chime)
    }
}
