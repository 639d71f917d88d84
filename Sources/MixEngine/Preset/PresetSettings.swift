import MixDSP
import MixIO

/// The preset's own objects whose settings are declared as the kinds' are (`DeclaredSettings`): `output` (with its
/// `loudness`) and `master` (with its `limiter`). The preset reader reads them from these declarations, and
/// `PresetSchema` writes their `$defs` from the same ones, so each key, range, default and description is
/// written once; the ranges the caller's overrides share are `NumberLimit`s.
extension OutputSpec {
    static var settings: DeclaredSettings<OutputSpec> {
        let t = TimeParser.string(fromSeconds:)
        let loop = OutputSpec.defaultLoopCrossfade
        return DeclaredSettings(description: "How the audio is written; the container follows the output file's extension (\(OutputFileFormat.extensionList(dotted: true))).",
                            defaults: OutputSpec(), settings: [
            .number("sampleRate", \.sampleRate, .sampleRate, "Output sample rate in Hz; sources at other rates are resampled."),
            .custom("channels", schema: { defaults in
                .object(["description": .string("1 (mono) or 2 (stereo)."), "enum": .array([.number(1), .number(2)]),
                         "default": .number(Double(defaults.channelCount))])
            }, read: { cursor, output, _ in
                let count = try cursor.wholeNumber()
                guard count == 1 || count == 2 else {
                    throw cursor.error("unsupported channel count \(JSONValue.format(count)); expected 1 (mono) or 2 (stereo)")
                }
                output.channelCount = Int(count)
            }),
            .number("quality", \.quality, .quality, "Ogg Vorbis, MP3 and Opus quality, 0 to 1 (Vorbis: 0.4 is about 92 kbit/s, 0.7 about 150; MP3: LAME's variable bitrate V(10 - 10 x quality); Opus: a target of 6 (0) through 48 (0.5) to 256 (1) kbit/s per channel)."),
            .number("bitrate", \.bitrateKbps, .bitrate, "Bitrate in kbit/s instead of quality: MP3's constant bitrate (32 to 320 at 32 to 48 kHz, 8 to 160 at 16 to 24 kHz, 8 to 64 below, from MPEG's table) or Opus's target (6 to 256 per channel). Not for Ogg Vorbis; ignored by the lossless formats. Not together with quality."),
            .inTemplate("bitDepth", read: { cursor, output, reader in output.sampleFormat = try PresetReader.sampleFormat(cursor) }),
            .choice("resampler", \.resampler, what: "resampler", "Sample-rate converter: soxr-hq (the default: libsoxr's HQ recipe, as SoX's rate -h, linear phase, flat to 91 % of the lower Nyquist frequency, and the fastest) or soxr-vhq (its VHQ recipe); best, medium or fast (libsamplerate's sinc converters)."),
            .inTemplate("tags", read: { cursor, output, reader in
                output.tags = try PresetReader.tags(cursor)
                if case .object(let members) = cursor.value {
                    for key in members.keys { output.tagPaths[key.uppercased()] = JSONCursor.path(cursor.path, key: key) }
                }
            }),
            .object("loudness", \.loudness, LoudnessSpec.settings),
            .custom("loopable", schema: { _ in
                .object(["description": .string("Render a file that plays on repeat without a seam: true (a \(t(loop.seconds)) \(loop.curve.rawValue) crossfade), or the crossfade as a fade (\(t(minimumLoopCrossfadeSeconds)) to \(t(maximumLoopCrossfadeSeconds))). Not with a master fade-in or fade-out, nor in a session."),
                         "oneOf": .array([.object(["type": .string("boolean")]), .object(["$ref": .string("#/$defs/crossfade")])])])
            }, read: { cursor, output, reader in
                // `true`, or the crossfade as a fade: `"8s"`, or `{"duration": "8s", "curve": "equalGain"}`.
                if case .bool(let on) = cursor.value {
                    output.loopable = on ? loop : nil
                    return
                }
                let fade = try cursor.fade(defaultCurve: loop.curve, isCrossfade: true)
                guard fade.seconds >= minimumLoopCrossfadeSeconds && fade.seconds <= maximumLoopCrossfadeSeconds else {
                    throw cursor.error("the loop's crossfade must be between \(minimumLoopCrossfadeSeconds) and \(Int(maximumLoopCrossfadeSeconds)) s, not \(fade.seconds) s")
                }
                output.loopable = fade
            }),
        ], finish: { object, _ in
            if object.has("quality"), let bitrate = object["bitrate"] {
                throw bitrate.error("give a quality or a bitrate, not both (the bitrate is for MP3 and Opus; quality 0 to 1 for Ogg Vorbis, MP3 and Opus)")
            }
        })
    }
}

extension LoudnessSpec {
    static var settings: DeclaredSettings<LoudnessSpec> {
        DeclaredSettings(description: "Normalise the render to an integrated loudness (EBU R128) under a true-peak ceiling: measuring passes before the write find the gain.",
                     defaults: LoudnessSpec(targetLUFS: 0), settings: [
            .number("target", \.targetLUFS, .loudnessTarget, required: "the integrated loudness to reach, in LUFS (-16, say)",
                    "Integrated loudness to reach, in LUFS (-16 is usual for streamed speech and ambience, -23 for broadcast)."),
            .number("truePeakDb", \.truePeakDb, .truePeakCeiling, "The ceiling no inter-sample peak passes, in dBTP; the limiter detects peaks 4x oversampled."),
            .number("maxGainDb", \.maximumGainDb, in: maximumGains, "The most gain normalising may add, in dB; a mix that needs more is an error."),
        ])
    }
}

extension MasterSpec {
    static var settings: DeclaredSettings<MasterSpec> {
        DeclaredSettings(description: "The whole mix: gain, fades, limiter. fadeIn and fadeOut must fit in duration.", defaults: MasterSpec(), settings: [
            .number("gainDb", \.gainDb, in: -60...24, "Master gain in dB."),
            .fade("fadeIn", \.fadeIn, "Fade from the start of the render."),
            .fade("fadeOut", \.fadeOut, "The sleep timer: a fade that ends exactly at the end of the render."),
            .object("limiter", \.limiter, LimiterSpec.settings),
        ])
    }
}

extension LimiterSpec {
    static var settings: DeclaredSettings<LimiterSpec> {
        DeclaredSettings(description: "The limiter keeps every sample at or below its ceiling.", defaults: LimiterSpec(), settings: [
            .number("ceilingDb", \.ceilingDb, in: -20...0, "Highest level any sample reaches, in dBFS."),
            .number("lookaheadMs", \.lookaheadMs, in: 0.5...50, "How early the limiter turns down before a peak, in milliseconds."),
            .number("releaseMs", \.releaseMs, in: 1...5000, "How fast the gain recovers after a peak, in milliseconds."),
        ])
    }
}

extension TrackSpec {
    /// A track's own keys (`PresetReader.Keys.trackSettings`; its name and its source's key are read first), read over
    /// the track its source makes. What depends on more than the track (the render's length, a session, whether its
    /// kind can loop) `PresetReader.track` checks after. The shapes of their own (loudness, during, loop, envelope,
    /// drift) keep their schema in `docs/preset.schema.json`.
    static var settings: DeclaredSettings<TrackSpec> {
        DeclaredSettings(description: "One track: exactly one source and how it plays.", defaults: TrackSpec(source: .file(path: "")), settings: [
            .number("gainDb", \.gainDb, in: -96...24, "Track gain in dB."),
            // An app's volume slider, as AVAudioPlayer's `volume`: a linear amplitude, read into the same gain.
            .custom("volume", schema: { _ in
                .object(["description": .string("Track volume instead of gainDb: a linear amplitude from 0 (silent) to 1 (as the source is), "
                                                 + "as an app's slider and AVAudioPlayer's volume are; 0.5 is -6.02 dB."),
                         "type": .string("number"), "minimum": .number(0), "maximum": .number(1)])
            }, read: { cursor, track, _ in
                let volume = try cursor.number(in: 0...1)
                track.gainDb = decibels(fromGain: volume)   // 0 is -infinity: silent
            }),
            .inTemplate("loudness", read: { cursor, track, _ in
                if case .number = cursor.value {
                    track.loudness = .absolute(try NumberLimit.loudnessTarget.read(cursor))
                } else {
                    let fields = try cursor.object(allowing: PresetReader.Keys.trackLoudness)
                    track.loudness = .relative(track: try fields.required("track", hint: "the name of the track it is relative to").string(),
                                               offset: try fields["offset"]?.number(in: -60...60) ?? 0)
                }
            }),
            .number("pan", \.pan, in: -1...1, "Balance: -1 (left) ... 0 (centre) ... 1 (right)."),
            .time("start", \.startSeconds, "When the track starts on the render's timeline; before the end of the render."),
            .custom("end", schema: { _ in
                .object(["description": .string("When the track stops on the render's timeline; after start."), "$ref": .string("#/$defs/time")])
            }, read: { cursor, track, _ in track.endSeconds = try cursor.time(allowingZero: true) }),
            .inTemplate("during", read: { cursor, track, reader in track.during = try PresetReader.sectionSpan(cursor) }),
            .inTemplate("loop", read: { cursor, track, reader in track.loop = try cursor.loop() }),
            .fade("fadeIn", \.fadeIn, "Fade from the track's start."),
            .fade("fadeOut", \.fadeOut, "Fade that ends at the track's end."),
            .inTemplate("envelope", read: { cursor, track, reader in track.envelope = try PresetReader.envelope(cursor) }),
            .flag("duck", \.ducks, "false keeps the track at its level when voices speak."),
            .inTemplate("drift", read: { cursor, track, reader in track.drift = try PresetReader.drift(cursor) }),
        ], finish: { object, _ in
            let levels = ["gainDb", "volume", "loudness"].filter(object.has)
            if levels.count > 1, let second = object[levels[1]] {
                throw second.error("a track sets its level by one of 'gainDb', 'volume' and 'loudness'; it gives both '\(levels[0])' and '\(levels[1])'")
            }
        })
    }
}
