import MixDSP
import MixIO

/// A mix preset, version 1, as loaded and validated from JSON (see docs/presets.md).
/// `PresetLoader.load(path:)` makes one from a file; problems are reported as `PresetError`s.
///
/// All times are in seconds here; the planner turns them into integer frame positions at the
/// output rate. Everything in a `Preset` has been checked: numbers are finite and in range,
/// files are resolved to paths (relative to the preset's folder), curves are known.
///
/// A value (`Sendable`, safe to share): numbers, a name, nested specs and the array of tracks; it
/// allocates only those when made.
public struct Preset: Sendable, Equatable {
    public var version: Int = 1
    public var name: String?
    public var output: OutputSpec
    /// Length of the render, in seconds; nil only for a session, which then lasts as long as its voice
    /// and its ending need.
    public var durationSeconds: Double?
    /// Whether `durationSeconds` came from the caller (the command line's `--duration`), not the document,
    /// so problems with it name the option.
    public var durationIsOverride = false
    public var master: MasterSpec
    /// The tracks: the whole mix, or a session's bed (a mix preset's tracks, then the preset's own).
    public var tracks: [TrackSpec]
    /// How voices sound and how the bed ducks under them (`voice`); nil when the preset has none.
    public var voice: NarrationSpec?
    /// The sections of narration that make the preset a session; nil for a mix.
    public var session: SessionSpec?
    /// The chapter marks the output carries (`chapters`), in time order, at the output rate (`output.sampleRate`);
    /// nil: a session's sections, or none.
    public var chapters: [ChapterMark]?
    /// Every file the preset names (sources, recordings, its bed and the bed's own files), as resolved: what a
    /// render reads, which nothing it writes may be (`FileAccess`).
    public var files: [PresetFile] = []
    /// What merging the caller's overrides left out of the document, one line each naming the file and the JSON
    /// path (`RenderOverrides.merge`); the plan's warnings start with them.
    public var warnings: [String] = []

    public init(name: String? = nil, output: OutputSpec = OutputSpec(), durationSeconds: Double?,
                master: MasterSpec = MasterSpec(), tracks: [TrackSpec], voice: NarrationSpec? = nil, session: SessionSpec? = nil) {
        self.name = name
        self.output = output
        self.durationSeconds = durationSeconds
        self.master = master
        self.tracks = tracks
        self.voice = voice
        self.session = session
    }
}

/// A file a preset names: its resolved path, and where it is named (the preset's file and the JSON path).
/// A value of three strings; `Sendable`.
public struct PresetFile: Sendable, Equatable {
    public var path: String
    /// The preset file that names it (a bed's own files name the bed).
    public var preset: String
    public var jsonPath: String

    public init(path: String, preset: String, jsonPath: String) {
        self.path = path; self.preset = preset; self.jsonPath = jsonPath
    }
}

/// The output's format: a value of numbers, two enums and the tags; allocates only the tags' strings.
/// `Sendable`, safe to share.
public struct OutputSpec: Sendable, Equatable {
    /// The output rates mixrender renders at, in Hz (in a preset and as an override alike).
    public static let sampleRates = 8000...192_000
    /// Ogg Vorbis qualities (libsndfile's scale).
    public static let qualities = 0.0...1.0
    /// Bitrates in kbit/s any format could take (each format checks its own: `SoundFileWriter.validate`).
    public static let bitrates = 6...512

    public var sampleRate: Int = 48000
    public var channelCount: Int = 2
    /// Ogg Vorbis quality, 0...1 (libsndfile's scale: 0.4 is about 92 kbit/s, 0.7 about 150).
    public var quality: Double = 0.5
    /// A bitrate in kbit/s for MP3 (constant bitrate) and Opus (target bitrate) instead of `quality`; nil: the
    /// quality decides. Checked against the format when the output is known.
    public var bitrateKbps: Int?
    /// Sample format for FLAC and WAV (FLAC takes 16 or 24); JSON `bitDepth` 16, 24 or "float".
    public var sampleFormat: OutputSampleFormat = .pcm16
    public var resampler: ResamplerChoice = .default
    /// The tags written into the file (`output.tags`; docs/tags.md); the title defaults to the preset's name.
    public var tags = TagFields()
    /// Each tag's JSON path as written (`output.tags.Narrator`), by its upper-case key, for warnings.
    public var tagPaths: [String: String] = [:]
    /// Normalisation to a loudness under a true-peak ceiling (`output.loudness`, `--loudness`); nil: none.
    public var loudness: LoudnessSpec?
    /// A file that loops without a seam (`output.loopable`, `--loopable`); nil: an ordinary render.
    public var loopable: FadeSpec?
    public init() {}

    /// A loopable render's crossfade when the preset gives none: long enough that a change of texture between
    /// the end and the start passes unnoticed in ambience, short beside the minutes such files last.
    public static let defaultLoopCrossfade = FadeSpec(seconds: 5, curve: .equalPower)
    /// The longest loop crossfade: the render holds that much of the mix in memory.
    public static let maximumLoopCrossfadeSeconds = 60.0
    /// The shortest: the limiter's look-ahead must fit in it (see `Renderer`).
    public static let minimumLoopCrossfadeSeconds = 0.05
}

/// Loudness normalisation: the integrated loudness (EBU R128) the render is brought to, the true-peak
/// ceiling the limiter holds while it is, and the most gain it may take to get there.
/// A value of three `Double`s; allocates nothing. `Sendable`, safe to share.
public struct LoudnessSpec: Sendable, Equatable {
    /// The targets mixrender takes, in LUFS, and the ceilings, in dBTP.
    public static let targets = -70.0...0.0
    public static let ceilings = -20.0...0.0
    public static let maximumGains = 0.0...60.0
    /// How far under the ceiling the limiter aims: its 4x detector (`TruePeakDetector`) reads content near
    /// Nyquist low, and loud full-band noise came out up to 0.17 dB over its ceiling when measured by
    /// libebur128 (0.87 dB under with this margin at -1 dBTP, pink noise 14 dB over).
    public static let detectorMarginDb = 0.2

    /// Integrated loudness to reach, in LUFS (-16 for most streaming of speech and ambience, -23 for broadcast).
    public var targetLUFS: Double
    /// The ceiling no inter-sample peak passes, in dBTP.
    public var truePeakDb: Double = -1
    /// The most gain normalising may add, in dB: a mix quieter than the target by more is an error, not a
    /// render of amplified noise.
    public var maximumGainDb: Double = 30
    public init(targetLUFS: Double, truePeakDb: Double = -1, maximumGainDb: Double = 30) {
        self.targetLUFS = targetLUFS; self.truePeakDb = truePeakDb; self.maximumGainDb = maximumGainDb
    }
}

/// The master limiter's settings: a value of three `Double`s and a `Limiter.Detection`; allocates nothing.
/// `Sendable`, safe to share.
public struct LimiterSpec: Sendable, Equatable {
    /// The level no output sample exceeds, in dBFS (in dBTP with `.truePeak` detection: no value between
    /// samples either, as a 4x oversampling meter reads them).
    public var ceilingDb: Double = -1
    /// What the ceiling holds: samples (`.samplePeak`), or samples and the values between them
    /// (`.truePeak`, which adds 0.5 ms of latency at 48 kHz). Not a preset key: set by the engine.
    public var detection: Limiter.Detection = .samplePeak
    /// Look-ahead: how early the limiter starts to turn down before a peak, in milliseconds.
    public var lookaheadMs: Double = 5
    /// How fast the gain recovers after a peak, in milliseconds (time constant).
    public var releaseMs: Double = 200
    public init() {}
}

/// The master bus: a value of a gain, two optional fades and the limiter's settings; allocates nothing.
/// `Sendable`, safe to share.
public struct MasterSpec: Sendable, Equatable {
    public var gainDb: Double = 0
    public var fadeIn: FadeSpec?
    /// The sleep timer: a fade that ends exactly at the end of the render.
    public var fadeOut: FadeSpec?
    public var limiter = LimiterSpec()
    public init() {}
}

/// One breakpoint of a track's gain envelope: at `position` seconds (on the render's timeline) the gain is `value`
/// dB, reached along `curve`. The planner makes it an `Envelope.Point` (a frame and a linear gain).
public typealias EnvelopePoint = Breakpoint<Double, Double>

/// One track of a preset: a value of a name, its source (`SourceSpec`), numbers, optional loop and fades,
/// and an array of envelope points; allocates only those when made. `Sendable`, safe to share.
public struct TrackSpec: Sendable, Equatable {
    public var name: String?
    /// Where its sound comes from: one of `SourceKinds.all` (a file, a playlist, noise, a tone, ...).
    public var source: SourceSpec
    public var gainDb: Double = 0
    /// Balance, -1 (left) ... 0 (centre) ... 1 (right).
    public var pan: Double = 0
    /// When the track starts on the render's timeline, in seconds.
    public var startSeconds: Double = 0
    /// When it stops; nil = at the end of its material, or of the render if it loops or is a generator.
    public var endSeconds: Double?
    /// nil = plays once.
    public var loop: LoopSpec?
    public var fadeIn: FadeSpec?
    public var fadeOut: FadeSpec?
    public var envelope: [EnvelopePoint] = []
    /// In a session: the sections the track plays during (the first's start to the last's end), instead
    /// of `start` and `end`.
    public var during: SectionSpan?
    /// Whether the track dips under the voice when the preset ducks (`voice.ducking`).
    public var ducks = true
    /// The track's loudness in the mix, instead of `gainDb`: its gain is set from its measured loudness.
    public var loudness: TrackLoudness?
    /// Slow random movement of its gain and pan (`DriftSpec`); nil: none.
    public var drift: DriftSpec?

    public init(name: String? = nil, source: SourceSpec) { self.name = name; self.source = source }
}

/// A track's loudness in the mix (`"loudness": -30`, or `{"track": "rain", "offset": -6}`): the planner
/// measures the track alone (EBU R128, gated) and sets its gain so it sits there.
/// A plain enum value (`Sendable`); allocates only a track's name.
public enum TrackLoudness: Sendable, Equatable {
    /// Integrated loudness in LUFS.
    case absolute(Double)
    /// LU above (positive) or below another track's loudness in the mix.
    case relative(track: String, offset: Double)
}

/// A run of a session's sections, from `first` to `last` (the same one for a single section).
/// A value of two names; allocates only those. `Sendable`, safe to share.
public struct SectionSpan: Sendable, Equatable {
    public var first: String
    public var last: String
    public init(first: String, last: String) { self.first = first; self.last = last }
}
