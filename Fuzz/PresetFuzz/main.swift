import FuzzSupport
import Glibc
import MixEngine
import MixIO

/// Fuzz target: the bytes as a preset document, read and checked (`PresetLoader`) and planned (`Planner`), as
/// `mixrender validate` does, so that every number reaches the planner's arithmetic. Nothing is rendered or
/// written. Relative source paths resolve against `$FUZZ_PRESET_FOLDER`, or `presets/` of the current folder:
/// scripts/fuzz.sh makes a folder with the example presets' sounds and tiny files (`tiny.wav`, 8 frames at
/// 8 kHz; `blip.wav`, 1 frame at 192 kHz), so that sources are found and opened, short ones too.
///
/// Finding: a crash or a hang; also an error that is not one of the engine's or MixIO's, or is not one line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let preset = try PresetLoader.parse(bytes, file: "fuzz.json", baseDirectory: sourceFolder)
        // The planner measures each track with a `loudness` by rendering up to two minutes of it alone: that cost
        // is by design, and a few such tracks cover the code, so an input with more is read but not planned.
        guard preset.tracks.filter({ $0.loudness != nil }).count <= 4 else { return 0 }
        let plan = try Planner(presetFile: "fuzz.json").plan(preset, analysis: Analyzer().analyse(preset))
        precondition(plan.frameCount > 0, "a plan of \(plan.frameCount) frames")
    } catch {
        expectWordedError(error)
    }
    return 0
}

let sourceFolder = getenv("FUZZ_PRESET_FOLDER").map { String(cString: $0) } ?? "presets"

FuzzMain.run(fuzz)
