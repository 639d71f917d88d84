import FuzzSupport
import Glibc
import MixEngine
import MixIO

/// Fuzz target: `AudioFile.open`. The first byte picks the file's extension (readers and libsndfile look at
/// it: its low 7 bits) and what it is opened for (its high bit: playback, or read whole, where FFmpeg decodes
/// Ogg Vorbis); the rest is written to a file of that name, opened, read to the end in blocks, and seeked (start,
/// middle, last frame, end, past the end) and read again. Reading stops after a few million samples, so that a
/// small file claiming hours does not take the run's time. Then the engine plans it as a looped source at
/// 192 kHz, so that what the header claims reaches the planner's frame arithmetic; with a crossfade of 50 ms,
/// only files under 0.1 s are decoded there (a loop under twice its crossfade is measured), which keeps
/// the target three times faster than with the default crossfade.
///
/// Finding: a crash or a hang; also an error that is not an `AudioIOError` (an `EngineError` from planning),
/// a reader that reports no channels or rate, or one that returns more frames than asked. A crash inside a C library (libsndfile and the
/// decoders it calls) is recorded, not fixed here (docs/fuzzing.md).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let path = Scratch.folder + "/input." + Scratch.extensions[Int(data[0] & 0x7F) % Scratch.extensions.count]
    let purpose: AudioFile.Purpose = data[0] & 0x80 == 0 ? .playback : .wholeFile
    Scratch.write(path, UnsafeRawBufferPointer(start: data + 1, count: size - 1))
    do {
        let reader = try AudioFile.open(path: path, purpose: purpose)
        let channels = reader.channelCount
        precondition(channels > 0 && reader.sampleRate > 0, "\(channels) channels at \(reader.sampleRate) Hz")
        let blockFrames = 4096
        var buffer = [Float](repeating: 0, count: blockFrames * channels)
        func readBlock() throws -> Int {
            let count = try buffer.withUnsafeMutableBufferPointer { try reader.read(into: $0.baseAddress!, frames: blockFrames) }
            precondition((0...blockFrames).contains(count), "read \(count) frames of \(blockFrames)")
            return count
        }
        var samples = 0
        while samples < Scratch.sampleLimit {
            let count = try readBlock()
            if count == 0 { break }
            samples += count * channels
        }
        let frames = reader.frameCount
        for frame in [0, frames / 2, frames &- 1, frames, frames &+ 1000] where frame >= 0 {
            do {
                try reader.seek(to: frame)
                _ = try readBlock()
            } catch is AudioIOError {
                continue
            }
        }
    } catch is AudioIOError {
        return 0
    } catch {
        preconditionFailure("an error that is not an AudioIOError: \(type(of: error)): \(error)")
    }
    let preset = #"{"duration": "8h", "output": {"sampleRate": 192000}, "tracks": [{"file": "\#(path)", "loop": {"crossfade": "50ms"}}]}"#
    do {
        let loaded = try PresetLoader.parse(Array(preset.utf8), file: "fuzz.json", baseDirectory: "")
        _ = try Planner(presetFile: "fuzz.json").plan(loaded, analysis: Analyzer().analyse(loaded))
    } catch is EngineError {
        return 0
    } catch {
        preconditionFailure("planning: an error that is not an EngineError: \(type(of: error)): \(error)")
    }
    return 0
}

/// The file each input is written to: one per process, in a folder of its own under `$TMPDIR` (or /tmp).
enum Scratch {
    static let extensions = ["wav", "flac", "ogg", "mp3", "opus", "aiff", "m4a", "mp4", "webm", "aac"]
    /// Samples (frames x channels) read from one input before moving on.
    static let sampleLimit = 4_000_000

    static let folder: String = {
        let parent = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((parent + "/mixrender-fuzz-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("cannot make a folder in \(parent)") }
        return String(cString: made)
    }()

    static func write(_ path: String, _ bytes: UnsafeRawBufferPointer) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot write \(path)")
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            precondition(n > 0, "cannot write \(path)")
            done += n
        }
        close(fd)
    }
}

FuzzMain.run(fuzz)
