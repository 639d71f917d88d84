import MixDSP
import MixIO

/// Walks a parsed preset document (format version 1) and builds the validated `Preset`.
/// The format is documented in docs/presets.md and docs/preset.schema.json; keep all three in step.
struct PresetReader: SourceReader {
    /// Relative source paths are resolved against this folder.
    let baseDirectory: String
    /// What the caller overrides. Two change how the document is checked: a length instead of the document's
    /// `duration` (the preset is checked against it exactly as against its own: fades that fit, tracks that start
    /// in time), and `loopable`, which leaves the master fades out, so they need not fit the length. The loader
    /// merges the rest (`RenderOverrides.merge`).
    var overrides = RenderOverrides()
    /// The preset's `voice`, once read: the defaults of its `speech` tracks.
    var voice: NarrationSpec? = nil
    /// Every file the preset names, as `path` resolves it (shared by the copies of the reader).
    let files = FileLog()
    /// The presets whose beds led here, outermost first (`a.json` -> `b.json`), so a bed that leads back is refused.
    var bedChain: [String] = []
    /// What names source files instead of `baseDirectory`, when the program reading the preset decides (a server).
    var sources: SourceResolver? = nil
    /// The kinds a track may play, given rather than named here (`SourceKindRegistry.standard`: every kind).
    var kinds = SourceKindRegistry.standard

    /// The files a preset names, in the order they were read: what `Preset.files` becomes.
    /// Filled on one thread, by one reading of a preset.
    final class FileLog {
        var files: [PresetFile] = []
    }

    /// The keys each kind of object allows, in the order error messages list them.
    enum Keys {
        static let root = ["$schema", "version", "name", "duration", "output", "master", "voice", "bed", "tracks", "sections", "ending", "chapters"]
        static var output: [String] { OutputSpec.settings.keys ?? [] }
        static var loudness: [String] { LoudnessSpec.settings.keys ?? [] }
        static let trackLoudness = ["track", "offset"]
        /// The tag keys each format has a field of its own for (`TagFields.knownKeys`); `output.tags` takes any other too.
        static let tags = TagFields.knownKeys.map { $0.lowercased() }
        static let chapter = ["at", "name"]
        static var master: [String] { MasterSpec.settings.keys ?? [] }
        static var limiter: [String] { LimiterSpec.settings.keys ?? [] }
        static let fade = FadeSpec.keys
        /// A track's own keys, with the standard kinds' keys (a reader allows its own `kinds`' keys); the source's
        /// key comes after `name`.
        static var trackSettings: [String] { TrackSpec.settings.keys ?? [] }
        static var track: [String] { ["name"] + SourceKindRegistry.standard.keys + trackSettings }
        static let loop = LoopSpec.keys
        static let envelopePoint = ["time", "gainDb", "curve"]
    }

    /// The only format version there is.
    static let version = 1

    // MARK: - Document

    func preset(_ root: JSONCursor) throws -> Preset {
        guard case .object = root.value else {
            throw root.error("a preset is a JSON object ({ ... }), not \(root.value.summary)")
        }
        let document = try root.object(allowing: Keys.root)
        if let schema = document["$schema"] { _ = try schema.string() }
        if let version = document["version"] {
            let number = try version.wholeNumber()
            guard number == Double(PresetReader.version) else {
                throw version.error("unsupported preset version \(JSONValue.format(number)); this mixrender reads version \(PresetReader.version)")
            }
        }
        let name = try document["name"]?.string()
        // A session (`sections`) lasts as long as its voice and ending need unless it is given a length.
        let isSession = document.has("sections")
        let written = isSession
            ? try document["duration"]?.time(allowingZero: false)
            : try document.required("duration", hint: "the length of the render, e.g. \"8h\"").time(allowingZero: false)
        let duration = overrides.durationSeconds ?? written
        let output = try document["output"].map(output) ?? OutputSpec()
        var fittedFades: [String] = []
        let master = try document["master"].map { try self.master($0, duration: duration, written: written, fitted: &fittedFades) } ?? MasterSpec()
        var reader = self
        reader.voice = try document["voice"].map(voice)
        let voice = reader.voice

        var tracks: [TrackSpec] = []
        if let bed = document["bed"] {
            guard isSession else { throw bed.error("'bed' names the mix under a session's voice; a preset without 'sections' lists its own 'tracks'") }
            tracks = try bedTracks(bed)
        }
        if let tracksCursor = document["tracks"] {
            let trackCursors = try tracksCursor.array()
            guard !trackCursors.isEmpty || isSession else { throw tracksCursor.error("a preset needs at least one track") }
            guard tracks.count + trackCursors.count <= ReadingLimits.maximumTracks else {
                let bed = tracks.isEmpty ? "" : " with the bed's \(tracks.count)"
                throw tracksCursor.error("\(tracks.count + trackCursors.count) tracks\(bed); a preset has at most \(ReadingLimits.maximumTracks)")
            }
            tracks += try trackCursors.map { try reader.track($0, duration: duration, isSession: isSession, warnings: &fittedFades) }
        } else if !isSession {
            _ = try document.required("tracks", hint: "a list of at least one track")
        }
        var session: SessionSpec?
        if let sections = document["sections"] {
            session = try reader.session(sections, ending: document["ending"], voice: voice ?? NarrationSpec())
        } else if let ending = document["ending"] {
            throw ending.error("'ending' ends a session's voice; it needs 'sections'")
        }

        var preset = Preset(name: name, output: output, durationSeconds: duration, master: master, tracks: tracks,
                            voice: voice, session: session)
        preset.files = files.files
        // Chapters are marks at the output rate, which is final here (an override's rate stands in for the document's).
        preset.chapters = try document["chapters"].map { try chapters($0, duration: duration, sampleRate: overrides.sampleRate ?? output.sampleRate) }
        preset.durationIsOverride = overrides.durationSeconds != nil
        preset.warnings += fittedFades
        return preset
    }

    // MARK: - Output

    /// `output`, read from its declaration (`OutputSpec.settings`).
    func output(_ cursor: JSONCursor) throws -> OutputSpec { try OutputSpec.settings.read(cursor, reader: self) }

    /// `output.tags`: any key (case does not matter; written in upper case) with a string or a list of strings.
    /// The known keys come first, in `TagFields.knownKeys`'s order, then the others in alphabetical order.
    static func tags(_ cursor: JSONCursor) throws -> TagFields {
        guard case .object(let members) = cursor.value else { throw cursor.error("expected an object of tags, got \(cursor.value.summary)") }
        guard members.count <= TagFields.maximumFields else {
            throw cursor.error("\(members.count) tags; a file takes at most \(TagFields.maximumFields)")
        }
        let known = TagFields.knownKeys
        let keys = members.keys.sorted { a, b in
            let (i, j) = (known.firstIndex(of: a.uppercased()) ?? known.count, known.firstIndex(of: b.uppercased()) ?? known.count)
            return i != j ? i < j : (a.uppercased(), a) < (b.uppercased(), b)
        }
        var tags = TagFields()
        var seen: [String: String] = [:]
        for key in keys {
            let member = JSONCursor(members[key]!, path: JSONCursor.path(cursor.path, key: key), file: cursor.file)
            if let problem = TagFields.problem(key: key) { throw member.error(problem) }
            if let other = seen[key.uppercased()] {
                throw member.error("the same tag as '\(other)' (tag names do not depend on case); give it once")
            }
            seen[key.uppercased()] = key
            var values: [String] = []
            var isList = false
            switch member.value {
            case .string:
                values = [try member.string()]
            case .array:
                isList = true
                let items = try member.array()
                guard !items.isEmpty else { throw member.error("an empty list; leave the tag out, or give a string") }
                guard items.count <= TagFields.maximumValues else {
                    throw member.error("\(items.count) values; a tag takes at most \(TagFields.maximumValues)")
                }
                values = try items.map { item in
                    guard case .string = item.value else { throw item.error("expected a string, got \(item.value.summary)") }
                    return try item.string()
                }
            default:
                throw member.error("expected a string or a list of strings, got \(member.value.summary)")
            }
            for (index, value) in values.enumerated() {
                let at = isList ? JSONCursor(.string(value), path: JSONCursor.path(member.path, index: index), file: member.file) : member
                if let problem = TagFields.problem(value: value) { throw at.error(problem) }
                guard value.contains(where: { !$0.isWhitespace }) else { throw at.error("must not be empty; leave the tag out") }
            }
            tags.set(key, values)
        }
        return tags
    }

    /// The top-level `chapters`: `[{"at": "0:00", "name": "Rain"}, ...]`, in strictly increasing time, each
    /// before the end of the render when its length is known here (a session's is checked when it is planned);
    /// each a mark at the frame nearest its time at `sampleRate`.
    func chapters(_ cursor: JSONCursor, duration: Double?, sampleRate: Int) throws -> [ChapterMark] {
        let items = try cursor.array()
        guard !items.isEmpty else { throw cursor.error("an empty list; leave 'chapters' out for none") }
        guard items.count <= ChapterMark.maximumCount else {
            throw cursor.error("\(items.count) chapters; a file takes at most \(ChapterMark.maximumCount) (CHAPTER001 to CHAPTER999)")
        }
        var chapters: [ChapterMark] = []
        var previous: Double?
        for (index, item) in items.enumerated() {
            let object = try item.object(allowing: Keys.chapter)
            let at = try object.required("at", hint: "where the chapter starts: seconds or a time such as \"30m\"")
            let seconds = try at.time(allowingZero: true)
            let nameCursor = try object.required("name", hint: "what players show for the chapter")
            let name = try nameCursor.nonEmptyString()
            guard !name.utf8.contains(0) else { throw nameCursor.error("a chapter name must not contain a NUL character") }
            guard name.utf8.count <= ChapterMark.maximumNameBytes else {
                throw nameCursor.error("a chapter name has at most \(ChapterMark.maximumNameBytes) bytes")
            }
            let t = TimeParser.string(fromSeconds:)
            if let previous, seconds <= previous {
                throw at.error("\(t(seconds)) is not after chapters[\(index - 1)] (\(t(previous))); chapters are listed in time order")
            }
            if let duration, seconds >= duration {
                throw at.error("\(t(seconds)) is not before the end of the render (\(t(duration)))")
            }
            chapters.append(ChapterMark(name: name, frame: Int64((seconds * Double(sampleRate)).rounded()), sampleRate: sampleRate))
            previous = seconds
        }
        return chapters
    }

    /// `16`, `24` or `"float"`.
    static func sampleFormat(_ cursor: JSONCursor) throws -> OutputSampleFormat {
        switch cursor.value {
        case .number(16): return .pcm16
        case .number(24): return .pcm24
        case .string("float"): return .float32
        case .number(let n): throw cursor.error("unsupported bit depth \(JSONValue.format(n)); expected 16, 24 or \"float\"")
        case .string(let s): throw cursor.error("unsupported bit depth \(JSONValue.quote(s)); expected 16, 24 or \"float\"")
        default: throw cursor.error("expected 16, 24 or \"float\", got \(cursor.value.summary)")
        }
    }

    // MARK: - Master

    /// `master`, read from its declaration (`MasterSpec.settings`); its fades must fit in the render unless it loops.
    ///
    /// A length given by the caller (`--duration`, an app's sleep timer) is not the preset's to contradict: fades
    /// that fit the preset's own `duration` (`written`) but not the caller's are fitted to it in proportion
    /// (`fitFades`), and `fitted` gets the line that says so. Fades that do not fit the preset's own length are its own
    /// contradiction, an error as ever; so are fades too long for a caller's length when the preset gives none
    /// (a session that lasts as long as its voice), as there is no length to be in proportion to.
    func master(_ cursor: JSONCursor, duration: Double?, written: Double?, fitted: inout [String]) throws -> MasterSpec {
        var master = try MasterSpec.settings.read(cursor, reader: self)
        guard let duration, !overrides.loopable else { return master }
        let object = try cursor.object(allowing: Keys.master)
        let t = TimeParser.string(fromSeconds:)
        if let written, overrides.durationSeconds != nil {
            try checkFadesFit(master.fadeIn, master.fadeOut, in: written, what: "the preset's duration (\(t(written)))", object: object)
        }
        if let written {
            if let warning = fitFades(&master.fadeIn, &master.fadeOut, in: duration, proportionalTo: written, path: "master", file: cursor.file) {
                fitted.append(warning)
            }
        }
        try checkFadesFit(master.fadeIn, master.fadeOut, in: duration, what: "the render (\(t(duration)))", object: object)
        return master
    }

    // MARK: - Fades

    /// A fade-in and a fade-out must each fit in `span`, and so must both together.
    /// `what` names the span in messages, with its length: "the render (8h)".
    func checkFadesFit(_ fadeIn: FadeSpec?, _ fadeOut: FadeSpec?, in span: Double, what: String,
                       object: JSONObjectCursor) throws {
        let t = TimeParser.string(fromSeconds:)
        for (key, fade) in [("fadeIn", fadeIn), ("fadeOut", fadeOut)] {
            if let fade, fade.seconds > span, let cursor = object[key] {
                throw cursor.error("\(t(fade.seconds)) is longer than \(what)")
            }
        }
        if let fadeIn, let fadeOut, fadeIn.seconds + fadeOut.seconds > span {
            throw object.cursor.error("fadeIn (\(t(fadeIn.seconds))) and fadeOut (\(t(fadeOut.seconds))) together are longer than \(what)")
        }
    }

    /// Fits fades into `span`, the time they have at the length the caller asked for instead of the preset's
    /// own, when they do not fit it; returns the one-line warning that says so (the file, the fades' JSON paths
    /// under `path`, their lengths before and after), or nil when nothing changed (no length override, or fades
    /// that fit as they are). With `writtenSpan` (the master's: the preset's own length) both are scaled by `span /
    /// writtenSpan`, keeping the programme's shape (a 20 min fade-out of an hour becomes 40 s of a 2 min
    /// preview); without it (a track's) they are scaled just enough to fit, so a track that swells in slowly
    /// still swells over what is left of the render.
    func fitFades(_ fadeIn: inout FadeSpec?, _ fadeOut: inout FadeSpec?, in span: Double, proportionalTo writtenSpan: Double? = nil,
                  path: String, file: String) -> String? {
        let total = (fadeIn?.seconds ?? 0) + (fadeOut?.seconds ?? 0)
        guard overrides.durationSeconds != nil, total > span, span > 0 else { return nil }
        let t = TimeParser.string(fromSeconds:)
        let before = [("\(path).fadeIn", fadeIn), ("\(path).fadeOut", fadeOut)].compactMap { name, fade in fade.map { (name, $0.seconds) } }
        let scale = writtenSpan.map { min(span / $0, span / total) } ?? span / total
        fadeIn?.seconds *= scale
        fadeOut?.seconds *= scale
        let after = [fadeIn, fadeOut].compactMap { $0.map { t($0.seconds) } }
        let how = writtenSpan.map { "in proportion to the \(t(span)) asked for instead of \(t($0))" } ?? "to the \(t(span)) left at the length asked for"
        return "\(file): \(before.map(\.0).joined(separator: " and ")) (\(before.map { t($0.1) }.joined(separator: " and "))) "
            + "\(before.count == 1 ? "does" : "do") not fit the render: shortened \(how), to \(after.joined(separator: " and "))"
    }

    // MARK: - Tracks

    /// A track; `duration` is the render's length when it is known before planning (a session's may not be).
    ///
    /// With a length given by the caller, the fades of a track that plays to the end of the render are fitted to
    /// it as the master's are (`fitFades`, the warning appended to `warnings`).
    func track(_ cursor: JSONCursor, duration: Double?, isSession: Bool = false,
               warnings: inout [String]) throws -> TrackSpec {
        let object = try cursor.object(allowing: ["name"] + kinds.keys + Keys.trackSettings)
        let t = TimeParser.string(fromSeconds:)

        let given = kinds.keys.filter(object.has)
        guard given.count == 1, let sourceKey = given.first, let sourceCursor = object[sourceKey],
              let kind = kinds.kind(forKey: sourceKey) else {
            if given.isEmpty {
                throw cursor.error("a track needs a source: one of " + SourceKinds.list(kinds.keys, joinedBy: "or"))
            }
            throw cursor.error("a track has exactly one source; found " + given.map { "'\($0)'" }.joined(separator: " and "))
        }
        var track = TrackSpec(name: try object["name"]?.string(), source: SourceSpec(try kind.read(sourceCursor, reader: self)))
        track = try TrackSpec.settings.read(object, over: track, reader: self)
        let isGenerator = kind.isEndless

        // A track that starts at or after the end contradicts the preset's own length; a length the caller gives (an
        // app's sleep timer) may simply be shorter than the programme, so such a track is left out: the planner
        // warns that it will not sound.
        let startsAfterTheEnd = duration.map { track.startSeconds >= $0 } ?? false
        if let start = object["start"], let duration, startsAfterTheEnd, overrides.durationSeconds == nil {
            throw start.error("starts at \(t(track.startSeconds)), not before the end of the render (\(t(duration)))")
        }
        if let end = object["end"], let seconds = track.endSeconds, seconds <= track.startSeconds {
            throw end.error("\(t(seconds)) is not after the track's start (\(t(track.startSeconds)))")
        }
        if let loop = object["loop"], !kind.canLoop, track.loop != nil {
            let loopable = kinds.loopableKeys
            throw loop.error((isGenerator ? "generators are endless and cannot loop" : "'\(kind.key)' tracks play once and cannot loop")
                             + "; 'loop' is for " + SourceKinds.list(loopable, joinedBy: "and") + " tracks")
        }
        if let during = object["during"] {
            guard isSession else { throw during.error("'during' names sections of a session; this preset has no 'sections'") }
            for key in ["start", "end"] where object.has(key) {
                throw during.error("a track plays either 'during' sections or from 'start' to 'end', not both ('\(key)' is given)")
            }
            // Its span is known once the session is laid out: the planner checks the fades then.
        } else if let end = track.endSeconds {
            // The fades must fit in the track wherever its length is known without opening its files.
            let span = end - track.startSeconds
            try checkFadesFit(track.fadeIn, track.fadeOut, in: span,
                              what: "the track (\(t(span)) from start to end)", object: object)
        } else if isGenerator || track.loop != nil, let duration, !startsAfterTheEnd {
            let span = duration - track.startSeconds
            if let fitted = fitFades(&track.fadeIn, &track.fadeOut, in: span, path: cursor.path, file: cursor.file) {
                warnings.append(fitted)
            }
            try checkFadesFit(track.fadeIn, track.fadeOut, in: span,
                              what: "the track (\(t(span)) from its start to the end of the render)", object: object)
        }
        return track
    }

    /// A source file's path, resolved against the preset's folder.
    func path(_ cursor: JSONCursor) throws -> String {
        let text = try cursor.nonEmptyString()
        guard !text.utf8.contains(0) else { throw cursor.error("a path cannot contain a NUL character (\\u0000)") }
        let path: String
        if let sources {
            switch sources.resolve(text) {
            case .success(let file): path = file
            case .failure(let refusal): throw cursor.error(refusal.reason)
            }
        } else {
            path = PresetLoader.resolve(text, against: baseDirectory)
        }
        files.files.append(PresetFile(path: path, preset: cursor.file, jsonPath: cursor.path))
        return path
    }

    /// Breakpoints `{"time": "10m", "gainDb": -12, "curve": "exponential"}`, times strictly increasing.
    static func envelope(_ cursor: JSONCursor) throws -> [EnvelopePoint] {
        var points: [EnvelopePoint] = []
        for element in try cursor.array() {
            let object = try element.object(allowing: Keys.envelopePoint)
            let timeCursor = try object.required("time")
            let seconds = try timeCursor.time(allowingZero: true)
            if let previous = points.last, seconds <= previous.position {
                let t = TimeParser.string(fromSeconds:)
                throw timeCursor.error("\(t(seconds)) is not after the previous point's time (\(t(previous.position))); envelope times must increase")
            }
            let gain = try object.required("gainDb").number(in: -120...24)
            let curve = try object["curve"]?.curve(allowingEqualGain: false) ?? .linear
            points.append(EnvelopePoint(position: seconds, value: gain, curve: curve))
        }
        return points
    }
}
