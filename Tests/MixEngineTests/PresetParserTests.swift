import DSPTestSupport
import Foundation
import MixDSP
import MixIO
@testable import MixEngine
import Testing

/// Preset format v1: the parser builds the expected model, reads every time notation, and reports each
/// kind of problem with the right JSON path and a message a person can act on.
@Suite struct PresetParserTests {
    // MARK: - Helpers

    static func parse(_ json: String, baseDirectory: String = "/presets") throws -> Preset {
        try PresetLoader.parse(Data(json.utf8), file: "night.json", baseDirectory: baseDirectory)
    }

    /// A preset around some tracks (JSON array elements) and optional extra top-level members.
    static func preset(tracks: String = #"{"generator": {"type": "pink"}}"#, duration: String = #""8h""#,
                       extra: String = "") -> String {
        #"{"duration": \#(duration), \#(extra.isEmpty ? "" : extra + ",") "tracks": [\#(tracks)]}"#
    }

    /// The error parsing `json` throws; records an issue if it parses.
    static func error(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) -> PresetError? {
        do {
            let preset = try parse(json)
            Issue.record("expected an error, got \(preset)", sourceLocation: sourceLocation)
        } catch EngineError.preset(let error) {
            #expect(error.file == "night.json", sourceLocation: sourceLocation)
            #expect(!error.description.contains("\n"), sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("expected a PresetError, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    /// Parsing `json` fails at `path` with a message containing `fragment`.
    static func expectError(_ json: String, path: String, _ fragment: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = error(json, sourceLocation: sourceLocation) else { return }
        #expect(error.jsonPath == path, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
    }

    // MARK: - The whole model

    @Test func fullPresetParsesToTheExpectedModel() throws {
        let json = #"""
        {
          "$schema": "../docs/preset.schema.json",
          "version": 1,
          "name": "Night rain",
          "duration": "8h",
          "output": {
            "sampleRate": 44100, "channels": 1, "quality": 0.7, "bitDepth": "float", "resampler": "best",
            "tags": {"title": "Rain", "artist": "me", "comment": "for sleeping"}
          },
          "master": {
            "gainDb": -3,
            "fadeIn": 10,
            "fadeOut": {"duration": "45m", "curve": "exponential"},
            "limiter": {"ceilingDb": -2, "lookaheadMs": 10, "releaseMs": 500}
          },
          "tracks": [
            {
              "name": "rain",
              "file": "sounds/rain.ogg",
              "gainDb": -6,
              "pan": -0.25,
              "loop": {"crossfade": {"duration": "2s", "curve": "equalGain"}},
              "fadeIn": "1m",
              "envelope": [
                {"time": 0, "gainDb": 0},
                {"time": "1h", "gainDb": -6, "curve": "sCurve"},
                {"time": "3:00:00", "gainDb": -120.0, "curve": "exponential"}
              ]
            },
            {
              "generator": {"type": "brown", "seed": 9007199254740992},
              "start": "1h30m", "end": "7h",
              "fadeIn": {"duration": "5m", "curve": "logarithmic"}, "fadeOut": "10m"
            },
            {
              "playlist": {"files": ["music/a.ogg", "/abs/b.flac", "./c.wav"], "crossfade": {"duration": 8, "curve": "linear"}},
              "loop": true, "end": "2h"
            },
            { "playlist": {"files": ["d.ogg"]}, "loop": {"crossfade": 0} },
            { "playlist": {"files": ["e.ogg"], "crossfade": "4s"}, "loop": {} },
            { "generator": {"type": "white"}, "loop": false }
          ]
        }
        """#
        var output = OutputSpec()
        output.sampleRate = 44100
        output.channelCount = 1
        output.quality = 0.7
        output.sampleFormat = .float32
        output.resampler = .best
        output.tags = TagFields([.init(key: "TITLE", values: ["Rain"]), .init(key: "ARTIST", values: ["me"]),
                                 .init(key: "COMMENT", values: ["for sleeping"])])
        output.tagPaths = ["TITLE": "output.tags.title", "ARTIST": "output.tags.artist", "COMMENT": "output.tags.comment"]

        var master = MasterSpec()
        master.gainDb = -3
        master.fadeIn = FadeSpec(seconds: 10, curve: .sCurve)
        master.fadeOut = FadeSpec(seconds: 2700, curve: .exponential)
        master.limiter.ceilingDb = -2
        master.limiter.lookaheadMs = 10
        master.limiter.releaseMs = 500

        var rain = TrackSpec(name: "rain", source: .file(path: "/presets/sounds/rain.ogg"))
        rain.gainDb = -6
        rain.pan = -0.25
        rain.loop = LoopSpec(crossfade: FadeSpec(seconds: 2, curve: .linear))
        rain.fadeIn = FadeSpec(seconds: 60, curve: .sCurve)
        rain.envelope = [EnvelopePoint(position: 0, value: 0),
                         EnvelopePoint(position: 3600, value: -6, curve: .sCurve),
                         EnvelopePoint(position: 10800, value: -120, curve: .exponential)]

        var noise = TrackSpec(source: .noise(NoiseKind(color: .brown, seed: 9_007_199_254_740_992)))
        noise.startSeconds = 5400
        noise.endSeconds = 25200
        noise.fadeIn = FadeSpec(seconds: 300, curve: .logarithmic)
        noise.fadeOut = FadeSpec(seconds: 600, curve: .sCurve)

        var music = TrackSpec(source: .playlist(paths: ["/presets/music/a.ogg", "/abs/b.flac", "/presets/c.wav"],
                                                crossfade: FadeSpec(seconds: 8, curve: .linear)))
        music.loop = LoopSpec()
        music.endSeconds = 7200

        var hardSeam = TrackSpec(source: .playlist(paths: ["/presets/d.ogg"], crossfade: FadeSpec(seconds: 3, curve: .equalPower)))
        hardSeam.loop = LoopSpec(crossfade: FadeSpec(seconds: 0, curve: .equalPower))

        var defaultLoop = TrackSpec(source: .playlist(paths: ["/presets/e.ogg"], crossfade: FadeSpec(seconds: 4, curve: .equalPower)))
        defaultLoop.loop = LoopSpec(crossfade: FadeSpec(seconds: 1, curve: .equalPower))

        let white = TrackSpec(source: .noise(NoiseKind(color: .white, seed: 1)))

        let expected = Preset(name: "Night rain", output: output, durationSeconds: 28800, master: master,
                              tracks: [rain, noise, music, hardSeam, defaultLoop, white])
        let parsed = try Self.parse(json)
        // Every file the preset names is listed, resolved, with where it is named (what FileAccess checks).
        #expect(parsed.files.map(\.preset).allSatisfy { $0 == "night.json" })
        #expect(parsed.files.count == 6, "\(parsed.files)")
        #expect(parsed.files.allSatisfy { $0.path.hasPrefix("/") && $0.jsonPath.hasPrefix("tracks[") }, "\(parsed.files)")
        var withFiles = expected
        withFiles.files = parsed.files
        #expect(parsed == withFiles)
        #expect(parsed.version == 1)
    }

    @Test func minimalPresetGetsTheDefaults() throws {
        let parsed = try Self.parse(#"{"duration": 60, "tracks": [{"file": "rain.ogg"}]}"#, baseDirectory: "")
        var expected = Preset(durationSeconds: 60, tracks: [TrackSpec(source: .file(path: "rain.ogg"))])
        expected.files = [PresetFile(path: "rain.ogg", preset: "night.json", jsonPath: "tracks[0].file")]
        #expect(parsed == expected)
        #expect(parsed.output.sampleRate == 48000 && parsed.output.channelCount == 2 && parsed.output.sampleFormat == .pcm16)
        #expect(parsed.master.limiter == LimiterSpec())
    }

    @Test func bitDepthsMapToSampleFormats() throws {
        for (json, format) in [("16", OutputSampleFormat.pcm16), ("24", .pcm24), (#""float""#, .float32)] {
            let parsed = try Self.parse(Self.preset(extra: #""output": {"bitDepth": \#(json)}"#))
            #expect(parsed.output.sampleFormat == format)
        }
    }

    // MARK: - Paths

    @Test(arguments: [
        ("sounds/rain.ogg", "/presets", "/presets/sounds/rain.ogg"),
        ("./sounds//rain.ogg", "/presets", "/presets/sounds/rain.ogg"),
        ("../sounds/rain.ogg", "presets", "presets/../sounds/rain.ogg"),
        ("/srv/rain.ogg", "/presets", "/srv/rain.ogg"),
        ("rain.ogg", "", "rain.ogg"),
        ("rain.ogg", "/", "/rain.ogg"),
    ])
    func relativePathsResolveAgainstThePresetsFolder(path: String, base: String, resolved: String) {
        #expect(PresetLoader.resolve(path, against: base) == resolved)
    }

    @Test func folderOfAPresetPath() {
        #expect(PresetLoader.folder(of: "presets/night.json") == "presets")
        #expect(PresetLoader.folder(of: "night.json") == "")
        #expect(PresetLoader.folder(of: "/night.json") == "/")
        #expect(PresetLoader.folder(of: "/a/b/night.json") == "/a/b")
    }

    @Test func loadReadsTheFileAndResolvesAgainstItsFolder() throws {
        let folder = try TemporaryFolder()
        let file = try folder.preset(#"{"duration": "1h", "tracks": [{"file": "sounds/rain.ogg"}, {"playlist": {"files": ["/x.ogg"]}}]}"#,
                                     name: "night.json")

        let parsed = try PresetLoader.load(path: file)
        #expect(parsed.tracks[0].source == .file(path: folder.path("sounds/rain.ogg")))
        #expect(parsed.tracks[1].source == .playlist(paths: ["/x.ogg"], crossfade: FadeSpec(seconds: 3, curve: .equalPower)))
        #expect(parsed.durationSeconds == 3600)

        // A folder is not a preset.
        #expect(throws: EngineError.preset(PresetError(file: folder.url.path, jsonPath: "", message: "cannot read preset: it is a folder, not a file"))) {
            try PresetLoader.load(path: folder.url.path)
        }
    }

    // MARK: - Times

    @Test(arguments: [
        ("90", 90.0), ("2.5", 2.5), ("0", 0), ("90s", 90), ("45m", 2700), ("8h", 28800), ("500ms", 0.5),
        ("1h30m", 5400), ("2m30s", 150), ("1h 30m", 5400), ("90 s", 90), (" 5s ", 5), ("1.5h", 5400),
        ("1h30.5m", 5430), ("1m500ms", 60.5), ("1h2m3s500ms", 3723.5), ("0s", 0),
        ("1:30:00", 5400), ("12:30", 750), ("1:02:03.5", 3723.5), ("90:00", 5400), ("0:00:00.25", 0.25),
        ("00:59", 59), ("100:00:00", 360000),
    ])
    func validTimeStrings(text: String, seconds: Double) {
        #expect(TimeParser.seconds(text) == seconds)
    }

    @Test(arguments: [
        "abc", "5x", "1:99", "", " ", "m", "s", "ms", "h", "-5s", "-5", "+5", "1h30", "5.", ".5", "1:5", "1:60",
        "1:00:60", "1:60:00", "1:2:3:4", "1:00:00:00", ":30", "1:", "1::00", "1:02.5:00", "12:30.", "inf", "nan",
        "1e3", "1.5h30m", "30m1h", "1h1h", "1s1s", "5 x", "h1", "0x10", "1,5s", "8H", "5 sec", "1h-30m",
    ])
    func invalidTimeStrings(text: String) {
        #expect(TimeParser.seconds(text) == nil)
    }

    @Test func timesRoundTripThroughTheirWrittenForm() {
        #expect(TimeParser.string(fromSeconds: 28800) == "8h")
        #expect(TimeParser.string(fromSeconds: 5400) == "1h30m")
        #expect(TimeParser.string(fromSeconds: 150.5) == "2m30.5s")
        #expect(TimeParser.string(fromSeconds: 0.25) == "0.25s")
        #expect(TimeParser.string(fromSeconds: 0) == "0s")
        #expect(TimeParser.string(fromSeconds: 3600.001) == "1h0.001s")
        for seconds in [0.0, 0.5, 59.999, 60, 3599, 3723.5, 28800, 100_000.125] {
            #expect(TimeParser.seconds(TimeParser.string(fromSeconds: seconds)) == seconds)
        }
    }

    @Test func timesAreNumbersOrStringsEverywhere() throws {
        let parsed = try Self.parse(Self.preset(
            tracks: #"{"generator": {"type": "pink"}, "start": 1.5, "end": "0:10:00", "fadeIn": "500ms", "fadeOut": 2}"#,
            duration: #""1h""#))
        #expect(parsed.tracks[0].startSeconds == 1.5)
        #expect(parsed.tracks[0].endSeconds == 600)
        #expect(parsed.tracks[0].fadeIn == FadeSpec(seconds: 0.5, curve: .sCurve))
        #expect(parsed.tracks[0].fadeOut == FadeSpec(seconds: 2, curve: .sCurve))
    }

    @Test func invalidTimeInAPresetNamesItsPath() {
        Self.expectError(Self.preset(duration: #""8hours""#), path: "duration", "invalid time '8hours'; write seconds")
        Self.expectError(Self.preset(duration: #""1:99""#), path: "duration", "invalid time '1:99'")
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink"}, "start": "5x"}"#),
                         path: "tracks[0].start", "invalid time '5x'")
        Self.expectError(Self.preset(duration: "true"), path: "duration", "expected a time, got true")
    }

    // MARK: - Error format

    @Test func errorDescriptionIsFilePathMessage() {
        let error = PresetError(file: "presets/night.json", jsonPath: "tracks[2].fadeIn.curve",
                                message: "unknown curve 'cubic'; expected one of linear, equalPower, sCurve, logarithmic, exponential")
        #expect(error.description == "presets/night.json: tracks[2].fadeIn.curve: unknown curve 'cubic'; expected one of linear, equalPower, sCurve, logarithmic, exponential")
        #expect(PresetError(file: "night.json", jsonPath: "", message: "missing").description == "night.json: missing")
        #expect(PresetError(file: "a.json", jsonPath: "x", message: "two\nlines").description == "a.json: x: two lines")
    }

    // MARK: - One test per kind of error

    @Test func malformedJSONSaysWhere() throws {
        let json = "{\n  \"duration\": \"8h\",\n  \"tracks\": [1, 2,, 3]\n}"
        let error = try #require(Self.error(json))
        #expect(error.jsonPath == "")
        #expect(error.message == "malformed JSON: invalid value at line 3, column 19 (near ', 3]')")
        #expect(error.description == "night.json: malformed JSON: invalid value at line 3, column 19 (near ', 3]')")

        Self.expectError("{\"duration\": \"8h\", // the length\n \"tracks\": []}", path: "", "(JSON has no comments)")
        Self.expectError("{\"duration\": '8h'}", path: "", "line 1, column 14 (JSON strings take double quotes)")
        Self.expectError("{\"duration\": \"8h\", \"tracks\": [", path: "", "malformed JSON: unexpected end of file")
        Self.expectError("", path: "", "malformed JSON: the file is empty")
        Self.expectError("[1, 2]", path: "", "a preset is a JSON object ({ ... }), not an array")
    }

    @Test func duplicateKeysAreErrors() {
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink"}}, {"file": "a.ogg", "gainDb": -6, "gainDb": -3}"#),
                         path: "tracks[1]", "duplicate key 'gainDb'")
        Self.expectError(#"{"duration": 1, "duration": 2, "tracks": []}"#, path: "", "duplicate key 'duration'")
    }

    @Test func unknownTopLevelKey() {
        Self.expectError(Self.preset(extra: #""trakcs": []"#), path: "",
                         "unknown key 'trakcs' (did you mean 'tracks'?); expected one of $schema, version, name, duration, output, master, voice, bed, tracks, sections, ending")
    }

    @Test func unknownTrackKey() {
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gian": -6}"#), path: "tracks[0]",
                         "unknown key 'gian' (did you mean 'gainDb' or 'volume'?); expected one of name, file, generator, playlist, tone, sweep, speech, binaural, isochronic, breathing, chime, rain, wind, surf, fire, crickets, events, resequence, gainDb, volume, loudness, pan, start, end, during, loop, fadeIn, fadeOut, envelope, duck, drift")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "fade_in": 5}"#), path: "tracks[0]", "(did you mean 'fadeIn'?)")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "tempo": 5}"#), path: "tracks[0]", "unknown key 'tempo'; expected one of")
        Self.expectError(Self.preset(extra: #""master": {"limiter": {"ceiling": -1}}"#), path: "master.limiter",
                         "unknown key 'ceiling' (did you mean 'ceilingDb'?)")
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink", "colour": "x"}}"#), path: "tracks[0].generator",
                         "unknown key 'colour'")
    }

    @Test func unknownCurve() throws {
        let json = Self.preset(tracks: #"{"file": "a.ogg"}, {"file": "b.ogg", "fadeIn": {"duration": "5s", "curve": "cubic"}}"#)
        let error = try #require(Self.error(json))
        #expect(error.jsonPath == "tracks[1].fadeIn.curve")
        #expect(error.message == "unknown curve 'cubic'; expected one of linear, equalPower, sCurve, logarithmic, exponential")
        #expect(error.description == "night.json: tracks[1].fadeIn.curve: unknown curve 'cubic'; expected one of linear, equalPower, sCurve, logarithmic, exponential")

        Self.expectError(Self.preset(tracks: #"{"file": "b.ogg", "fadeOut": {"duration": 5, "curve": "scurve"}}"#),
                         path: "tracks[0].fadeOut.curve", "unknown curve 'scurve' (did you mean 'sCurve'?)")
        // equalGain is a crossfade name only.
        Self.expectError(Self.preset(tracks: #"{"file": "b.ogg", "fadeIn": {"duration": 5, "curve": "equalGain"}}"#),
                         path: "tracks[0].fadeIn.curve", "unknown curve 'equalGain' (it names a crossfade curve; here use 'linear'")
        Self.expectError(Self.preset(tracks: #"{"file": "b.ogg", "loop": {"crossfade": {"duration": 1, "curve": "cubic"}}}"#),
                         path: "tracks[0].loop.crossfade.curve",
                         "expected one of linear, equalPower, sCurve, logarithmic, exponential, equalGain")
        Self.expectError(Self.preset(tracks: #"{"file": "b.ogg", "envelope": [{"time": 0, "gainDb": 0, "curve": "equalGain"}]}"#),
                         path: "tracks[0].envelope[0].curve", "unknown curve 'equalGain'")
        Self.expectError(Self.preset(tracks: #"{"file": "b.ogg", "fadeIn": {"duration": 5, "curve": 3}}"#),
                         path: "tracks[0].fadeIn.curve", "expected a string, got the number 3")
    }

    @Test func crossfadesAcceptEqualGain() throws {
        let parsed = try Self.parse(Self.preset(tracks: #"{"playlist": {"files": ["a.ogg"], "crossfade": {"duration": 2, "curve": "equalGain"}}}"#))
        #expect(parsed.tracks[0].source == .playlist(paths: ["/presets/a.ogg"], crossfade: FadeSpec(seconds: 2, curve: .linear)))
    }

    @Test func negativeAndOutOfRangeNumbers() {
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gainDb": -100}"#), path: "tracks[0].gainDb",
                         "-100 is out of range; expected -96...24")
        Self.expectError(Self.preset(extra: #""master": {"gainDb": 30}"#), path: "master.gainDb", "30 is out of range; expected -60...24")
        Self.expectError(Self.preset(duration: "-5"), path: "duration", "-5 is negative; times are 0 or more")
        Self.expectError(Self.preset(duration: #""-5s""#), path: "duration", "'-5s' is negative")
        Self.expectError(Self.preset(duration: "0"), path: "duration", "must be longer than 0")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "fadeIn": "-2s"}"#), path: "tracks[0].fadeIn", "is negative")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "fadeIn": {"duration": 0}}"#), path: "tracks[0].fadeIn.duration",
                         "must be longer than 0")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "pan": 1.5}"#), path: "tracks[0].pan", "1.5 is out of range; expected -1...1")
        Self.expectError(Self.preset(extra: #""output": {"quality": 1.2}"#), path: "output.quality", "out of range; expected 0...1")
        Self.expectError(Self.preset(extra: #""output": {"sampleRate": 4000}"#), path: "output.sampleRate", "expected 8000...192000")
        Self.expectError(Self.preset(extra: #""master": {"limiter": {"ceilingDb": 1}}"#), path: "master.limiter.ceilingDb", "expected -20...0")
        Self.expectError(Self.preset(extra: #""master": {"limiter": {"lookaheadMs": 0.1}}"#), path: "master.limiter.lookaheadMs", "expected 0.5...50")
        Self.expectError(Self.preset(extra: #""master": {"limiter": {"releaseMs": 6000}}"#), path: "master.limiter.releaseMs", "expected 1...5000")
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink", "seed": -1}}"#), path: "tracks[0].generator.seed", "expected 0...9007199254740992")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "envelope": [{"time": 0, "gainDb": -121}]}"#),
                         path: "tracks[0].envelope[0].gainDb", "expected -120...24")
    }

    @Test func nonFiniteAndWrongTypedNumbers() {
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gainDb": "-6"}"#), path: "tracks[0].gainDb",
                         "expected a number, got the string '-6'")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "pan": true}"#), path: "tracks[0].pan", "expected a number, got true")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gainDb": null}"#), path: "tracks[0].gainDb", "expected a number, got null")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gainDb": [1]}"#), path: "tracks[0].gainDb", "expected a number, got an array")
        Self.expectError(Self.preset(extra: #""output": {"sampleRate": 44100.5}"#), path: "output.sampleRate", "44100.5 is not a whole number")
        Self.expectError(Self.preset(extra: #""output": {"channels": "2"}"#), path: "output.channels", "expected a whole number, got the string '2'")
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink", "seed": 1.5}}"#), path: "tracks[0].generator.seed", "not a whole number")
        // JSON has no NaN or infinity; an overflowing literal is malformed JSON, located.
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gainDb": 1e999}"#), path: "", "malformed JSON: number 1e999 is too large at line 1")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "gainDb": NaN}"#), path: "", "malformed JSON: invalid value at line 1")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "envelope": [{"time": 0, "gainDb": -1e-400}]}"#),
                         path: "tracks[0].envelope[0].gainDb", "cannot read this number: it is too large or too close to 0")
        Self.expectError(Self.preset(duration: #""inf""#), path: "duration", "invalid time 'inf'")
        Self.expectError(Self.preset(tracks: #"{"file": 5}"#), path: "tracks[0].file", "expected a string, got the number 5")
        Self.expectError(Self.preset(tracks: #"{"file": " "}"#), path: "tracks[0].file", "must not be empty")
        Self.expectError(Self.preset(extra: #""name": 5"#), path: "name", "expected a string, got the number 5")
        Self.expectError(Self.preset(extra: #""output": []"#), path: "output", "expected an object, got an array")
    }

    @Test func missingDuration() {
        Self.expectError(#"{"tracks": [{"file": "a.ogg"}]}"#, path: "", "missing required key 'duration' (the length of the render, e.g. \"8h\")")
    }

    @Test func noTracks() {
        Self.expectError(Self.preset(tracks: ""), path: "tracks", "a preset needs at least one track")
        Self.expectError(#"{"duration": "8h"}"#, path: "", "missing required key 'tracks'")
        Self.expectError(#"{"duration": "8h", "tracks": {"file": "a.ogg"}}"#, path: "tracks", "expected an array, got an object")
    }

    @Test func exactlyOneSourcePerTrack() {
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg"}, {"file": "a.ogg", "generator": {"type": "pink"}}"#),
                         path: "tracks[1]", "a track has exactly one source; found 'file' and 'generator'")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "playlist": {"files": ["b.ogg"]}}"#),
                         path: "tracks[0]", "found 'file' and 'playlist'")
        Self.expectError(Self.preset(tracks: #"{"gainDb": -6}"#), path: "tracks[0]",
                         "a track needs a source: one of 'file', 'generator', 'playlist', 'tone', 'sweep', 'speech', 'binaural', 'isochronic', 'breathing', 'chime', 'rain', 'wind', 'surf', 'fire', 'crickets', 'events' or 'resequence'")
        Self.expectError(Self.preset(tracks: #"{"playlist": {"files": []}}"#), path: "tracks[0].playlist.files",
                         "a playlist needs at least one file")
        Self.expectError(Self.preset(tracks: #"{"playlist": {"crossfade": 2}}"#), path: "tracks[0].playlist", "missing required key 'files'")
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "blue"}}"#), path: "tracks[0].generator.type",
                         "unknown generator type 'blue'; expected one of white, pink, brown")
        Self.expectError(Self.preset(tracks: #"{"generator": {}}"#), path: "tracks[0].generator", "missing required key 'type'")
    }

    @Test func loopOnAGenerator() {
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink"}, "loop": true}"#), path: "tracks[0].loop",
                         "generators are endless and cannot loop")
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink"}, "loop": {"crossfade": 2}}"#), path: "tracks[0].loop",
                         "generators are endless")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "loop": "yes"}"#), path: "tracks[0].loop",
                         "expected true, false or {\"crossfade\": \"1s\"}, got the string 'yes'")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "loop": {"crossfade": -1}}"#), path: "tracks[0].loop.crossfade", "is negative")
    }

    @Test func envelopeNotIncreasing() {
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "envelope": [{"time": 0, "gainDb": 0}, {"time": "2h", "gainDb": -6}, {"time": "1h", "gainDb": -9}]}"#),
                         path: "tracks[0].envelope[2].time", "1h is not after the previous point's time (2h); envelope times must increase")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "envelope": [{"time": 5, "gainDb": 0}, {"time": "5s", "gainDb": -6}]}"#),
                         path: "tracks[0].envelope[1].time", "is not after")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "envelope": [{"gainDb": 0}]}"#),
                         path: "tracks[0].envelope[0]", "missing required key 'time'")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "envelope": [{"time": 0, "gain": 0}]}"#),
                         path: "tracks[0].envelope[0]", "unknown key 'gain' (did you mean 'gainDb'?)")
    }

    @Test func fadesLongerThanTheRender() {
        Self.expectError(Self.preset(duration: #""1h""#, extra: #""master": {"fadeOut": "2h"}"#), path: "master.fadeOut",
                         "2h is longer than the render (1h)")
        Self.expectError(Self.preset(duration: #""8h""#, extra: #""master": {"fadeIn": "5h", "fadeOut": {"duration": "4h"}}"#), path: "master",
                         "fadeIn (5h) and fadeOut (4h) together are longer than the render (8h)")
        // A track's fades must fit between its start and end ...
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "start": "1m", "end": "2m", "fadeIn": 40, "fadeOut": 30}"#), path: "tracks[0]",
                         "fadeIn (40s) and fadeOut (30s) together are longer than the track (1m from start to end)")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "end": "2m", "fadeOut": "3m"}"#), path: "tracks[0].fadeOut",
                         "3m is longer than the track (2m from start to end)")
        // ... or, for generators and loops, the end of the render.
        Self.expectError(Self.preset(tracks: #"{"generator": {"type": "pink"}, "start": "7h", "fadeIn": "2h"}"#), path: "tracks[0].fadeIn",
                         "2h is longer than the track (1h from its start to the end of the render)")
        // A file that plays once has no length the preset knows: not checked here.
        #expect(throws: Never.self) { try Self.parse(Self.preset(tracks: #"{"file": "a.ogg", "fadeIn": "9h"}"#)) }
    }

    @Test func startAndEnd() {
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "start": "8h"}"#), path: "tracks[0].start",
                         "starts at 8h, not before the end of the render (8h)")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "start": "2h", "end": "1h"}"#), path: "tracks[0].end",
                         "1h is not after the track's start (2h)")
        Self.expectError(Self.preset(tracks: #"{"file": "a.ogg", "end": 0}"#), path: "tracks[0].end", "0s is not after the track's start (0s)")
    }

    @Test func unknownBitDepth() {
        Self.expectError(Self.preset(extra: #""output": {"bitDepth": 32}"#), path: "output.bitDepth",
                         "unsupported bit depth 32; expected 16, 24 or \"float\"")
        Self.expectError(Self.preset(extra: #""output": {"bitDepth": "24"}"#), path: "output.bitDepth", "unsupported bit depth '24'")
        Self.expectError(Self.preset(extra: #""output": {"bitDepth": true}"#), path: "output.bitDepth", "expected 16, 24 or \"float\", got true")
    }

    @Test func channelsThree() {
        Self.expectError(Self.preset(extra: #""output": {"channels": 3}"#), path: "output.channels",
                         "unsupported channel count 3; expected 1 (mono) or 2 (stereo)")
    }

    @Test func otherEnumerations() {
        Self.expectError(Self.preset(extra: #""output": {"resampler": "fastest"}"#), path: "output.resampler",
                         "unknown resampler 'fastest' (did you mean 'fast'?); expected one of best, medium, fast, soxr-hq, soxr-vhq")
        Self.expectError(Self.preset(extra: #""version": 2"#), path: "version", "unsupported preset version 2; this mixrender reads version 1")
        Self.expectError(Self.preset(extra: #""$schema": 1"#), path: "$schema", "expected a string")
        Self.expectError(Self.preset(extra: #""output": {"tags": {"album": 3}}"#), path: "output.tags.album",
                         "expected a string or a list of strings, got the number 3")
    }

    @Test func missingPresetFile() {
        let path = "/nonexistent-\(UUID().uuidString)/night.json"
        do {
            _ = try PresetLoader.load(path: path)
            Issue.record("expected an error")
        } catch EngineError.preset(let error) {
            #expect(error == PresetError(file: path, jsonPath: "", message: "cannot read preset: no such file"))
            #expect(error.description == "\(path): cannot read preset: no such file")
        } catch {
            Issue.record("expected a PresetError, got \(error)")
        }
    }
}
