import Foundation
import MixRender

/// Renders a short procedural mix, given below as JSON, to the file named on the command line (its extension picks
/// the format), printing progress as it goes, then the file's frames and loudness as the library reads them back.
///
///     swift run RenderPreset out.flac [seconds]
///
/// Exit status 0 when the file was written, 1 with one line on standard error when anything was wrong.
func run() async -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    guard let output = arguments.first else {
        FileHandle.standardError.write(Data("usage: RenderPreset OUTPUT [SECONDS]\n".utf8))
        return 1
    }
    let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 20
    let preset = """
        {
          "version": 1,
          "name": "Rain at the window (example)",
          "duration": "1m",
          "output": { "sampleRate": 44100, "channels": 2 },
          "master": { "fadeIn": { "duration": "2s" }, "fadeOut": { "duration": "3s", "curve": "equalPower" } },
          "tracks": [
            { "name": "rain", "generator": { "type": "brown", "seed": 7 }, "gainDb": -8 },
            { "name": "air", "generator": { "type": "pink", "seed": 8 }, "gainDb": -26 }
          ]
        }
        """
    do {
        // The preset's own duration gives way to the command line's, as `mixrender --duration` does.
        let render = try PresetRender(json: Array(preset.utf8), name: "example preset",
                                      overrides: RenderOverrides(durationSeconds: seconds))
        for warning in try render.check(outputFile: output) { print("warning: \(warning)") }
        let (progress, reporter) = AsyncStream.makeStream(of: RenderProgress.self)
        let printer = Task {
            for await p in progress {
                print(String(format: "%5.1f %%  %6.0fx realtime", p.fraction * 100, p.realtime))
            }
        }
        let result = try await render.render(toFile: output, progress: reporter)
        await printer.value
        let info = try await AudioAnalysis.info(ofFile: output)
        let loudness = try await AudioAnalysis.loudness(ofFile: output)
        print("wrote \(result.outputPath): \(info.frameCount) frames at \(info.sampleRate) Hz, \(info.channelCount) channels, "
              + String(format: "%.1f LUFS", loudness.integrated))
        return 0
    } catch let error as EngineError {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        return 1
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        return 1
    }
}

exit(await run())
