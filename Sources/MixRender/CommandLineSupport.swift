import MixEngine
import MixIO

// What the `mixrender` CLI still takes of the engine and MixIO besides the public API (MixRender.swift), at
// `package` access: other packages never see these names. Each group says why it is not public API yet; the
// reference types, the cache key and joins were moved out of here into the public API (issue 55).

// The render command's own pipeline: it plans a `RenderJob` with a cache folder's material, then renders with a
// waveform tap, a timeline file, a report and the summary's figures. `PresetRender` offers renders to a file, a
// descriptor and bytes, not yet taps, reports to a chosen path or a cache folder's material; until it does, the CLI
// drives the job itself.
package typealias Analyzer = MixEngine.Analyzer
package typealias Chapters = MixEngine.Chapters
package typealias FileAccess = MixEngine.FileAccess
package typealias MaterialStore = MixEngine.MaterialStore
package typealias PreparedMaterial = MixEngine.PreparedMaterial
package typealias RenderJob = MixEngine.RenderJob
package typealias ReplayGain = MixEngine.ReplayGain
package typealias TimelineJSON = MixEngine.TimelineJSON
package typealias ValidationJSON = MixEngine.ValidationJSON

// Batches: the job list, its shards, its runner and the merged results file. A library batch API (an async
// sequence of outcomes) is a design of its own, for issue 56's several outputs from one render.
package typealias BatchJob = MixEngine.BatchJob
package typealias BatchJobList = MixEngine.BatchJobList
package typealias BatchProgress = MixEngine.BatchProgress
package typealias BatchResults = MixEngine.BatchResults
package typealias BatchRunner = MixEngine.BatchRunner
package typealias Shard = MixEngine.Shard

// The process and the terminal: what a command-line program needs of the system (signals, the terminal, locks,
// whole-file writes, the speech helper's entry point), which is MixIO's, C calls and all. Not library API: a
// library does not install signal handlers or serve a helper protocol on its standard input.
package typealias AtomicOutputFile = MixIO.AtomicOutputFile
package typealias AudioIOError = MixIO.AudioIOError
package typealias FileSystem = MixIO.FileSystem
package typealias InterruptCleanup = MixIO.InterruptCleanup
package typealias LineFile = MixIO.LineFile
package typealias Locked = MixIO.Locked
package typealias SpeechHelperLocation = MixIO.SpeechHelperLocation
package typealias SpeechHelperServer = MixIO.SpeechHelperServer
package typealias SpeechSettings = MixIO.SpeechSettings
package typealias SpeechSynthesizer = MixIO.SpeechSynthesizer
package typealias SpeechEngines = MixIO.SpeechEngines
package typealias InstalledVoices = MixIO.InstalledVoices
package typealias Terminal = MixIO.Terminal
