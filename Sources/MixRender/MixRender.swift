import MixEngine
import MixIO
import MixDSP

// MixRender: the engine for other Swift programs (docs/library.md).
//
//     import MixRender
//
//     let render = try PresetRender(presetFile: "presets/night.json", overrides: RenderOverrides(durationSeconds: 600))
//     let (progress, reporter) = AsyncStream.makeStream(of: RenderProgress.self)
//     Task { for await p in progress { print(p.fraction) } }
//     let result = try await render.render(toFile: "night.ogg", progress: reporter)
//
// The library is a façade over MixEngine: the types below are the engine's own, named here so that a program
// needs only `import MixRender`; `PresetRender` and `AudioAnalysis` are the entry points, and the reference types
// at the end (kinds, presets, times, tags, joins) what a back end asks besides renders. Everything else the engine
// and MixIO declare public stays out of reach of other packages; what the CLI still takes of it is named at
// `package` access in CommandLineSupport.swift, each with why it is not public API yet.

/// What a render may change of the preset: its length, sample rate, quality or bitrate, resampler, loudness target
/// and true-peak ceiling, the part of the timeline rendered, whether the file loops. Checked by the rules the
/// preset's own values follow (an `EngineError.setting` naming the `EngineSetting`).
public typealias RenderOverrides = MixEngine.RenderOverrides
/// How a preset's file names become files when the caller decides (a server's sounds, named by hash or folder):
/// `PresetRender.prepare(preset:sources:)`.
public typealias SourceResolver = MixEngine.SourceResolver
/// How `JSONValue.json(_:)` lays out a document: `.indented`, `.readable`, `.line`, `.compact`.
public typealias JSONStyle = MixEngine.JSONStyle
/// Why a JSON document could not be parsed (`JSONValue.parse`): its `jsonPath` and `message`.
public typealias JSONSyntaxError = MixEngine.JSONSyntaxError
/// A JSON object's members, in order (`JSONValue.object`).
public typealias JSONObject = MixEngine.JSONObject
/// A JSON value: a preset given as a value (`PresetRender(preset:)`), built from Swift literals or changed in code.
public typealias JSONValue = MixEngine.JSONValue
/// The resampler a render uses when a source's rate differs from the output's, and its library (`RenderOverrides.resampler`).
public typealias ResamplerChoice = MixDSP.ResamplerChoice
/// What a render produced: its `summary`, what normalising did, the output's path and size.
public typealias RenderResult = MixEngine.RenderResult
/// A render's length, levels, limiter activity, loudness and timings.
public typealias RenderSummary = MixEngine.RenderSummary
/// Wall-clock and CPU seconds per stage of a render (`RenderSummary.timings`).
public typealias RenderTimings = MixEngine.RenderTimings
/// What normalising to a loudness target did (`RenderResult.normalisation`).
public typealias NormalisationOutcome = MixEngine.NormalisationOutcome
/// An EBU R128 measurement: integrated loudness, range, true and sample peak, momentary and short-term maxima.
public typealias LoudnessMeasurement = MixIO.LoudnessMeasurement
/// The report of a finished render (`PresetRender.renderWithReport`): inputs and output with SHA-256, levels,
/// timings, the cache key; `document` is its JSON (docs/report.md).
public typealias RenderReport = MixEngine.RenderReport
/// The render's timeline in frames: sections, spoken segments, ducking, schedules, breathing phases.
public typealias Timeline = MixEngine.Timeline
/// The output formats, each picked by a file extension (`OutputFileFormat.from(path:)`, `named(_:)`).
public typealias OutputFileFormat = MixIO.OutputFileFormat
/// The one error type of the library: a preset problem (`.preset`, with its file, JSON path and message), an output
/// or input that cannot be written or read, a setting that cannot work. `description` is one line;
/// `words(naming:)` lets a caller name the settings its own way.
public typealias EngineError = MixEngine.EngineError
/// A problem in a preset: `file`, `jsonPath` (`tracks[2].fadeIn.curve`) and `message`.
public typealias PresetError = MixEngine.PresetError
/// A preset with declared variables, filled with a user's choices (docs/templates.md).
public typealias PresetTemplate = MixEngine.PresetTemplate
/// One output's own quality or bitrate, among several outputs of a render.
public typealias OutputEncoding = MixEngine.OutputEncoding
/// A setting given besides the preset (`EngineError.setting`): duration, sampleRate, format, start, end, ...
public typealias EngineSetting = MixEngine.EngineSetting
/// A reason in words that may name settings (`EngineError`'s reasons): `parts` are text and settings.
public typealias EngineReason = MixEngine.EngineReason
/// The options of a waveform (`AudioAnalysis.waveform`): resolution, bits, channels, image style.
public typealias WaveformOptions = MixEngine.WaveformOptions
/// A waveform's totals: length, peak, RMS, band shares, spectral centroid.
public typealias WaveformTotals = MixDSP.WaveformTotals

// MARK: Reference, files and joins: what an app's back end or a tool beside it asks besides renders

/// Every kind of source a track may play (`rain`, `file`, `generator`, ...), with each setting's key, schema, default
/// and line, read from the kinds' own declarations (`mixrender kinds`): `kinds`, `kind(_:)`, `json(_:)`, `text(_:)`.
public typealias SourceKindCatalog = MixEngine.SourceKindCatalog
/// The presets in folders or files, each read and checked as a render reads it, without planning (`mixrender
/// presets`): `entries` (path, mix or session, track kinds, or the error), `json`, `text`, `allRead`;
/// `shippedFolder()` finds the presets installed beside the program.
public typealias PresetCatalog = MixEngine.PresetCatalog
/// The version renders and cache keys carry: `MixrenderVersion.string`.
public typealias MixrenderVersion = MixEngine.MixrenderVersion
/// Times as presets and options write them (`"90"`, `"1h30m"`, `"1:30:00"`): `seconds(from:)`, and back,
/// `string(fromSeconds:)`.
public typealias TimeParser = MixEngine.TimeParser
/// Text read from files (tags, chapter titles, names) made safe to print on a terminal: `escaped(_:)`.
public typealias PrintableText = MixEngine.PrintableText
/// "Did you mean ...?" for a misspelt key or name: `closest(to:among:)`, `suggestions(for:among:)`.
public typealias NameSuggestion = MixEngine.NameSuggestion
/// Loudness of many files at once, one per core (`mixrender loudness`): `measure(_:)` gives each file's
/// `LoudnessMeasurement` or error, in order; `json(_:)` and `text(path:_:)` lay them out.
public typealias LoudnessScan = MixEngine.LoudnessScan
/// A file's tags and chapters, read through TagLib (or libsndfile's for CAF): `detectFormat(path:)`,
/// `contents(path:format:)` giving `TagFields` (`fields`, `chapters`).
public typealias FileTags = MixIO.FileTags
/// Tags as a file holds them: its fields in order, and its chapters.
public typealias TagFields = MixIO.TagFields
/// A chapter mark: its start in seconds and its title.
public typealias ChapterMark = MixIO.ChapterMark
/// A file described as JSON for a back end (`mixrender info --json`): format, rate, channels, length, tags,
/// chapters, warnings; or the error that kept it from being read.
public typealias FileDescription = MixEngine.FileDescription
/// Lossless windows of one render (`RenderOverrides.startSeconds`/`endSeconds`, rendered apart, on several
/// machines) joined into one file, sample-exactly, through a temporary file renamed when complete: `JoinJob(parts:
/// output:)`, `run()`.
public typealias JoinJob = MixEngine.JoinJob
/// What a join wrote: its parts, frames and output.
public typealias JoinResult = MixEngine.JoinResult

// MARK: Waveforms in full: what `AudioAnalysis.waveform` runs, for a caller that wants more than its files

/// A waveform job: a file decoded once (on one or more threads, the same bit for bit) into one or more outputs
/// (`.json` as BBC audiowaveform writes it, `.dat`, `.png`, `.svg`), each a `WaveformPlan`: `WaveformJob(inputPath:
/// outputs:options:)`, `run(progress:)` and `runAll(progress:)` giving each output's `WaveformRecorder`.
public typealias WaveformJob = MixEngine.WaveformJob
/// One output's resolution, channels, image size and destination files, checked before decoding.
public typealias WaveformPlan = MixEngine.WaveformPlan
/// What a waveform job measured for one output: its columns (`stores`), totals, the pixels at a width, and
/// `writeOutputs()`.
public typealias WaveformRecorder = MixEngine.WaveformRecorder
/// Waveforms of several outputs recorded from one stream, one analysis for those that differ only in zoom: fed frames
/// as an encoder, or a tap of a render (`mixrender render --waveform`); `recorders` gives each output's results.
public typealias WaveformRecording = MixEngine.WaveformRecording
/// One level of a waveform: its columns' minima and maxima, per channel.
public typealias WaveformColumnStore = MixEngine.WaveformColumnStore
/// How an image is drawn (`WaveformOptions.style`): colours, their mode (solid, bands, relative), scale, decibel range.
public typealias WaveformImageStyle = MixEngine.WaveformImageStyle
/// A colour of an image, parsed from `#rrggbb`, `#rrggbbaa` or a name (`WaveformColor(parsing:)`).
public typealias WaveformColor = MixEngine.WaveformColor
/// A waveform drawn as lines of text for a terminal (`mixrender waveform` without an output).
public typealias WaveformTerminalPreview = MixEngine.WaveformTerminalPreview
/// A waveform in audiowaveform's binary format (`.dat`), read back checked and zoomed out (`zoomed(by:)`, the
/// factor for a width or a number of points a second), and given as audiowaveform's JSON: a server's zoomed waveforms.
public typealias WaveformDat = MixEngine.WaveformDat
