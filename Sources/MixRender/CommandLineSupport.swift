import MixDSP
import MixEngine
import MixIO

// What the `mixrender` CLI uses of the engine and MixIO besides the public API: batches, joins, merging results,
// the cache key, the speech helper's entry point, the terminal and the file system as the commands need them.
// These names are `package`: the CLI reaches them through this library alone, other packages never see them.

package typealias Analyzer = MixEngine.Analyzer
package typealias AtomicOutputFile = MixIO.AtomicOutputFile
package typealias AudioEncoder = MixDSP.AudioEncoder
package typealias AudioIOError = MixIO.AudioIOError
package typealias BatchJob = MixEngine.BatchJob
package typealias BatchJobList = MixEngine.BatchJobList
package typealias BatchProgress = MixEngine.BatchProgress
package typealias BatchResults = MixEngine.BatchResults
package typealias BatchRunner = MixEngine.BatchRunner
package typealias CacheKey = MixEngine.CacheKey
package typealias ChapterMark = MixIO.ChapterMark
package typealias Chapters = MixEngine.Chapters
package typealias FileAccess = MixEngine.FileAccess
package typealias FileDescription = MixEngine.FileDescription
package typealias FileLock = MixIO.FileLock
package typealias FileSystem = MixIO.FileSystem
package typealias DescriptorLimit = MixIO.DescriptorLimit
package typealias FileTags = MixIO.FileTags
package typealias HeldFileLock = MixIO.HeldFileLock
package typealias InputFile = MixEngine.InputFile
package typealias InterruptCleanup = MixIO.InterruptCleanup
package typealias JoinJob = MixEngine.JoinJob
package typealias JoinResult = MixEngine.JoinResult
package typealias LineFile = MixIO.LineFile
package typealias Locked = MixIO.Locked
package typealias LoudnessScan = MixEngine.LoudnessScan
package typealias MaterialStore = MixEngine.MaterialStore
package typealias MixrenderVersion = MixEngine.MixrenderVersion
package typealias NameSuggestion = MixEngine.NameSuggestion
package typealias PreparedMaterial = MixEngine.PreparedMaterial
package typealias PresetCatalog = MixEngine.PresetCatalog
package typealias PrintableText = MixEngine.PrintableText
package typealias RenderJob = MixEngine.RenderJob
package typealias ReplayGain = MixEngine.ReplayGain
package typealias Shard = MixEngine.Shard
package typealias SourceKindCatalog = MixEngine.SourceKindCatalog
package typealias SpeechHelperLocation = MixIO.SpeechHelperLocation
package typealias SpeechHelperServer = MixIO.SpeechHelperServer
package typealias SpeechSettings = MixIO.SpeechSettings
package typealias SpeechSynthesizer = MixIO.SpeechSynthesizer
package typealias TagFields = MixIO.TagFields
package typealias Terminal = MixIO.Terminal
package typealias TimeParser = MixEngine.TimeParser
package typealias TimelineJSON = MixEngine.TimelineJSON
package typealias ValidationJSON = MixEngine.ValidationJSON
package typealias WaveformColor = MixEngine.WaveformColor
package typealias WaveformColumnStore = MixEngine.WaveformColumnStore
package typealias WaveformImageStyle = MixEngine.WaveformImageStyle
package typealias WaveformJob = MixEngine.WaveformJob
package typealias WaveformPlan = MixEngine.WaveformPlan
package typealias WaveformRecorder = MixEngine.WaveformRecorder
package typealias WaveformTerminalPreview = MixEngine.WaveformTerminalPreview

/// The level in dB of a linear gain (MixDSP's `decibels(fromGain:)`), for the CLI's summaries.
package func decibels(fromGain gain: Double) -> Double { MixDSP.decibels(fromGain: gain) }
